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

// SmartWalletMetaData contains all meta data concerning the SmartWallet contract.
var SmartWalletMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"execute\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"isValidSignature\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	Bin: "0x608060405234801561001057600080fd5b5060405161063938038061063983398101604081905261002f916100bd565b6001600160a01b0381166100985760405162461bcd60e51b815260206004820152602660248201527f536d61727457616c6c65743a206f776e657220697320746865207a65726f206160448201526564647265737360d01b606482015260840160405180910390fd5b600080546001600160a01b0319166001600160a01b03929092169190911790556100ed565b6000602082840312156100cf57600080fd5b81516001600160a01b03811681146100e657600080fd5b9392505050565b61053d806100fc6000396000f3fe6080604052600436106100385760003560e01c80631626ba7e146100445780638da5cb5b14610082578063b61d27f6146100ba57600080fd5b3661003f57005b600080fd5b34801561005057600080fd5b5061006461005f366004610396565b6100e7565b6040516001600160e01b031990911681526020015b60405180910390f35b34801561008e57600080fd5b506000546100a2906001600160a01b031681565b6040516001600160a01b039091168152602001610079565b3480156100c657600080fd5b506100da6100d53660046103e2565b610264565b604051610079919061044a565b60006041821461010057506001600160e01b031961025d565b600061010f6020828587610498565b610118916104c2565b9050600061012a604060208688610498565b610133916104c2565b905060008585604081811061014a5761014a6104e1565b919091013560f81c9150507f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a082118061019657508060ff16601b1415801561019657508060ff16601c14155b156101af57506001600160e01b0319925061025d915050565b604080516000808252602082018084528a905260ff841692820192909252606081018590526080810184905260019060a0016020604051602081039080840390855afa158015610203573d6000803e3d6000fd5b5050604051601f1901519150506001600160a01b038116158061023457506000546001600160a01b03828116911614155b1561024e57506001600160e01b0319935061025d92505050565b50630b135d3f60e11b93505050505b9392505050565b6000546060906001600160a01b031633146102d15760405162461bcd60e51b8152602060048201526024808201527f536d61727457616c6c65743a2063616c6c6572206973206e6f7420746865206f6044820152633bb732b960e11b606482015260840160405180910390fd5b600080866001600160a01b03168686866040516102ef9291906104f7565b60006040518083038185875af1925050503d806000811461032c576040519150601f19603f3d011682016040523d82523d6000602084013e610331565b606091505b50915091508161034357805160208201fd5b9695505050505050565b60008083601f84011261035f57600080fd5b50813567ffffffffffffffff81111561037757600080fd5b60208301915083602082850101111561038f57600080fd5b9250929050565b6000806000604084860312156103ab57600080fd5b83359250602084013567ffffffffffffffff8111156103c957600080fd5b6103d58682870161034d565b9497909650939450505050565b600080600080606085870312156103f857600080fd5b84356001600160a01b038116811461040f57600080fd5b935060208501359250604085013567ffffffffffffffff81111561043257600080fd5b61043e8782880161034d565b95989497509550505050565b602081526000825180602084015260005b81811015610478576020818601810151604086840101520161045b565b506000604082850101526040601f19601f83011684010191505092915050565b600080858511156104a857600080fd5b838611156104b557600080fd5b5050820193919092039150565b803560208310156104db57600019602084900360031b1b165b92915050565b634e487b7160e01b600052603260045260246000fd5b818382376000910190815291905056fea2646970667358221220241a9b52078257a4c06939afc7aeb007498b85465c9c277c30db5441663571d864736f6c634300081e0033",
}

// SmartWalletABI is the input ABI used to generate the binding from.
// Deprecated: Use SmartWalletMetaData.ABI instead.
var SmartWalletABI = SmartWalletMetaData.ABI

// SmartWalletBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use SmartWalletMetaData.Bin instead.
var SmartWalletBin = SmartWalletMetaData.Bin

// DeploySmartWallet deploys a new Ethereum contract, binding an instance of SmartWallet to it.
func DeploySmartWallet(auth *bind.TransactOpts, backend bind.ContractBackend, owner_ common.Address) (common.Address, *types.Transaction, *SmartWallet, error) {
	parsed, err := SmartWalletMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(SmartWalletBin), backend, owner_)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &SmartWallet{SmartWalletCaller: SmartWalletCaller{contract: contract}, SmartWalletTransactor: SmartWalletTransactor{contract: contract}, SmartWalletFilterer: SmartWalletFilterer{contract: contract}}, nil
}

// SmartWallet is an auto generated Go binding around an Ethereum contract.
type SmartWallet struct {
	SmartWalletCaller     // Read-only binding to the contract
	SmartWalletTransactor // Write-only binding to the contract
	SmartWalletFilterer   // Log filterer for contract events
}

// SmartWalletCaller is an auto generated read-only Go binding around an Ethereum contract.
type SmartWalletCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SmartWalletTransactor is an auto generated write-only Go binding around an Ethereum contract.
type SmartWalletTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SmartWalletFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type SmartWalletFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SmartWalletSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type SmartWalletSession struct {
	Contract     *SmartWallet      // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// SmartWalletCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type SmartWalletCallerSession struct {
	Contract *SmartWalletCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts      // Call options to use throughout this session
}

// SmartWalletTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type SmartWalletTransactorSession struct {
	Contract     *SmartWalletTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts      // Transaction auth options to use throughout this session
}

// SmartWalletRaw is an auto generated low-level Go binding around an Ethereum contract.
type SmartWalletRaw struct {
	Contract *SmartWallet // Generic contract binding to access the raw methods on
}

// SmartWalletCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type SmartWalletCallerRaw struct {
	Contract *SmartWalletCaller // Generic read-only contract binding to access the raw methods on
}

// SmartWalletTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type SmartWalletTransactorRaw struct {
	Contract *SmartWalletTransactor // Generic write-only contract binding to access the raw methods on
}

// NewSmartWallet creates a new instance of SmartWallet, bound to a specific deployed contract.
func NewSmartWallet(address common.Address, backend bind.ContractBackend) (*SmartWallet, error) {
	contract, err := bindSmartWallet(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &SmartWallet{SmartWalletCaller: SmartWalletCaller{contract: contract}, SmartWalletTransactor: SmartWalletTransactor{contract: contract}, SmartWalletFilterer: SmartWalletFilterer{contract: contract}}, nil
}

// NewSmartWalletCaller creates a new read-only instance of SmartWallet, bound to a specific deployed contract.
func NewSmartWalletCaller(address common.Address, caller bind.ContractCaller) (*SmartWalletCaller, error) {
	contract, err := bindSmartWallet(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &SmartWalletCaller{contract: contract}, nil
}

// NewSmartWalletTransactor creates a new write-only instance of SmartWallet, bound to a specific deployed contract.
func NewSmartWalletTransactor(address common.Address, transactor bind.ContractTransactor) (*SmartWalletTransactor, error) {
	contract, err := bindSmartWallet(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &SmartWalletTransactor{contract: contract}, nil
}

// NewSmartWalletFilterer creates a new log filterer instance of SmartWallet, bound to a specific deployed contract.
func NewSmartWalletFilterer(address common.Address, filterer bind.ContractFilterer) (*SmartWalletFilterer, error) {
	contract, err := bindSmartWallet(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &SmartWalletFilterer{contract: contract}, nil
}

// bindSmartWallet binds a generic wrapper to an already deployed contract.
func bindSmartWallet(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := SmartWalletMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SmartWallet *SmartWalletRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SmartWallet.Contract.SmartWalletCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SmartWallet *SmartWalletRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SmartWallet.Contract.SmartWalletTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SmartWallet *SmartWalletRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SmartWallet.Contract.SmartWalletTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SmartWallet *SmartWalletCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SmartWallet.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SmartWallet *SmartWalletTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SmartWallet.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SmartWallet *SmartWalletTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SmartWallet.Contract.contract.Transact(opts, method, params...)
}

// IsValidSignature is a free data retrieval call binding the contract method 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (_SmartWallet *SmartWalletCaller) IsValidSignature(opts *bind.CallOpts, hash [32]byte, signature []byte) ([4]byte, error) {
	var out []interface{}
	err := _SmartWallet.contract.Call(opts, &out, "isValidSignature", hash, signature)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// IsValidSignature is a free data retrieval call binding the contract method 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (_SmartWallet *SmartWalletSession) IsValidSignature(hash [32]byte, signature []byte) ([4]byte, error) {
	return _SmartWallet.Contract.IsValidSignature(&_SmartWallet.CallOpts, hash, signature)
}

// IsValidSignature is a free data retrieval call binding the contract method 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (_SmartWallet *SmartWalletCallerSession) IsValidSignature(hash [32]byte, signature []byte) ([4]byte, error) {
	return _SmartWallet.Contract.IsValidSignature(&_SmartWallet.CallOpts, hash, signature)
}

// Owner is a free data retrieval call binding the contract method 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (_SmartWallet *SmartWalletCaller) Owner(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _SmartWallet.contract.Call(opts, &out, "owner")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Owner is a free data retrieval call binding the contract method 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (_SmartWallet *SmartWalletSession) Owner() (common.Address, error) {
	return _SmartWallet.Contract.Owner(&_SmartWallet.CallOpts)
}

// Owner is a free data retrieval call binding the contract method 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (_SmartWallet *SmartWalletCallerSession) Owner() (common.Address, error) {
	return _SmartWallet.Contract.Owner(&_SmartWallet.CallOpts)
}

// Execute is a paid mutator transaction binding the contract method 0xb61d27f6.
//
// Solidity: function execute(address target, uint256 value, bytes data) returns(bytes)
func (_SmartWallet *SmartWalletTransactor) Execute(opts *bind.TransactOpts, target common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	return _SmartWallet.contract.Transact(opts, "execute", target, value, data)
}

// Execute is a paid mutator transaction binding the contract method 0xb61d27f6.
//
// Solidity: function execute(address target, uint256 value, bytes data) returns(bytes)
func (_SmartWallet *SmartWalletSession) Execute(target common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	return _SmartWallet.Contract.Execute(&_SmartWallet.TransactOpts, target, value, data)
}

// Execute is a paid mutator transaction binding the contract method 0xb61d27f6.
//
// Solidity: function execute(address target, uint256 value, bytes data) returns(bytes)
func (_SmartWallet *SmartWalletTransactorSession) Execute(target common.Address, value *big.Int, data []byte) (*types.Transaction, error) {
	return _SmartWallet.Contract.Execute(&_SmartWallet.TransactOpts, target, value, data)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_SmartWallet *SmartWalletTransactor) Receive(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SmartWallet.contract.RawTransact(opts, nil) // calldata is disallowed for receive function
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_SmartWallet *SmartWalletSession) Receive() (*types.Transaction, error) {
	return _SmartWallet.Contract.Receive(&_SmartWallet.TransactOpts)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_SmartWallet *SmartWalletTransactorSession) Receive() (*types.Transaction, error) {
	return _SmartWallet.Contract.Receive(&_SmartWallet.TransactOpts)
}
