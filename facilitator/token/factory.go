// Code generated - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package token

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = errors.New
	_ = big.NewInt
	_ = strings.NewReader
	_ = ethereum.NotFound
	_ = bind.Bind
	_ = common.Big1
	_ = types.BloomLookup
	_ = event.NewSubscription
	_ = abi.ConvertType
	_ = time.Tick
	_ = context.Background
)

// SmartWalletFactoryMetaData contains all meta data concerning the SmartWalletFactory contract.
var SmartWalletFactoryMetaData = &bind.MetaData{
	ABI: "[{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"}],\"name\":\"AccountCreated\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"}],\"name\":\"createAccount\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"}],\"name\":\"getAddress\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600f57600080fd5b506109718061001f6000396000f3fe608060405234801561001057600080fd5b50600436106100365760003560e01c80635fbfb9cf1461003b5780638cb84e181461006a575b600080fd5b61004e61004936600461027d565b61007d565b6040516001600160a01b03909116815260200160405180910390f35b61004e61007836600461027d565b6101ac565b600061008983836101ac565b90506000816001600160a01b03163b116101a65760008260001b846040516100b090610270565b6001600160a01b0390911681526020018190604051809103906000f59050801580156100e0573d6000803e3d6000fd5b509050816001600160a01b0316816001600160a01b0316146101575760405162461bcd60e51b815260206004820152602660248201527f536d61727457616c6c6574466163746f72793a20756e6578706563746564206160448201526564647265737360d01b606482015260840160405180910390fd5b836001600160a01b0316826001600160a01b03167f33310a89c32d8cc00057ad6ef6274d2f8fe22389a992cf89983e09fc84f6cfff8560405161019c91815260200190565b60405180910390a3505b92915050565b600080604051806020016101bf90610270565b601f1982820381018352601f9091011660408181526001600160a01b03871660208301520160408051601f198184030181529082905261020292916020016102e5565b60408051601f1981840301815282825280516020918201206001600160f81b0319828501523060601b6bffffffffffffffffffffffff191660218501526035840196909652605580840196909652815180840390960186526075909201905283519301929092209392505050565b6106398061030383390190565b6000806040838503121561029057600080fd5b82356001600160a01b03811681146102a757600080fd5b946020939093013593505050565b6000815160005b818110156102d657602081850181015186830152016102bc565b50600093019283525090919050565b60006102fa6102f483866102b5565b846102b5565b94935050505056fe608060405234801561001057600080fd5b5060405161063938038061063983398101604081905261002f916100bd565b6001600160a01b0381166100985760405162461bcd60e51b815260206004820152602660248201527f536d61727457616c6c65743a206f776e657220697320746865207a65726f206160448201526564647265737360d01b606482015260840160405180910390fd5b600080546001600160a01b0319166001600160a01b03929092169190911790556100ed565b6000602082840312156100cf57600080fd5b81516001600160a01b03811681146100e657600080fd5b9392505050565b61053d806100fc6000396000f3fe6080604052600436106100385760003560e01c80631626ba7e146100445780638da5cb5b14610082578063b61d27f6146100ba57600080fd5b3661003f57005b600080fd5b34801561005057600080fd5b5061006461005f366004610396565b6100e7565b6040516001600160e01b031990911681526020015b60405180910390f35b34801561008e57600080fd5b506000546100a2906001600160a01b031681565b6040516001600160a01b039091168152602001610079565b3480156100c657600080fd5b506100da6100d53660046103e2565b610264565b604051610079919061044a565b60006041821461010057506001600160e01b031961025d565b600061010f6020828587610498565b610118916104c2565b9050600061012a604060208688610498565b610133916104c2565b905060008585604081811061014a5761014a6104e1565b919091013560f81c9150507f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a082118061019657508060ff16601b1415801561019657508060ff16601c14155b156101af57506001600160e01b0319925061025d915050565b604080516000808252602082018084528a905260ff841692820192909252606081018590526080810184905260019060a0016020604051602081039080840390855afa158015610203573d6000803e3d6000fd5b5050604051601f1901519150506001600160a01b038116158061023457506000546001600160a01b03828116911614155b1561024e57506001600160e01b0319935061025d92505050565b50630b135d3f60e11b93505050505b9392505050565b6000546060906001600160a01b031633146102d15760405162461bcd60e51b8152602060048201526024808201527f536d61727457616c6c65743a2063616c6c6572206973206e6f7420746865206f6044820152633bb732b960e11b606482015260840160405180910390fd5b600080866001600160a01b03168686866040516102ef9291906104f7565b60006040518083038185875af1925050503d806000811461032c576040519150601f19603f3d011682016040523d82523d6000602084013e610331565b606091505b50915091508161034357805160208201fd5b9695505050505050565b60008083601f84011261035f57600080fd5b50813567ffffffffffffffff81111561037757600080fd5b60208301915083602082850101111561038f57600080fd5b9250929050565b6000806000604084860312156103ab57600080fd5b83359250602084013567ffffffffffffffff8111156103c957600080fd5b6103d58682870161034d565b9497909650939450505050565b600080600080606085870312156103f857600080fd5b84356001600160a01b038116811461040f57600080fd5b935060208501359250604085013567ffffffffffffffff81111561043257600080fd5b61043e8782880161034d565b95989497509550505050565b602081526000825180602084015260005b81811015610478576020818601810151604086840101520161045b565b506000604082850101526040601f19601f83011684010191505092915050565b600080858511156104a857600080fd5b838611156104b557600080fd5b5050820193919092039150565b803560208310156104db57600019602084900360031b1b165b92915050565b634e487b7160e01b600052603260045260246000fd5b818382376000910190815291905056fea2646970667358221220241a9b52078257a4c06939afc7aeb007498b85465c9c277c30db5441663571d864736f6c634300081e0033a2646970667358221220d6cf0156a3721d460766beeea6d7a09d0c6e9777201803c79407279246e2a20064736f6c634300081e0033",
}

// SmartWalletFactoryABI is the input ABI used to generate the binding from.
// Deprecated: Use SmartWalletFactoryMetaData.ABI instead.
var SmartWalletFactoryABI = SmartWalletFactoryMetaData.ABI

// SmartWalletFactoryBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use SmartWalletFactoryMetaData.Bin instead.
var SmartWalletFactoryBin = SmartWalletFactoryMetaData.Bin

// DeploySmartWalletFactory deploys a new Ethereum contract, binding an instance of SmartWalletFactory to it.
func DeploySmartWalletFactory(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *SmartWalletFactory, error) {
	parsed, err := SmartWalletFactoryMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(SmartWalletFactoryBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &SmartWalletFactory{SmartWalletFactoryCaller: SmartWalletFactoryCaller{contract: contract}, SmartWalletFactoryTransactor: SmartWalletFactoryTransactor{contract: contract}, SmartWalletFactoryFilterer: SmartWalletFactoryFilterer{contract: contract}}, nil
}

// SmartWalletFactory is an auto generated Go binding around an Ethereum contract.
type SmartWalletFactory struct {
	SmartWalletFactoryCaller     // Read-only binding to the contract
	SmartWalletFactoryTransactor // Write-only binding to the contract
	SmartWalletFactoryFilterer   // Log filterer for contract events
}

// SmartWalletFactoryCaller is an auto generated read-only Go binding around an Ethereum contract.
type SmartWalletFactoryCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SmartWalletFactoryTransactor is an auto generated write-only Go binding around an Ethereum contract.
type SmartWalletFactoryTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SmartWalletFactoryFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type SmartWalletFactoryFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SmartWalletFactorySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type SmartWalletFactorySession struct {
	Contract     *SmartWalletFactory // Generic contract binding to set the session for
	CallOpts     bind.CallOpts       // Call options to use throughout this session
	TransactOpts bind.TransactOpts   // Transaction auth options to use throughout this session
}

// SmartWalletFactoryCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type SmartWalletFactoryCallerSession struct {
	Contract *SmartWalletFactoryCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts             // Call options to use throughout this session
}

// SmartWalletFactoryTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type SmartWalletFactoryTransactorSession struct {
	Contract     *SmartWalletFactoryTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts             // Transaction auth options to use throughout this session
}

// SmartWalletFactoryRaw is an auto generated low-level Go binding around an Ethereum contract.
type SmartWalletFactoryRaw struct {
	Contract *SmartWalletFactory // Generic contract binding to access the raw methods on
}

// SmartWalletFactoryCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type SmartWalletFactoryCallerRaw struct {
	Contract *SmartWalletFactoryCaller // Generic read-only contract binding to access the raw methods on
}

// SmartWalletFactoryTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type SmartWalletFactoryTransactorRaw struct {
	Contract *SmartWalletFactoryTransactor // Generic write-only contract binding to access the raw methods on
}

// NewSmartWalletFactory creates a new instance of SmartWalletFactory, bound to a specific deployed contract.
func NewSmartWalletFactory(address common.Address, backend bind.ContractBackend) (*SmartWalletFactory, error) {
	contract, err := bindSmartWalletFactory(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &SmartWalletFactory{SmartWalletFactoryCaller: SmartWalletFactoryCaller{contract: contract}, SmartWalletFactoryTransactor: SmartWalletFactoryTransactor{contract: contract}, SmartWalletFactoryFilterer: SmartWalletFactoryFilterer{contract: contract}}, nil
}

// NewSmartWalletFactoryCaller creates a new read-only instance of SmartWalletFactory, bound to a specific deployed contract.
func NewSmartWalletFactoryCaller(address common.Address, caller bind.ContractCaller) (*SmartWalletFactoryCaller, error) {
	contract, err := bindSmartWalletFactory(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &SmartWalletFactoryCaller{contract: contract}, nil
}

// NewSmartWalletFactoryTransactor creates a new write-only instance of SmartWalletFactory, bound to a specific deployed contract.
func NewSmartWalletFactoryTransactor(address common.Address, transactor bind.ContractTransactor) (*SmartWalletFactoryTransactor, error) {
	contract, err := bindSmartWalletFactory(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &SmartWalletFactoryTransactor{contract: contract}, nil
}

// NewSmartWalletFactoryFilterer creates a new log filterer instance of SmartWalletFactory, bound to a specific deployed contract.
func NewSmartWalletFactoryFilterer(address common.Address, filterer bind.ContractFilterer) (*SmartWalletFactoryFilterer, error) {
	contract, err := bindSmartWalletFactory(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &SmartWalletFactoryFilterer{contract: contract}, nil
}

// bindSmartWalletFactory binds a generic wrapper to an already deployed contract.
func bindSmartWalletFactory(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := SmartWalletFactoryMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SmartWalletFactory *SmartWalletFactoryRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SmartWalletFactory.Contract.SmartWalletFactoryCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SmartWalletFactory *SmartWalletFactoryRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SmartWalletFactory.Contract.SmartWalletFactoryTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SmartWalletFactory *SmartWalletFactoryRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SmartWalletFactory.Contract.SmartWalletFactoryTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SmartWalletFactory *SmartWalletFactoryCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SmartWalletFactory.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SmartWalletFactory *SmartWalletFactoryTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SmartWalletFactory.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SmartWalletFactory *SmartWalletFactoryTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SmartWalletFactory.Contract.contract.Transact(opts, method, params...)
}

// GetAddress is a free data retrieval call binding the contract method 0x8cb84e18.
//
// Solidity: function getAddress(address owner, uint256 salt) view returns(address)
func (_SmartWalletFactory *SmartWalletFactoryCaller) GetAddress(opts *bind.CallOpts, owner common.Address, salt *big.Int) (common.Address, error) {
	var out []interface{}
	err := _SmartWalletFactory.contract.Call(opts, &out, "getAddress", owner, salt)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// GetAddress is a free data retrieval call binding the contract method 0x8cb84e18.
//
// Solidity: function getAddress(address owner, uint256 salt) view returns(address)
func (_SmartWalletFactory *SmartWalletFactorySession) GetAddress(owner common.Address, salt *big.Int) (common.Address, error) {
	return _SmartWalletFactory.Contract.GetAddress(&_SmartWalletFactory.CallOpts, owner, salt)
}

// GetAddress is a free data retrieval call binding the contract method 0x8cb84e18.
//
// Solidity: function getAddress(address owner, uint256 salt) view returns(address)
func (_SmartWalletFactory *SmartWalletFactoryCallerSession) GetAddress(owner common.Address, salt *big.Int) (common.Address, error) {
	return _SmartWalletFactory.Contract.GetAddress(&_SmartWalletFactory.CallOpts, owner, salt)
}

// CreateAccount is a paid mutator transaction binding the contract method 0x5fbfb9cf.
//
// Solidity: function createAccount(address owner, uint256 salt) returns(address account)
func (_SmartWalletFactory *SmartWalletFactoryTransactor) CreateAccount(opts *bind.TransactOpts, owner common.Address, salt *big.Int) (*types.Transaction, error) {
	return _SmartWalletFactory.contract.Transact(opts, "createAccount", owner, salt)
}

// CreateAccount is a paid mutator transaction binding the contract method 0x5fbfb9cf.
//
// Solidity: function createAccount(address owner, uint256 salt) returns(address account)
func (_SmartWalletFactory *SmartWalletFactorySession) CreateAccount(owner common.Address, salt *big.Int) (*types.Transaction, error) {
	return _SmartWalletFactory.Contract.CreateAccount(&_SmartWalletFactory.TransactOpts, owner, salt)
}

// CreateAccount is a paid mutator transaction binding the contract method 0x5fbfb9cf.
//
// Solidity: function createAccount(address owner, uint256 salt) returns(address account)
func (_SmartWalletFactory *SmartWalletFactoryTransactorSession) CreateAccount(owner common.Address, salt *big.Int) (*types.Transaction, error) {
	return _SmartWalletFactory.Contract.CreateAccount(&_SmartWalletFactory.TransactOpts, owner, salt)
}

// SmartWalletFactoryAccountCreatedIterator is returned from FilterAccountCreated and is used to iterate over the raw logs and unpacked data for AccountCreated events raised by the SmartWalletFactory contract.
type SmartWalletFactoryAccountCreatedIterator struct {
	Event *SmartWalletFactoryAccountCreated // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *SmartWalletFactoryAccountCreatedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SmartWalletFactoryAccountCreated)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(SmartWalletFactoryAccountCreated)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *SmartWalletFactoryAccountCreatedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SmartWalletFactoryAccountCreatedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SmartWalletFactoryAccountCreated represents a AccountCreated event raised by the SmartWalletFactory contract.
type SmartWalletFactoryAccountCreated struct {
	Account common.Address
	Owner   common.Address
	Salt    *big.Int
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterAccountCreated is a free log retrieval operation binding the contract event 0x33310a89c32d8cc00057ad6ef6274d2f8fe22389a992cf89983e09fc84f6cfff.
//
// Solidity: event AccountCreated(address indexed account, address indexed owner, uint256 salt)
func (_SmartWalletFactory *SmartWalletFactoryFilterer) FilterAccountCreated(opts *bind.FilterOpts, account []common.Address, owner []common.Address) (*SmartWalletFactoryAccountCreatedIterator, error) {

	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _SmartWalletFactory.contract.FilterLogs(opts, "AccountCreated", accountRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &SmartWalletFactoryAccountCreatedIterator{contract: _SmartWalletFactory.contract, event: "AccountCreated", logs: logs, sub: sub}, nil
}

// WatchAccountCreated is a free log subscription operation binding the contract event 0x33310a89c32d8cc00057ad6ef6274d2f8fe22389a992cf89983e09fc84f6cfff.
//
// Solidity: event AccountCreated(address indexed account, address indexed owner, uint256 salt)
func (_SmartWalletFactory *SmartWalletFactoryFilterer) WatchAccountCreated(opts *bind.WatchOpts, sink chan<- *SmartWalletFactoryAccountCreated, account []common.Address, owner []common.Address) (event.Subscription, error) {

	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _SmartWalletFactory.contract.WatchLogs(opts, "AccountCreated", accountRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SmartWalletFactoryAccountCreated)
				if err := _SmartWalletFactory.contract.UnpackLog(event, "AccountCreated", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseAccountCreated is a log parse operation binding the contract event 0x33310a89c32d8cc00057ad6ef6274d2f8fe22389a992cf89983e09fc84f6cfff.
//
// Solidity: event AccountCreated(address indexed account, address indexed owner, uint256 salt)
func (_SmartWalletFactory *SmartWalletFactoryFilterer) ParseAccountCreated(log types.Log) (*SmartWalletFactoryAccountCreated, error) {
	event := new(SmartWalletFactoryAccountCreated)
	if err := _SmartWalletFactory.contract.UnpackLog(event, "AccountCreated", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
