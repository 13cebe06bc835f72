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

// ISignatureTransferPermitTransferFrom is an auto generated low-level Go binding around an user-defined struct.
type ISignatureTransferPermitTransferFrom struct {
	Permitted ISignatureTransferTokenPermissions
	Nonce     *big.Int
	Deadline  *big.Int
}

// ISignatureTransferSignatureTransferDetails is an auto generated low-level Go binding around an user-defined struct.
type ISignatureTransferSignatureTransferDetails struct {
	To              common.Address
	RequestedAmount *big.Int
}

// ISignatureTransferTokenPermissions is an auto generated low-level Go binding around an user-defined struct.
type ISignatureTransferTokenPermissions struct {
	Token  common.Address
	Amount *big.Int
}

// X402BasePermit2ProxyEIP2612Permit is an auto generated low-level Go binding around an user-defined struct.
type X402BasePermit2ProxyEIP2612Permit struct {
	Value    *big.Int
	Deadline *big.Int
	R        [32]byte
	S        [32]byte
	V        uint8
}

// X402ExactPermit2ProxyWitness is an auto generated low-level Go binding around an user-defined struct.
type X402ExactPermit2ProxyWitness struct {
	To         common.Address
	ValidAfter *big.Int
}

// X402UptoPermit2ProxyWitness is an auto generated low-level Go binding around an user-defined struct.
type X402UptoPermit2ProxyWitness struct {
	To          common.Address
	Facilitator common.Address
	ValidAfter  *big.Int
}

// Permit2MetaData contains all meta data concerning the Permit2 contract.
var Permit2MetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"maxAmount\",\"type\":\"uint256\"}],\"name\":\"InvalidAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidContractSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidNonce\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSignatureLength\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSigner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"signatureDeadline\",\"type\":\"uint256\"}],\"name\":\"SignatureExpired\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"word\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"mask\",\"type\":\"uint256\"}],\"name\":\"UnorderedNonceInvalidation\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DOMAIN_SEPARATOR\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"wordPos\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"mask\",\"type\":\"uint256\"}],\"name\":\"invalidateUnorderedNonces\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"nonceBitmap\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"requestedAmount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.SignatureTransferDetails\",\"name\":\"transferDetails\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"permitTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"requestedAmount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.SignatureTransferDetails\",\"name\":\"transferDetails\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"witness\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"witnessTypeString\",\"type\":\"string\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"permitWitnessTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600f57600080fd5b50610d768061001f6000396000f3fe608060405234801561001057600080fd5b50600436106100575760003560e01c8063137c29fe1461005c57806330f28b7a146100715780633644e515146100845780633ff9dcb11461009e5780634fe02b44146100b1575b600080fd5b61006f61006a366004610a03565b6100d9565b005b61006f61007f366004610ab8565b610199565b61008c610227565b60405190815260200160405180910390f35b61006f6100ac366004610b31565b6102a6565b61008c6100bf366004610b53565b600060208181529281526040808220909352908152205481565b60006040518060a0016040528060648152602001610cdd60649139858560405160200161010893929190610ba1565b60405160208183030381529060405280519060200120905060008161012c8b6102ff565b6020808d01516040808f0151815193840195909552820192909252336060820152608081019190915260a081019190915260c0810188905260e00160405160208183030381529060405280519060200120905061018d8a8a8a848888610363565b50505050505050505050565b60007f939c21a48a8dbe3a9a2404a1d46691e4d39f6583d6ec6b35714604c986d801066101c5876102ff565b6020808901516040808b0151815193840195909552820192909252336060820152608081019190915260a081019190915260c00160405160208183030381529060405280519060200120905061021f868686848787610363565b505050505050565b604080517f8cad95687ba82c2ce50e74f7b754645e5117c3a5bec8151c0726d5857980a86660208201527f9ac997416e8ff9d2ff6bebeb7149f65cdae5e32e2b90440b566bb3044041d36a9181019190915246606082015230608082015260009060a00160405160208183030381529060405280519060200120905090565b3360008181526020818152604080832086845282529182902080548517905581518581529081018490527f3704902f963766a4e561bbaab6e6cdc1b1dd12f6e9e99648da8843b3f46b918d910160405180910390a25050565b518051602091820151604080517f618358ac3db8dc274f0cd8829da7e234bd48cd73c4a740aede1adec9846d06a1818601526001600160a01b0390931683820152606080840192909252805180840390920182526080909201909152805191012090565b604086015160208601359042111561039f57866040015160405163cd21db4f60e01b815260040161039691815260200190565b60405180910390fd5b8651602001518111156103cf57865160200151604051633728b83d60e01b81526004810191909152602401610396565b6103dd85886020015161044a565b61042683836103ea610227565b60405161190160f01b602082015260228101919091526042810188905260620160405160208183030381529060405280519060200120886104aa565b865151610441908661043b60208a018a610bc9565b84610791565b50505050505050565b6001600160a01b038216600090815260208181526040808320600885901c808552925282208054600160ff86161b90811891829055919281831690036104a357604051633ab3447f60e11b815260040160405180910390fd5b5050505050565b806001600160a01b03163b60000361065b5760008080604186900361051f576104d760206000888a610beb565b6104e091610c15565b92506104f060406020888a610beb565b6104f991610c15565b91508686604081811061050e5761050e610c34565b919091013560f81c91506105989050565b604086900361057f5761053660206000888a610beb565b61053f91610c15565b9250600061055160406020898b610beb565b61055a91610c15565b6001600160ff1b0381169350905061057760ff82901c601b610c4a565b915050610598565b604051634be6321b60e01b815260040160405180910390fd5b6040805160008082526020820180845288905260ff841692820192909252606081018590526080810184905260019060a0016020604051602081039080840390855afa1580156105ec573d6000803e3d6000fd5b5050604051601f1901519150506001600160a01b03811661062057604051638baa579f60e01b815260040160405180910390fd5b846001600160a01b0316816001600160a01b03161461065257604051632057875960e21b815260040160405180910390fd5b5050505061078b565b600080826001600160a01b0316631626ba7e60e01b85888860405160240161068593929190610c71565b60408051601f198184030181529181526020820180516001600160e01b03166001600160e01b03199094169390931790925290516106c39190610ca7565b600060405180830381855afa9150503d80600081146106fe576040519150601f19603f3d011682016040523d82523d6000602084013e610703565b606091505b50915091508161071557805160208201fd5b60208151108061073b57506020818060200190518101906107369190610cc3565b901b15155b1561074557600080fd5b8051630b135d3f60e11b906107639083016020908101908401610cc3565b6001600160e01b0319161461021f57604051632c19a72f60e21b815260040160405180910390fd5b50505050565b604080516001600160a01b0385811660248301528481166044830152606480830185905283518084039091018152608490920183526020820180516001600160e01b03166323b872dd60e01b17905291516000928392908816916107f59190610ca7565b6000604051808303816000865af19150503d8060008114610832576040519150601f19603f3d011682016040523d82523d6000602084013e610837565b606091505b50915091508180156108725750805115806108725750602081511015801561087257508080602001905181019061086e9190610cc3565b6001145b61021f5760405162461bcd60e51b81526020600482015260146024820152731514905394d1915497d19493d357d1905253115160621b6044820152606401610396565b6040805190810167ffffffffffffffff811182821017156108e657634e487b7160e01b600052604160045260246000fd5b60405290565b80356001600160a01b038116811461090357600080fd5b919050565b6000818303608081121561091b57600080fd5b6040516060810167ffffffffffffffff8111828210171561094c57634e487b7160e01b600052604160045260246000fd5b8060405250809250604082121561096257600080fd5b61096a6108b5565b9150610975846108ec565b82526020848101358184015291815260408085013592820192909252606090930135920191909152919050565b6000604082840312156109b457600080fd5b50919050565b60008083601f8401126109cc57600080fd5b50813567ffffffffffffffff8111156109e457600080fd5b6020830191508360208285010111156109fc57600080fd5b9250929050565b600080600080600080600080610140898b031215610a2057600080fd5b610a2a8a8a610908565b9750610a398a60808b016109a2565b9650610a4760c08a016108ec565b955060e0890135945061010089013567ffffffffffffffff811115610a6b57600080fd5b610a778b828c016109ba565b90955093505061012089013567ffffffffffffffff811115610a9857600080fd5b610aa48b828c016109ba565b999c989b5096995094979396929594505050565b60008060008060006101008688031215610ad157600080fd5b610adb8787610908565b9450610aea87608088016109a2565b9350610af860c087016108ec565b925060e086013567ffffffffffffffff811115610b1457600080fd5b610b20888289016109ba565b969995985093965092949392505050565b60008060408385031215610b4457600080fd5b50508035926020909101359150565b60008060408385031215610b6657600080fd5b610b6f836108ec565b946020939093013593505050565b60005b83811015610b98578181015183820152602001610b80565b50506000910152565b60008451610bb3818460208901610b7d565b8201838582376000930192835250909392505050565b600060208284031215610bdb57600080fd5b610be4826108ec565b9392505050565b60008085851115610bfb57600080fd5b83861115610c0857600080fd5b5050820193919092039150565b80356020831015610c2e57600019602084900360031b1b165b92915050565b634e487b7160e01b600052603260045260246000fd5b60ff8181168382160190811115610c2e57634e487b7160e01b600052601160045260246000fd5b83815260406020820152816040820152818360608301376000818301606090810191909152601f909201601f1916010192915050565b60008251610cb9818460208701610b7d565b9190910192915050565b600060208284031215610cd557600080fd5b505191905056fe5065726d69745769746e6573735472616e7366657246726f6d28546f6b656e5065726d697373696f6e73207065726d69747465642c61646472657373207370656e6465722c75696e74323536206e6f6e63652c75696e7432353620646561646c696e652ca2646970667358221220af5a5487be75468c344568be2bcdc3995b5bf9a67c377e306dd13676f21397e564736f6c634300081e0033",
}

// Permit2ABI is the input ABI used to generate the binding from.
// Deprecated: Use Permit2MetaData.ABI instead.
var Permit2ABI = Permit2MetaData.ABI

// Permit2Bin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use Permit2MetaData.Bin instead.
var Permit2Bin = Permit2MetaData.Bin

// DeployPermit2 deploys a new Ethereum contract, binding an instance of Permit2 to it.
func DeployPermit2(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *Permit2, error) {
	parsed, err := Permit2MetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(Permit2Bin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &Permit2{Permit2Caller: Permit2Caller{contract: contract}, Permit2Transactor: Permit2Transactor{contract: contract}, Permit2Filterer: Permit2Filterer{contract: contract}}, nil
}

// Permit2 is an auto generated Go binding around an Ethereum contract.
type Permit2 struct {
	Permit2Caller     // Read-only binding to the contract
	Permit2Transactor // Write-only binding to the contract
	Permit2Filterer   // Log filterer for contract events
}

// Permit2Caller is an auto generated read-only Go binding around an Ethereum contract.
type Permit2Caller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// Permit2Transactor is an auto generated write-only Go binding around an Ethereum contract.
type Permit2Transactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// Permit2Filterer is an auto generated log filtering Go binding around an Ethereum contract events.
type Permit2Filterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// Permit2Session is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type Permit2Session struct {
	Contract     *Permit2          // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// Permit2CallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type Permit2CallerSession struct {
	Contract *Permit2Caller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts  // Call options to use throughout this session
}

// Permit2TransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type Permit2TransactorSession struct {
	Contract     *Permit2Transactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts  // Transaction auth options to use throughout this session
}

// Permit2Raw is an auto generated low-level Go binding around an Ethereum contract.
type Permit2Raw struct {
	Contract *Permit2 // Generic contract binding to access the raw methods on
}

// Permit2CallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type Permit2CallerRaw struct {
	Contract *Permit2Caller // Generic read-only contract binding to access the raw methods on
}

// Permit2TransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type Permit2TransactorRaw struct {
	Contract *Permit2Transactor // Generic write-only contract binding to access the raw methods on
}

// NewPermit2 creates a new instance of Permit2, bound to a specific deployed contract.
func NewPermit2(address common.Address, backend bind.ContractBackend) (*Permit2, error) {
	contract, err := bindPermit2(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &Permit2{Permit2Caller: Permit2Caller{contract: contract}, Permit2Transactor: Permit2Transactor{contract: contract}, Permit2Filterer: Permit2Filterer{contract: contract}}, nil
}

// NewPermit2Caller creates a new read-only instance of Permit2, bound to a specific deployed contract.
func NewPermit2Caller(address common.Address, caller bind.ContractCaller) (*Permit2Caller, error) {
	contract, err := bindPermit2(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &Permit2Caller{contract: contract}, nil
}

// NewPermit2Transactor creates a new write-only instance of Permit2, bound to a specific deployed contract.
func NewPermit2Transactor(address common.Address, transactor bind.ContractTransactor) (*Permit2Transactor, error) {
	contract, err := bindPermit2(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &Permit2Transactor{contract: contract}, nil
}

// NewPermit2Filterer creates a new log filterer instance of Permit2, bound to a specific deployed contract.
func NewPermit2Filterer(address common.Address, filterer bind.ContractFilterer) (*Permit2Filterer, error) {
	contract, err := bindPermit2(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &Permit2Filterer{contract: contract}, nil
}

// bindPermit2 binds a generic wrapper to an already deployed contract.
func bindPermit2(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := Permit2MetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_Permit2 *Permit2Raw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _Permit2.Contract.Permit2Caller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_Permit2 *Permit2Raw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _Permit2.Contract.Permit2Transactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_Permit2 *Permit2Raw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _Permit2.Contract.Permit2Transactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_Permit2 *Permit2CallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _Permit2.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_Permit2 *Permit2TransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _Permit2.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_Permit2 *Permit2TransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _Permit2.Contract.contract.Transact(opts, method, params...)
}

// DOMAINSEPARATOR is a free data retrieval call binding the contract method 0x3644e515.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (_Permit2 *Permit2Caller) DOMAINSEPARATOR(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _Permit2.contract.Call(opts, &out, "DOMAIN_SEPARATOR")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// DOMAINSEPARATOR is a free data retrieval call binding the contract method 0x3644e515.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (_Permit2 *Permit2Session) DOMAINSEPARATOR() ([32]byte, error) {
	return _Permit2.Contract.DOMAINSEPARATOR(&_Permit2.CallOpts)
}

// DOMAINSEPARATOR is a free data retrieval call binding the contract method 0x3644e515.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (_Permit2 *Permit2CallerSession) DOMAINSEPARATOR() ([32]byte, error) {
	return _Permit2.Contract.DOMAINSEPARATOR(&_Permit2.CallOpts)
}

// NonceBitmap is a free data retrieval call binding the contract method 0x4fe02b44.
//
// Solidity: function nonceBitmap(address , uint256 ) view returns(uint256)
func (_Permit2 *Permit2Caller) NonceBitmap(opts *bind.CallOpts, arg0 common.Address, arg1 *big.Int) (*big.Int, error) {
	var out []interface{}
	err := _Permit2.contract.Call(opts, &out, "nonceBitmap", arg0, arg1)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// NonceBitmap is a free data retrieval call binding the contract method 0x4fe02b44.
//
// Solidity: function nonceBitmap(address , uint256 ) view returns(uint256)
func (_Permit2 *Permit2Session) NonceBitmap(arg0 common.Address, arg1 *big.Int) (*big.Int, error) {
	return _Permit2.Contract.NonceBitmap(&_Permit2.CallOpts, arg0, arg1)
}

// NonceBitmap is a free data retrieval call binding the contract method 0x4fe02b44.
//
// Solidity: function nonceBitmap(address , uint256 ) view returns(uint256)
func (_Permit2 *Permit2CallerSession) NonceBitmap(arg0 common.Address, arg1 *big.Int) (*big.Int, error) {
	return _Permit2.Contract.NonceBitmap(&_Permit2.CallOpts, arg0, arg1)
}

// InvalidateUnorderedNonces is a paid mutator transaction binding the contract method 0x3ff9dcb1.
//
// Solidity: function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) returns()
func (_Permit2 *Permit2Transactor) InvalidateUnorderedNonces(opts *bind.TransactOpts, wordPos *big.Int, mask *big.Int) (*types.Transaction, error) {
	return _Permit2.contract.Transact(opts, "invalidateUnorderedNonces", wordPos, mask)
}

// InvalidateUnorderedNonces is a paid mutator transaction binding the contract method 0x3ff9dcb1.
//
// Solidity: function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) returns()
func (_Permit2 *Permit2Session) InvalidateUnorderedNonces(wordPos *big.Int, mask *big.Int) (*types.Transaction, error) {
	return _Permit2.Contract.InvalidateUnorderedNonces(&_Permit2.TransactOpts, wordPos, mask)
}

// InvalidateUnorderedNonces is a paid mutator transaction binding the contract method 0x3ff9dcb1.
//
// Solidity: function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) returns()
func (_Permit2 *Permit2TransactorSession) InvalidateUnorderedNonces(wordPos *big.Int, mask *big.Int) (*types.Transaction, error) {
	return _Permit2.Contract.InvalidateUnorderedNonces(&_Permit2.TransactOpts, wordPos, mask)
}

// PermitTransferFrom is a paid mutator transaction binding the contract method 0x30f28b7a.
//
// Solidity: function permitTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes signature) returns()
func (_Permit2 *Permit2Transactor) PermitTransferFrom(opts *bind.TransactOpts, permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, signature []byte) (*types.Transaction, error) {
	return _Permit2.contract.Transact(opts, "permitTransferFrom", permit, transferDetails, owner, signature)
}

// PermitTransferFrom is a paid mutator transaction binding the contract method 0x30f28b7a.
//
// Solidity: function permitTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes signature) returns()
func (_Permit2 *Permit2Session) PermitTransferFrom(permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, signature []byte) (*types.Transaction, error) {
	return _Permit2.Contract.PermitTransferFrom(&_Permit2.TransactOpts, permit, transferDetails, owner, signature)
}

// PermitTransferFrom is a paid mutator transaction binding the contract method 0x30f28b7a.
//
// Solidity: function permitTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes signature) returns()
func (_Permit2 *Permit2TransactorSession) PermitTransferFrom(permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, signature []byte) (*types.Transaction, error) {
	return _Permit2.Contract.PermitTransferFrom(&_Permit2.TransactOpts, permit, transferDetails, owner, signature)
}

// PermitWitnessTransferFrom is a paid mutator transaction binding the contract method 0x137c29fe.
//
// Solidity: function permitWitnessTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature) returns()
func (_Permit2 *Permit2Transactor) PermitWitnessTransferFrom(opts *bind.TransactOpts, permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, witness [32]byte, witnessTypeString string, signature []byte) (*types.Transaction, error) {
	return _Permit2.contract.Transact(opts, "permitWitnessTransferFrom", permit, transferDetails, owner, witness, witnessTypeString, signature)
}

// PermitWitnessTransferFrom is a paid mutator transaction binding the contract method 0x137c29fe.
//
// Solidity: function permitWitnessTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature) returns()
func (_Permit2 *Permit2Session) PermitWitnessTransferFrom(permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, witness [32]byte, witnessTypeString string, signature []byte) (*types.Transaction, error) {
	return _Permit2.Contract.PermitWitnessTransferFrom(&_Permit2.TransactOpts, permit, transferDetails, owner, witness, witnessTypeString, signature)
}

// PermitWitnessTransferFrom is a paid mutator transaction binding the contract method 0x137c29fe.
//
// Solidity: function permitWitnessTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature) returns()
func (_Permit2 *Permit2TransactorSession) PermitWitnessTransferFrom(permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, witness [32]byte, witnessTypeString string, signature []byte) (*types.Transaction, error) {
	return _Permit2.Contract.PermitWitnessTransferFrom(&_Permit2.TransactOpts, permit, transferDetails, owner, witness, witnessTypeString, signature)
}

// Permit2UnorderedNonceInvalidationIterator is returned from FilterUnorderedNonceInvalidation and is used to iterate over the raw logs and unpacked data for UnorderedNonceInvalidation events raised by the Permit2 contract.
type Permit2UnorderedNonceInvalidationIterator struct {
	Event *Permit2UnorderedNonceInvalidation // Event containing the contract specifics and raw log

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
func (it *Permit2UnorderedNonceInvalidationIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(Permit2UnorderedNonceInvalidation)
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
		it.Event = new(Permit2UnorderedNonceInvalidation)
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
func (it *Permit2UnorderedNonceInvalidationIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *Permit2UnorderedNonceInvalidationIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// Permit2UnorderedNonceInvalidation represents a UnorderedNonceInvalidation event raised by the Permit2 contract.
type Permit2UnorderedNonceInvalidation struct {
	Owner common.Address
	Word  *big.Int
	Mask  *big.Int
	Raw   types.Log // Blockchain specific contextual infos
}

// FilterUnorderedNonceInvalidation is a free log retrieval operation binding the contract event 0x3704902f963766a4e561bbaab6e6cdc1b1dd12f6e9e99648da8843b3f46b918d.
//
// Solidity: event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)
func (_Permit2 *Permit2Filterer) FilterUnorderedNonceInvalidation(opts *bind.FilterOpts, owner []common.Address) (*Permit2UnorderedNonceInvalidationIterator, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _Permit2.contract.FilterLogs(opts, "UnorderedNonceInvalidation", ownerRule)
	if err != nil {
		return nil, err
	}
	return &Permit2UnorderedNonceInvalidationIterator{contract: _Permit2.contract, event: "UnorderedNonceInvalidation", logs: logs, sub: sub}, nil
}

// WatchUnorderedNonceInvalidation is a free log subscription operation binding the contract event 0x3704902f963766a4e561bbaab6e6cdc1b1dd12f6e9e99648da8843b3f46b918d.
//
// Solidity: event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)
func (_Permit2 *Permit2Filterer) WatchUnorderedNonceInvalidation(opts *bind.WatchOpts, sink chan<- *Permit2UnorderedNonceInvalidation, owner []common.Address) (event.Subscription, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _Permit2.contract.WatchLogs(opts, "UnorderedNonceInvalidation", ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(Permit2UnorderedNonceInvalidation)
				if err := _Permit2.contract.UnpackLog(event, "UnorderedNonceInvalidation", log); err != nil {
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

// ParseUnorderedNonceInvalidation is a log parse operation binding the contract event 0x3704902f963766a4e561bbaab6e6cdc1b1dd12f6e9e99648da8843b3f46b918d.
//
// Solidity: event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)
func (_Permit2 *Permit2Filterer) ParseUnorderedNonceInvalidation(log types.Log) (*Permit2UnorderedNonceInvalidation, error) {
	event := new(Permit2UnorderedNonceInvalidation)
	if err := _Permit2.contract.UnpackLog(event, "UnorderedNonceInvalidation", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402ExactPermit2ProxyMetaData contains all meta data concerning the X402ExactPermit2Proxy contract.
var X402ExactPermit2ProxyMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"permit2\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"InvalidAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidDestination\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidPermit2Address\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"PaymentTooEarly\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"Permit2612AmountMismatch\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReentrancyGuardReentrantCall\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"EIP2612PermitFailedWithData\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"errorCode\",\"type\":\"uint256\"}],\"name\":\"EIP2612PermitFailedWithPanic\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"EIP2612PermitFailedWithReason\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"Settled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"SettledWithPermit\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"PERMIT2\",\"outputs\":[{\"internalType\":\"contractISignatureTransfer\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"WITNESS_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"WITNESS_TYPE_STRING\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"}],\"internalType\":\"structx402ExactPermit2Proxy.Witness\",\"name\":\"witness\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"settle\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"r\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"v\",\"type\":\"uint8\"}],\"internalType\":\"structx402BasePermit2Proxy.EIP2612Permit\",\"name\":\"permit2612\",\"type\":\"tuple\"},{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"}],\"internalType\":\"structx402ExactPermit2Proxy.Witness\",\"name\":\"witness\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"settleWithPermit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x60a060405234801561001057600080fd5b50604051610bc0380380610bc083398101604081905261002f9161006e565b806001600160a01b038116610057576040516359106c8960e01b815260040160405180910390fd5b6001600160a01b031660805250600160005561009e565b60006020828403121561008057600080fd5b81516001600160a01b038116811461009757600080fd5b9392505050565b608051610afa6100c66000396000818160c90152818161030f01526105b10152610afa6000f3fe608060405234801561001057600080fd5b50600436106100575760003560e01c806313cd3b531461005c578063156e2152146100715780632c03ae6a1461008f5780636afdd850146100c4578063fa34037814610103575b600080fd5b61006f61006a3660046106f0565b610116565b005b610079610180565b60405161008691906107af565b60405180910390f35b6100b67fd97b3239a7f32295517bd14cb074edfdd188dfe5eb42f802bb26d4fd1eb12c3781565b604051908152602001610086565b6100eb7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610086565b61006f6101113660046107c9565b61019c565b60005460020361013957604051633ee5aeb560e01b815260040160405180910390fd5b600260005561014b8585858585610223565b6040517f97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b690600090a150506001600055505050565b6040518060a0016040528060648152602001610a616064913981565b6000546002036101bf57604051633ee5aeb560e01b815260040160405180910390fd5b60026000556101e06101d4602087018761085d565b858860208901356102dc565b6101ed8585858585610223565b6040517fde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d890600090a15050600160005550505050565b60007fd97b3239a7f32295517bd14cb074edfdd188dfe5eb42f802bb26d4fd1eb12c37610253602086018661085d565b604080516020818101949094526001600160a01b039092169082015290850135606082015260800160408051601f19818403018152919052805160209182012091506102d4908790818101359088906102ae9089018961085d565b8860200135866040518060a0016040528060648152602001610a61606491398a8a61051f565b505050505050565b813581146102fd5760405163050cda4960e01b815260040160405180910390fd5b6001600160a01b03841663d505accf847f00000000000000000000000000000000000000000000000000000000000000008535602087013561034560a0890160808a01610878565b604080516001600160e01b031960e089901b1681526001600160a01b0396871660048201529590941660248601526044850192909252606484015260ff16608483015285013560a4820152606085013560c482015260e401600060405180830381600087803b1580156103b757600080fd5b505af19250505080156103c8575060015b610519576103d461089b565b806308c379a00361044457506103e86108f2565b806103f357506104a6565b836001600160a01b0316856001600160a01b03167f0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e78360405161043691906107af565b60405180910390a350610519565b634e487b71036104a657610456610977565b9061046157506104a6565b836001600160a01b0316856001600160a01b03167f278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d1976238360405161043691815260200190565b3d8080156104d0576040519150601f19603f3d011682016040523d82523d6000602084013e6104d5565b606091505b50836001600160a01b0316856001600160a01b03167f41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe8360405161043691906107af565b50505050565b876000036105405760405163162908e360e11b815260040160405180910390fd5b6001600160a01b038716610567576040516349e27cff60e01b815260040160405180910390fd5b6001600160a01b03861661058e5760405163ac6b05f560e01b815260040160405180910390fd5b844210156105af5760405163532a9cfd60e11b815260040160405180910390fd5b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031663137c29fe8a60405180604001604052808a6001600160a01b031681526020018c8152508a888888886040518863ffffffff1660e01b815260040161062497969594939291906109c0565b600060405180830381600087803b15801561063e57600080fd5b505af1158015610652573d6000803e3d6000fd5b50505050505050505050505050565b60006080828403121561067357600080fd5b50919050565b80356001600160a01b038116811461069057600080fd5b919050565b60006040828403121561067357600080fd5b60008083601f8401126106b957600080fd5b50813567ffffffffffffffff8111156106d157600080fd5b6020830191508360208285010111156106e957600080fd5b9250929050565b6000806000806000610100868803121561070957600080fd5b6107138787610661565b945061072160808701610679565b93506107308760a08801610695565b925060e086013567ffffffffffffffff81111561074c57600080fd5b610758888289016106a7565b969995985093965092949392505050565b6000815180845260005b8181101561078f57602081850181015186830182015201610773565b506000602082860101526020601f19601f83011685010191505092915050565b6020815260006107c26020830184610769565b9392505050565b6000806000806000808688036101a08112156107e457600080fd5b60a08112156107f257600080fd5b508695506108038860a08901610661565b94506108126101208801610679565b9350610822886101408901610695565b925061018087013567ffffffffffffffff81111561083f57600080fd5b61084b89828a016106a7565b979a9699509497509295939492505050565b60006020828403121561086f57600080fd5b6107c282610679565b60006020828403121561088a57600080fd5b813560ff811681146107c257600080fd5b600060033d11156108b45760046000803e5060005160e01c5b90565b601f8201601f1916810167ffffffffffffffff811182821017156108eb57634e487b7160e01b600052604160045260246000fd5b6040525050565b600060443d10156109005790565b6040513d600319016004823e80513d602482011167ffffffffffffffff8211171561092a57505090565b808201805167ffffffffffffffff811115610946575050505090565b3d8401600319018282016020011115610960575050505090565b61096f602082850101856108b7565b509392505050565b60008060233d1115610993576020600460003e50506000516001905b9091565b81835281816020850137506000828201602090810191909152601f909101601f19169091010190565b6001600160a01b036109d189610679565b168152602088810135818301526040808a0135908301526060808a01359083015287516001600160a01b0316608083015287015160a08201526000610a2160c08301886001600160a01b03169052565b8560e0830152610140610100830152610a3e610140830186610769565b828103610120840152610a52818587610997565b9a995050505050505050505056fe5769746e657373207769746e65737329546f6b656e5065726d697373696f6e73286164647265737320746f6b656e2c75696e7432353620616d6f756e74295769746e657373286164647265737320746f2c75696e743235362076616c6964416674657229a2646970667358221220706b0a9007c0630e9d05f9d9cc556d70bb4866ef141e5fa60059ca7a6a5ce59a64736f6c634300081e0033",
}

// X402ExactPermit2ProxyABI is the input ABI used to generate the binding from.
// Deprecated: Use X402ExactPermit2ProxyMetaData.ABI instead.
var X402ExactPermit2ProxyABI = X402ExactPermit2ProxyMetaData.ABI

// X402ExactPermit2ProxyBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use X402ExactPermit2ProxyMetaData.Bin instead.
var X402ExactPermit2ProxyBin = X402ExactPermit2ProxyMetaData.Bin

// DeployX402ExactPermit2Proxy deploys a new Ethereum contract, binding an instance of X402ExactPermit2Proxy to it.
func DeployX402ExactPermit2Proxy(auth *bind.TransactOpts, backend bind.ContractBackend, permit2 common.Address) (common.Address, *types.Transaction, *X402ExactPermit2Proxy, error) {
	parsed, err := X402ExactPermit2ProxyMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(X402ExactPermit2ProxyBin), backend, permit2)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &X402ExactPermit2Proxy{X402ExactPermit2ProxyCaller: X402ExactPermit2ProxyCaller{contract: contract}, X402ExactPermit2ProxyTransactor: X402ExactPermit2ProxyTransactor{contract: contract}, X402ExactPermit2ProxyFilterer: X402ExactPermit2ProxyFilterer{contract: contract}}, nil
}

// X402ExactPermit2Proxy is an auto generated Go binding around an Ethereum contract.
type X402ExactPermit2Proxy struct {
	X402ExactPermit2ProxyCaller     // Read-only binding to the contract
	X402ExactPermit2ProxyTransactor // Write-only binding to the contract
	X402ExactPermit2ProxyFilterer   // Log filterer for contract events
}

// X402ExactPermit2ProxyCaller is an auto generated read-only Go binding around an Ethereum contract.
type X402ExactPermit2ProxyCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// X402ExactPermit2ProxyTransactor is an auto generated write-only Go binding around an Ethereum contract.
type X402ExactPermit2ProxyTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// X402ExactPermit2ProxyFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type X402ExactPermit2ProxyFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// X402ExactPermit2ProxySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type X402ExactPermit2ProxySession struct {
	Contract     *X402ExactPermit2Proxy // Generic contract binding to set the session for
	CallOpts     bind.CallOpts          // Call options to use throughout this session
	TransactOpts bind.TransactOpts      // Transaction auth options to use throughout this session
}

// X402ExactPermit2ProxyCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type X402ExactPermit2ProxyCallerSession struct {
	Contract *X402ExactPermit2ProxyCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts                // Call options to use throughout this session
}

// X402ExactPermit2ProxyTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type X402ExactPermit2ProxyTransactorSession struct {
	Contract     *X402ExactPermit2ProxyTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts                // Transaction auth options to use throughout this session
}

// X402ExactPermit2ProxyRaw is an auto generated low-level Go binding around an Ethereum contract.
type X402ExactPermit2ProxyRaw struct {
	Contract *X402ExactPermit2Proxy // Generic contract binding to access the raw methods on
}

// X402ExactPermit2ProxyCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type X402ExactPermit2ProxyCallerRaw struct {
	Contract *X402ExactPermit2ProxyCaller // Generic read-only contract binding to access the raw methods on
}

// X402ExactPermit2ProxyTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type X402ExactPermit2ProxyTransactorRaw struct {
	Contract *X402ExactPermit2ProxyTransactor // Generic write-only contract binding to access the raw methods on
}

// NewX402ExactPermit2Proxy creates a new instance of X402ExactPermit2Proxy, bound to a specific deployed contract.
func NewX402ExactPermit2Proxy(address common.Address, backend bind.ContractBackend) (*X402ExactPermit2Proxy, error) {
	contract, err := bindX402ExactPermit2Proxy(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &X402ExactPermit2Proxy{X402ExactPermit2ProxyCaller: X402ExactPermit2ProxyCaller{contract: contract}, X402ExactPermit2ProxyTransactor: X402ExactPermit2ProxyTransactor{contract: contract}, X402ExactPermit2ProxyFilterer: X402ExactPermit2ProxyFilterer{contract: contract}}, nil
}

// NewX402ExactPermit2ProxyCaller creates a new read-only instance of X402ExactPermit2Proxy, bound to a specific deployed contract.
func NewX402ExactPermit2ProxyCaller(address common.Address, caller bind.ContractCaller) (*X402ExactPermit2ProxyCaller, error) {
	contract, err := bindX402ExactPermit2Proxy(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &X402ExactPermit2ProxyCaller{contract: contract}, nil
}

// NewX402ExactPermit2ProxyTransactor creates a new write-only instance of X402ExactPermit2Proxy, bound to a specific deployed contract.
func NewX402ExactPermit2ProxyTransactor(address common.Address, transactor bind.ContractTransactor) (*X402ExactPermit2ProxyTransactor, error) {
	contract, err := bindX402ExactPermit2Proxy(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &X402ExactPermit2ProxyTransactor{contract: contract}, nil
}

// NewX402ExactPermit2ProxyFilterer creates a new log filterer instance of X402ExactPermit2Proxy, bound to a specific deployed contract.
func NewX402ExactPermit2ProxyFilterer(address common.Address, filterer bind.ContractFilterer) (*X402ExactPermit2ProxyFilterer, error) {
	contract, err := bindX402ExactPermit2Proxy(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &X402ExactPermit2ProxyFilterer{contract: contract}, nil
}

// bindX402ExactPermit2Proxy binds a generic wrapper to an already deployed contract.
func bindX402ExactPermit2Proxy(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := X402ExactPermit2ProxyMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _X402ExactPermit2Proxy.Contract.X402ExactPermit2ProxyCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.Contract.X402ExactPermit2ProxyTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.Contract.X402ExactPermit2ProxyTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _X402ExactPermit2Proxy.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.Contract.contract.Transact(opts, method, params...)
}

// PERMIT2 is a free data retrieval call binding the contract method 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyCaller) PERMIT2(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _X402ExactPermit2Proxy.contract.Call(opts, &out, "PERMIT2")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// PERMIT2 is a free data retrieval call binding the contract method 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxySession) PERMIT2() (common.Address, error) {
	return _X402ExactPermit2Proxy.Contract.PERMIT2(&_X402ExactPermit2Proxy.CallOpts)
}

// PERMIT2 is a free data retrieval call binding the contract method 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyCallerSession) PERMIT2() (common.Address, error) {
	return _X402ExactPermit2Proxy.Contract.PERMIT2(&_X402ExactPermit2Proxy.CallOpts)
}

// WITNESSTYPEHASH is a free data retrieval call binding the contract method 0x2c03ae6a.
//
// Solidity: function WITNESS_TYPEHASH() view returns(bytes32)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyCaller) WITNESSTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _X402ExactPermit2Proxy.contract.Call(opts, &out, "WITNESS_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// WITNESSTYPEHASH is a free data retrieval call binding the contract method 0x2c03ae6a.
//
// Solidity: function WITNESS_TYPEHASH() view returns(bytes32)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxySession) WITNESSTYPEHASH() ([32]byte, error) {
	return _X402ExactPermit2Proxy.Contract.WITNESSTYPEHASH(&_X402ExactPermit2Proxy.CallOpts)
}

// WITNESSTYPEHASH is a free data retrieval call binding the contract method 0x2c03ae6a.
//
// Solidity: function WITNESS_TYPEHASH() view returns(bytes32)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyCallerSession) WITNESSTYPEHASH() ([32]byte, error) {
	return _X402ExactPermit2Proxy.Contract.WITNESSTYPEHASH(&_X402ExactPermit2Proxy.CallOpts)
}

// WITNESSTYPESTRING is a free data retrieval call binding the contract method 0x156e2152.
//
// Solidity: function WITNESS_TYPE_STRING() view returns(string)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyCaller) WITNESSTYPESTRING(opts *bind.CallOpts) (string, error) {
	var out []interface{}
	err := _X402ExactPermit2Proxy.contract.Call(opts, &out, "WITNESS_TYPE_STRING")

	if err != nil {
		return *new(string), err
	}

	out0 := *abi.ConvertType(out[0], new(string)).(*string)

	return out0, err

}

// WITNESSTYPESTRING is a free data retrieval call binding the contract method 0x156e2152.
//
// Solidity: function WITNESS_TYPE_STRING() view returns(string)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxySession) WITNESSTYPESTRING() (string, error) {
	return _X402ExactPermit2Proxy.Contract.WITNESSTYPESTRING(&_X402ExactPermit2Proxy.CallOpts)
}

// WITNESSTYPESTRING is a free data retrieval call binding the contract method 0x156e2152.
//
// Solidity: function WITNESS_TYPE_STRING() view returns(string)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyCallerSession) WITNESSTYPESTRING() (string, error) {
	return _X402ExactPermit2Proxy.Contract.WITNESSTYPESTRING(&_X402ExactPermit2Proxy.CallOpts)
}

// Settle is a paid mutator transaction binding the contract method 0x13cd3b53.
//
// Solidity: function settle(((address,uint256),uint256,uint256) permit, address owner, (address,uint256) witness, bytes signature) returns()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyTransactor) Settle(opts *bind.TransactOpts, permit ISignatureTransferPermitTransferFrom, owner common.Address, witness X402ExactPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.contract.Transact(opts, "settle", permit, owner, witness, signature)
}

// Settle is a paid mutator transaction binding the contract method 0x13cd3b53.
//
// Solidity: function settle(((address,uint256),uint256,uint256) permit, address owner, (address,uint256) witness, bytes signature) returns()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxySession) Settle(permit ISignatureTransferPermitTransferFrom, owner common.Address, witness X402ExactPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.Contract.Settle(&_X402ExactPermit2Proxy.TransactOpts, permit, owner, witness, signature)
}

// Settle is a paid mutator transaction binding the contract method 0x13cd3b53.
//
// Solidity: function settle(((address,uint256),uint256,uint256) permit, address owner, (address,uint256) witness, bytes signature) returns()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyTransactorSession) Settle(permit ISignatureTransferPermitTransferFrom, owner common.Address, witness X402ExactPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.Contract.Settle(&_X402ExactPermit2Proxy.TransactOpts, permit, owner, witness, signature)
}

// SettleWithPermit is a paid mutator transaction binding the contract method 0xfa340378.
//
// Solidity: function settleWithPermit((uint256,uint256,bytes32,bytes32,uint8) permit2612, ((address,uint256),uint256,uint256) permit, address owner, (address,uint256) witness, bytes signature) returns()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyTransactor) SettleWithPermit(opts *bind.TransactOpts, permit2612 X402BasePermit2ProxyEIP2612Permit, permit ISignatureTransferPermitTransferFrom, owner common.Address, witness X402ExactPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.contract.Transact(opts, "settleWithPermit", permit2612, permit, owner, witness, signature)
}

// SettleWithPermit is a paid mutator transaction binding the contract method 0xfa340378.
//
// Solidity: function settleWithPermit((uint256,uint256,bytes32,bytes32,uint8) permit2612, ((address,uint256),uint256,uint256) permit, address owner, (address,uint256) witness, bytes signature) returns()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxySession) SettleWithPermit(permit2612 X402BasePermit2ProxyEIP2612Permit, permit ISignatureTransferPermitTransferFrom, owner common.Address, witness X402ExactPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.Contract.SettleWithPermit(&_X402ExactPermit2Proxy.TransactOpts, permit2612, permit, owner, witness, signature)
}

// SettleWithPermit is a paid mutator transaction binding the contract method 0xfa340378.
//
// Solidity: function settleWithPermit((uint256,uint256,bytes32,bytes32,uint8) permit2612, ((address,uint256),uint256,uint256) permit, address owner, (address,uint256) witness, bytes signature) returns()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyTransactorSession) SettleWithPermit(permit2612 X402BasePermit2ProxyEIP2612Permit, permit ISignatureTransferPermitTransferFrom, owner common.Address, witness X402ExactPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402ExactPermit2Proxy.Contract.SettleWithPermit(&_X402ExactPermit2Proxy.TransactOpts, permit2612, permit, owner, witness, signature)
}

// X402ExactPermit2ProxyEIP2612PermitFailedWithDataIterator is returned from FilterEIP2612PermitFailedWithData and is used to iterate over the raw logs and unpacked data for EIP2612PermitFailedWithData events raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxyEIP2612PermitFailedWithDataIterator struct {
	Event *X402ExactPermit2ProxyEIP2612PermitFailedWithData // Event containing the contract specifics and raw log

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
func (it *X402ExactPermit2ProxyEIP2612PermitFailedWithDataIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402ExactPermit2ProxyEIP2612PermitFailedWithData)
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
		it.Event = new(X402ExactPermit2ProxyEIP2612PermitFailedWithData)
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
func (it *X402ExactPermit2ProxyEIP2612PermitFailedWithDataIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402ExactPermit2ProxyEIP2612PermitFailedWithDataIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402ExactPermit2ProxyEIP2612PermitFailedWithData represents a EIP2612PermitFailedWithData event raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxyEIP2612PermitFailedWithData struct {
	Token common.Address
	Owner common.Address
	Data  []byte
	Raw   types.Log // Blockchain specific contextual infos
}

// FilterEIP2612PermitFailedWithData is a free log retrieval operation binding the contract event 0x41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) FilterEIP2612PermitFailedWithData(opts *bind.FilterOpts, token []common.Address, owner []common.Address) (*X402ExactPermit2ProxyEIP2612PermitFailedWithDataIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402ExactPermit2Proxy.contract.FilterLogs(opts, "EIP2612PermitFailedWithData", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &X402ExactPermit2ProxyEIP2612PermitFailedWithDataIterator{contract: _X402ExactPermit2Proxy.contract, event: "EIP2612PermitFailedWithData", logs: logs, sub: sub}, nil
}

// WatchEIP2612PermitFailedWithData is a free log subscription operation binding the contract event 0x41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) WatchEIP2612PermitFailedWithData(opts *bind.WatchOpts, sink chan<- *X402ExactPermit2ProxyEIP2612PermitFailedWithData, token []common.Address, owner []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402ExactPermit2Proxy.contract.WatchLogs(opts, "EIP2612PermitFailedWithData", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402ExactPermit2ProxyEIP2612PermitFailedWithData)
				if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithData", log); err != nil {
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

// ParseEIP2612PermitFailedWithData is a log parse operation binding the contract event 0x41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) ParseEIP2612PermitFailedWithData(log types.Log) (*X402ExactPermit2ProxyEIP2612PermitFailedWithData, error) {
	event := new(X402ExactPermit2ProxyEIP2612PermitFailedWithData)
	if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithData", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402ExactPermit2ProxyEIP2612PermitFailedWithPanicIterator is returned from FilterEIP2612PermitFailedWithPanic and is used to iterate over the raw logs and unpacked data for EIP2612PermitFailedWithPanic events raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxyEIP2612PermitFailedWithPanicIterator struct {
	Event *X402ExactPermit2ProxyEIP2612PermitFailedWithPanic // Event containing the contract specifics and raw log

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
func (it *X402ExactPermit2ProxyEIP2612PermitFailedWithPanicIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402ExactPermit2ProxyEIP2612PermitFailedWithPanic)
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
		it.Event = new(X402ExactPermit2ProxyEIP2612PermitFailedWithPanic)
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
func (it *X402ExactPermit2ProxyEIP2612PermitFailedWithPanicIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402ExactPermit2ProxyEIP2612PermitFailedWithPanicIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402ExactPermit2ProxyEIP2612PermitFailedWithPanic represents a EIP2612PermitFailedWithPanic event raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxyEIP2612PermitFailedWithPanic struct {
	Token     common.Address
	Owner     common.Address
	ErrorCode *big.Int
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterEIP2612PermitFailedWithPanic is a free log retrieval operation binding the contract event 0x278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d197623.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) FilterEIP2612PermitFailedWithPanic(opts *bind.FilterOpts, token []common.Address, owner []common.Address) (*X402ExactPermit2ProxyEIP2612PermitFailedWithPanicIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402ExactPermit2Proxy.contract.FilterLogs(opts, "EIP2612PermitFailedWithPanic", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &X402ExactPermit2ProxyEIP2612PermitFailedWithPanicIterator{contract: _X402ExactPermit2Proxy.contract, event: "EIP2612PermitFailedWithPanic", logs: logs, sub: sub}, nil
}

// WatchEIP2612PermitFailedWithPanic is a free log subscription operation binding the contract event 0x278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d197623.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) WatchEIP2612PermitFailedWithPanic(opts *bind.WatchOpts, sink chan<- *X402ExactPermit2ProxyEIP2612PermitFailedWithPanic, token []common.Address, owner []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402ExactPermit2Proxy.contract.WatchLogs(opts, "EIP2612PermitFailedWithPanic", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402ExactPermit2ProxyEIP2612PermitFailedWithPanic)
				if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithPanic", log); err != nil {
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

// ParseEIP2612PermitFailedWithPanic is a log parse operation binding the contract event 0x278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d197623.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) ParseEIP2612PermitFailedWithPanic(log types.Log) (*X402ExactPermit2ProxyEIP2612PermitFailedWithPanic, error) {
	event := new(X402ExactPermit2ProxyEIP2612PermitFailedWithPanic)
	if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithPanic", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402ExactPermit2ProxyEIP2612PermitFailedWithReasonIterator is returned from FilterEIP2612PermitFailedWithReason and is used to iterate over the raw logs and unpacked data for EIP2612PermitFailedWithReason events raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxyEIP2612PermitFailedWithReasonIterator struct {
	Event *X402ExactPermit2ProxyEIP2612PermitFailedWithReason // Event containing the contract specifics and raw log

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
func (it *X402ExactPermit2ProxyEIP2612PermitFailedWithReasonIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402ExactPermit2ProxyEIP2612PermitFailedWithReason)
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
		it.Event = new(X402ExactPermit2ProxyEIP2612PermitFailedWithReason)
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
func (it *X402ExactPermit2ProxyEIP2612PermitFailedWithReasonIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402ExactPermit2ProxyEIP2612PermitFailedWithReasonIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402ExactPermit2ProxyEIP2612PermitFailedWithReason represents a EIP2612PermitFailedWithReason event raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxyEIP2612PermitFailedWithReason struct {
	Token  common.Address
	Owner  common.Address
	Reason string
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterEIP2612PermitFailedWithReason is a free log retrieval operation binding the contract event 0x0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e7.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) FilterEIP2612PermitFailedWithReason(opts *bind.FilterOpts, token []common.Address, owner []common.Address) (*X402ExactPermit2ProxyEIP2612PermitFailedWithReasonIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402ExactPermit2Proxy.contract.FilterLogs(opts, "EIP2612PermitFailedWithReason", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &X402ExactPermit2ProxyEIP2612PermitFailedWithReasonIterator{contract: _X402ExactPermit2Proxy.contract, event: "EIP2612PermitFailedWithReason", logs: logs, sub: sub}, nil
}

// WatchEIP2612PermitFailedWithReason is a free log subscription operation binding the contract event 0x0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e7.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) WatchEIP2612PermitFailedWithReason(opts *bind.WatchOpts, sink chan<- *X402ExactPermit2ProxyEIP2612PermitFailedWithReason, token []common.Address, owner []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402ExactPermit2Proxy.contract.WatchLogs(opts, "EIP2612PermitFailedWithReason", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402ExactPermit2ProxyEIP2612PermitFailedWithReason)
				if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithReason", log); err != nil {
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

// ParseEIP2612PermitFailedWithReason is a log parse operation binding the contract event 0x0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e7.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) ParseEIP2612PermitFailedWithReason(log types.Log) (*X402ExactPermit2ProxyEIP2612PermitFailedWithReason, error) {
	event := new(X402ExactPermit2ProxyEIP2612PermitFailedWithReason)
	if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithReason", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402ExactPermit2ProxySettledIterator is returned from FilterSettled and is used to iterate over the raw logs and unpacked data for Settled events raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxySettledIterator struct {
	Event *X402ExactPermit2ProxySettled // Event containing the contract specifics and raw log

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
func (it *X402ExactPermit2ProxySettledIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402ExactPermit2ProxySettled)
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
		it.Event = new(X402ExactPermit2ProxySettled)
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
func (it *X402ExactPermit2ProxySettledIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402ExactPermit2ProxySettledIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402ExactPermit2ProxySettled represents a Settled event raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxySettled struct {
	Raw types.Log // Blockchain specific contextual infos
}

// FilterSettled is a free log retrieval operation binding the contract event 0x97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6.
//
// Solidity: event Settled()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) FilterSettled(opts *bind.FilterOpts) (*X402ExactPermit2ProxySettledIterator, error) {

	logs, sub, err := _X402ExactPermit2Proxy.contract.FilterLogs(opts, "Settled")
	if err != nil {
		return nil, err
	}
	return &X402ExactPermit2ProxySettledIterator{contract: _X402ExactPermit2Proxy.contract, event: "Settled", logs: logs, sub: sub}, nil
}

// WatchSettled is a free log subscription operation binding the contract event 0x97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6.
//
// Solidity: event Settled()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) WatchSettled(opts *bind.WatchOpts, sink chan<- *X402ExactPermit2ProxySettled) (event.Subscription, error) {

	logs, sub, err := _X402ExactPermit2Proxy.contract.WatchLogs(opts, "Settled")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402ExactPermit2ProxySettled)
				if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "Settled", log); err != nil {
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

// ParseSettled is a log parse operation binding the contract event 0x97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6.
//
// Solidity: event Settled()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) ParseSettled(log types.Log) (*X402ExactPermit2ProxySettled, error) {
	event := new(X402ExactPermit2ProxySettled)
	if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "Settled", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402ExactPermit2ProxySettledWithPermitIterator is returned from FilterSettledWithPermit and is used to iterate over the raw logs and unpacked data for SettledWithPermit events raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxySettledWithPermitIterator struct {
	Event *X402ExactPermit2ProxySettledWithPermit // Event containing the contract specifics and raw log

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
func (it *X402ExactPermit2ProxySettledWithPermitIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402ExactPermit2ProxySettledWithPermit)
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
		it.Event = new(X402ExactPermit2ProxySettledWithPermit)
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
func (it *X402ExactPermit2ProxySettledWithPermitIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402ExactPermit2ProxySettledWithPermitIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402ExactPermit2ProxySettledWithPermit represents a SettledWithPermit event raised by the X402ExactPermit2Proxy contract.
type X402ExactPermit2ProxySettledWithPermit struct {
	Raw types.Log // Blockchain specific contextual infos
}

// FilterSettledWithPermit is a free log retrieval operation binding the contract event 0xde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8.
//
// Solidity: event SettledWithPermit()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) FilterSettledWithPermit(opts *bind.FilterOpts) (*X402ExactPermit2ProxySettledWithPermitIterator, error) {

	logs, sub, err := _X402ExactPermit2Proxy.contract.FilterLogs(opts, "SettledWithPermit")
	if err != nil {
		return nil, err
	}
	return &X402ExactPermit2ProxySettledWithPermitIterator{contract: _X402ExactPermit2Proxy.contract, event: "SettledWithPermit", logs: logs, sub: sub}, nil
}

// WatchSettledWithPermit is a free log subscription operation binding the contract event 0xde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8.
//
// Solidity: event SettledWithPermit()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) WatchSettledWithPermit(opts *bind.WatchOpts, sink chan<- *X402ExactPermit2ProxySettledWithPermit) (event.Subscription, error) {

	logs, sub, err := _X402ExactPermit2Proxy.contract.WatchLogs(opts, "SettledWithPermit")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402ExactPermit2ProxySettledWithPermit)
				if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "SettledWithPermit", log); err != nil {
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

// ParseSettledWithPermit is a log parse operation binding the contract event 0xde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8.
//
// Solidity: event SettledWithPermit()
func (_X402ExactPermit2Proxy *X402ExactPermit2ProxyFilterer) ParseSettledWithPermit(log types.Log) (*X402ExactPermit2ProxySettledWithPermit, error) {
	event := new(X402ExactPermit2ProxySettledWithPermit)
	if err := _X402ExactPermit2Proxy.contract.UnpackLog(event, "SettledWithPermit", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402UptoPermit2ProxyMetaData contains all meta data concerning the X402UptoPermit2Proxy contract.
var X402UptoPermit2ProxyMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"permit2\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"AmountExceedsPermitted\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidDestination\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidPermit2Address\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"PaymentTooEarly\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"Permit2612AmountMismatch\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReentrancyGuardReentrantCall\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"UnauthorizedFacilitator\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"EIP2612PermitFailedWithData\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"errorCode\",\"type\":\"uint256\"}],\"name\":\"EIP2612PermitFailedWithPanic\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"EIP2612PermitFailedWithReason\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"Settled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"SettledWithPermit\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"PERMIT2\",\"outputs\":[{\"internalType\":\"contractISignatureTransfer\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"WITNESS_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"WITNESS_TYPE_STRING\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"facilitator\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"}],\"internalType\":\"structx402UptoPermit2Proxy.Witness\",\"name\":\"witness\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"settle\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"r\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"v\",\"type\":\"uint8\"}],\"internalType\":\"structx402BasePermit2Proxy.EIP2612Permit\",\"name\":\"permit2612\",\"type\":\"tuple\"},{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"facilitator\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"}],\"internalType\":\"structx402UptoPermit2Proxy.Witness\",\"name\":\"witness\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"settleWithPermit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x60a060405234801561001057600080fd5b50604051610c82380380610c8283398101604081905261002f9161006e565b806001600160a01b038116610057576040516359106c8960e01b815260040160405180910390fd5b6001600160a01b031660805250600160005561009e565b60006020828403121561008057600080fd5b81516001600160a01b038116811461009757600080fd5b9392505050565b608051610bbc6100c66000396000818160c9015281816102db015261064a0152610bbc6000f3fe608060405234801561001057600080fd5b50600436106100575760003560e01c8063016c17481461005c578063156e2152146100715780632c03ae6a1461008f5780636afdd850146100c4578063ff11e7b414610103575b600080fd5b61006f61006a366004610789565b610116565b005b6100796101aa565b604051610086919061086e565b60405180910390f35b6100b67fd4171c445a74218b01d4fd8af34ff1106580ea1e36ff837e64484bfaa2253b7581565b604051908152602001610086565b6100eb7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610086565b61006f610111366004610888565b6101c6565b60005460020361013957604051633ee5aeb560e01b815260040160405180910390fd5b600260005561014986868561023d565b610165610159602088018861090b565b858960208a01356102a8565b6101738686868686866104eb565b6040517fde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d890600090a1505060016000555050505050565b6040518060a0016040528060788152602001610b0f6078913981565b6000546002036101e957604051633ee5aeb560e01b815260040160405180910390fd5b60026000556101f986868561023d565b6102078686868686866104eb565b6040517f97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b690600090a15050600160005550505050565b60208301358211156102625760405163fe64b4c760e01b815260040160405180910390fd5b610272604082016020830161090b565b6001600160a01b0316336001600160a01b0316146102a357604051630f6fae8760e01b815260040160405180910390fd5b505050565b813581146102c95760405163050cda4960e01b815260040160405180910390fd5b6001600160a01b03841663d505accf847f00000000000000000000000000000000000000000000000000000000000000008535602087013561031160a0890160808a01610926565b604080516001600160e01b031960e089901b1681526001600160a01b0396871660048201529590941660248601526044850192909252606484015260ff16608483015285013560a4820152606085013560c482015260e401600060405180830381600087803b15801561038357600080fd5b505af1925050508015610394575060015b6104e5576103a0610949565b806308c379a00361041057506103b46109a0565b806103bf5750610472565b836001600160a01b0316856001600160a01b03167f0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e783604051610402919061086e565b60405180910390a3506104e5565b634e487b710361047257610422610a25565b9061042d5750610472565b836001600160a01b0316856001600160a01b03167f278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d1976238360405161040291815260200190565b3d80801561049c576040519150601f19603f3d011682016040523d82523d6000602084013e6104a1565b606091505b50836001600160a01b0316856001600160a01b03167f41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe83604051610402919061086e565b50505050565b60007fd4171c445a74218b01d4fd8af34ff1106580ea1e36ff837e64484bfaa2253b7561051b602086018661090b565b61052b604087016020880161090b565b6040805160208101949094526001600160a01b039283168482015291166060830152850135608082015260a0016040516020818303038152906040528051906020012090506105af878787876000016020810190610589919061090b565b8860400135866040518060a0016040528060788152602001610b0f607891398a8a6105b8565b50505050505050565b876000036105d95760405163162908e360e11b815260040160405180910390fd5b6001600160a01b038716610600576040516349e27cff60e01b815260040160405180910390fd5b6001600160a01b0386166106275760405163ac6b05f560e01b815260040160405180910390fd5b844210156106485760405163532a9cfd60e11b815260040160405180910390fd5b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031663137c29fe8a60405180604001604052808a6001600160a01b031681526020018c8152508a888888886040518863ffffffff1660e01b81526004016106bd9796959493929190610a6e565b600060405180830381600087803b1580156106d757600080fd5b505af11580156106eb573d6000803e3d6000fd5b50505050505050505050505050565b60006080828403121561070c57600080fd5b50919050565b80356001600160a01b038116811461072957600080fd5b919050565b60006060828403121561070c57600080fd5b60008083601f84011261075257600080fd5b50813567ffffffffffffffff81111561076a57600080fd5b60208301915083602082850101111561078257600080fd5b9250929050565b60008060008060008060008789036101e08112156107a657600080fd5b60a08112156107b457600080fd5b508796506107c58960a08a016106fa565b955061012088013594506107dc6101408901610712565b93506107ec896101608a0161072e565b92506101c088013567ffffffffffffffff81111561080957600080fd5b6108158a828b01610740565b989b979a50959850939692959293505050565b6000815180845260005b8181101561084e57602081850181015186830182015201610832565b506000602082860101526020601f19601f83011685010191505092915050565b6020815260006108816020830184610828565b9392505050565b60008060008060008061014087890312156108a257600080fd5b6108ac88886106fa565b9550608087013594506108c160a08801610712565b93506108d08860c0890161072e565b925061012087013567ffffffffffffffff8111156108ed57600080fd5b6108f989828a01610740565b979a9699509497509295939492505050565b60006020828403121561091d57600080fd5b61088182610712565b60006020828403121561093857600080fd5b813560ff8116811461088157600080fd5b600060033d11156109625760046000803e5060005160e01c5b90565b601f8201601f1916810167ffffffffffffffff8111828210171561099957634e487b7160e01b600052604160045260246000fd5b6040525050565b600060443d10156109ae5790565b6040513d600319016004823e80513d602482011167ffffffffffffffff821117156109d857505090565b808201805167ffffffffffffffff8111156109f4575050505090565b3d8401600319018282016020011115610a0e575050505090565b610a1d60208285010185610965565b509392505050565b60008060233d1115610a41576020600460003e50506000516001905b9091565b81835281816020850137506000828201602090810191909152601f909101601f19169091010190565b6001600160a01b03610a7f89610712565b168152602088810135818301526040808a0135908301526060808a01359083015287516001600160a01b0316608083015287015160a08201526000610acf60c08301886001600160a01b03169052565b8560e0830152610140610100830152610aec610140830186610828565b828103610120840152610b00818587610a45565b9a995050505050505050505056fe5769746e657373207769746e65737329546f6b656e5065726d697373696f6e73286164647265737320746f6b656e2c75696e7432353620616d6f756e74295769746e657373286164647265737320746f2c6164647265737320666163696c697461746f722c75696e743235362076616c6964416674657229a26469706673582212205bcd0adca98e171a7b91f44efe03d8c0d42f289c0084be4d79f246293c4c516f64736f6c634300081e0033",
}

// X402UptoPermit2ProxyABI is the input ABI used to generate the binding from.
// Deprecated: Use X402UptoPermit2ProxyMetaData.ABI instead.
var X402UptoPermit2ProxyABI = X402UptoPermit2ProxyMetaData.ABI

// X402UptoPermit2ProxyBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use X402UptoPermit2ProxyMetaData.Bin instead.
var X402UptoPermit2ProxyBin = X402UptoPermit2ProxyMetaData.Bin

// DeployX402UptoPermit2Proxy deploys a new Ethereum contract, binding an instance of X402UptoPermit2Proxy to it.
func DeployX402UptoPermit2Proxy(auth *bind.TransactOpts, backend bind.ContractBackend, permit2 common.Address) (common.Address, *types.Transaction, *X402UptoPermit2Proxy, error) {
	parsed, err := X402UptoPermit2ProxyMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(X402UptoPermit2ProxyBin), backend, permit2)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &X402UptoPermit2Proxy{X402UptoPermit2ProxyCaller: X402UptoPermit2ProxyCaller{contract: contract}, X402UptoPermit2ProxyTransactor: X402UptoPermit2ProxyTransactor{contract: contract}, X402UptoPermit2ProxyFilterer: X402UptoPermit2ProxyFilterer{contract: contract}}, nil
}

// X402UptoPermit2Proxy is an auto generated Go binding around an Ethereum contract.
type X402UptoPermit2Proxy struct {
	X402UptoPermit2ProxyCaller     // Read-only binding to the contract
	X402UptoPermit2ProxyTransactor // Write-only binding to the contract
	X402UptoPermit2ProxyFilterer   // Log filterer for contract events
}

// X402UptoPermit2ProxyCaller is an auto generated read-only Go binding around an Ethereum contract.
type X402UptoPermit2ProxyCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// X402UptoPermit2ProxyTransactor is an auto generated write-only Go binding around an Ethereum contract.
type X402UptoPermit2ProxyTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// X402UptoPermit2ProxyFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type X402UptoPermit2ProxyFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// X402UptoPermit2ProxySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type X402UptoPermit2ProxySession struct {
	Contract     *X402UptoPermit2Proxy // Generic contract binding to set the session for
	CallOpts     bind.CallOpts         // Call options to use throughout this session
	TransactOpts bind.TransactOpts     // Transaction auth options to use throughout this session
}

// X402UptoPermit2ProxyCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type X402UptoPermit2ProxyCallerSession struct {
	Contract *X402UptoPermit2ProxyCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts               // Call options to use throughout this session
}

// X402UptoPermit2ProxyTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type X402UptoPermit2ProxyTransactorSession struct {
	Contract     *X402UptoPermit2ProxyTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts               // Transaction auth options to use throughout this session
}

// X402UptoPermit2ProxyRaw is an auto generated low-level Go binding around an Ethereum contract.
type X402UptoPermit2ProxyRaw struct {
	Contract *X402UptoPermit2Proxy // Generic contract binding to access the raw methods on
}

// X402UptoPermit2ProxyCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type X402UptoPermit2ProxyCallerRaw struct {
	Contract *X402UptoPermit2ProxyCaller // Generic read-only contract binding to access the raw methods on
}

// X402UptoPermit2ProxyTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type X402UptoPermit2ProxyTransactorRaw struct {
	Contract *X402UptoPermit2ProxyTransactor // Generic write-only contract binding to access the raw methods on
}

// NewX402UptoPermit2Proxy creates a new instance of X402UptoPermit2Proxy, bound to a specific deployed contract.
func NewX402UptoPermit2Proxy(address common.Address, backend bind.ContractBackend) (*X402UptoPermit2Proxy, error) {
	contract, err := bindX402UptoPermit2Proxy(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &X402UptoPermit2Proxy{X402UptoPermit2ProxyCaller: X402UptoPermit2ProxyCaller{contract: contract}, X402UptoPermit2ProxyTransactor: X402UptoPermit2ProxyTransactor{contract: contract}, X402UptoPermit2ProxyFilterer: X402UptoPermit2ProxyFilterer{contract: contract}}, nil
}

// NewX402UptoPermit2ProxyCaller creates a new read-only instance of X402UptoPermit2Proxy, bound to a specific deployed contract.
func NewX402UptoPermit2ProxyCaller(address common.Address, caller bind.ContractCaller) (*X402UptoPermit2ProxyCaller, error) {
	contract, err := bindX402UptoPermit2Proxy(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &X402UptoPermit2ProxyCaller{contract: contract}, nil
}

// NewX402UptoPermit2ProxyTransactor creates a new write-only instance of X402UptoPermit2Proxy, bound to a specific deployed contract.
func NewX402UptoPermit2ProxyTransactor(address common.Address, transactor bind.ContractTransactor) (*X402UptoPermit2ProxyTransactor, error) {
	contract, err := bindX402UptoPermit2Proxy(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &X402UptoPermit2ProxyTransactor{contract: contract}, nil
}

// NewX402UptoPermit2ProxyFilterer creates a new log filterer instance of X402UptoPermit2Proxy, bound to a specific deployed contract.
func NewX402UptoPermit2ProxyFilterer(address common.Address, filterer bind.ContractFilterer) (*X402UptoPermit2ProxyFilterer, error) {
	contract, err := bindX402UptoPermit2Proxy(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &X402UptoPermit2ProxyFilterer{contract: contract}, nil
}

// bindX402UptoPermit2Proxy binds a generic wrapper to an already deployed contract.
func bindX402UptoPermit2Proxy(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := X402UptoPermit2ProxyMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _X402UptoPermit2Proxy.Contract.X402UptoPermit2ProxyCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.Contract.X402UptoPermit2ProxyTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.Contract.X402UptoPermit2ProxyTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _X402UptoPermit2Proxy.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.Contract.contract.Transact(opts, method, params...)
}

// PERMIT2 is a free data retrieval call binding the contract method 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyCaller) PERMIT2(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _X402UptoPermit2Proxy.contract.Call(opts, &out, "PERMIT2")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// PERMIT2 is a free data retrieval call binding the contract method 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxySession) PERMIT2() (common.Address, error) {
	return _X402UptoPermit2Proxy.Contract.PERMIT2(&_X402UptoPermit2Proxy.CallOpts)
}

// PERMIT2 is a free data retrieval call binding the contract method 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyCallerSession) PERMIT2() (common.Address, error) {
	return _X402UptoPermit2Proxy.Contract.PERMIT2(&_X402UptoPermit2Proxy.CallOpts)
}

// WITNESSTYPEHASH is a free data retrieval call binding the contract method 0x2c03ae6a.
//
// Solidity: function WITNESS_TYPEHASH() view returns(bytes32)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyCaller) WITNESSTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _X402UptoPermit2Proxy.contract.Call(opts, &out, "WITNESS_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// WITNESSTYPEHASH is a free data retrieval call binding the contract method 0x2c03ae6a.
//
// Solidity: function WITNESS_TYPEHASH() view returns(bytes32)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxySession) WITNESSTYPEHASH() ([32]byte, error) {
	return _X402UptoPermit2Proxy.Contract.WITNESSTYPEHASH(&_X402UptoPermit2Proxy.CallOpts)
}

// WITNESSTYPEHASH is a free data retrieval call binding the contract method 0x2c03ae6a.
//
// Solidity: function WITNESS_TYPEHASH() view returns(bytes32)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyCallerSession) WITNESSTYPEHASH() ([32]byte, error) {
	return _X402UptoPermit2Proxy.Contract.WITNESSTYPEHASH(&_X402UptoPermit2Proxy.CallOpts)
}

// WITNESSTYPESTRING is a free data retrieval call binding the contract method 0x156e2152.
//
// Solidity: function WITNESS_TYPE_STRING() view returns(string)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyCaller) WITNESSTYPESTRING(opts *bind.CallOpts) (string, error) {
	var out []interface{}
	err := _X402UptoPermit2Proxy.contract.Call(opts, &out, "WITNESS_TYPE_STRING")

	if err != nil {
		return *new(string), err
	}

	out0 := *abi.ConvertType(out[0], new(string)).(*string)

	return out0, err

}

// WITNESSTYPESTRING is a free data retrieval call binding the contract method 0x156e2152.
//
// Solidity: function WITNESS_TYPE_STRING() view returns(string)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxySession) WITNESSTYPESTRING() (string, error) {
	return _X402UptoPermit2Proxy.Contract.WITNESSTYPESTRING(&_X402UptoPermit2Proxy.CallOpts)
}

// WITNESSTYPESTRING is a free data retrieval call binding the contract method 0x156e2152.
//
// Solidity: function WITNESS_TYPE_STRING() view returns(string)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyCallerSession) WITNESSTYPESTRING() (string, error) {
	return _X402UptoPermit2Proxy.Contract.WITNESSTYPESTRING(&_X402UptoPermit2Proxy.CallOpts)
}

// Settle is a paid mutator transaction binding the contract method 0xff11e7b4.
//
// Solidity: function settle(((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyTransactor) Settle(opts *bind.TransactOpts, permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.contract.Transact(opts, "settle", permit, amount, owner, witness, signature)
}

// Settle is a paid mutator transaction binding the contract method 0xff11e7b4.
//
// Solidity: function settle(((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxySession) Settle(permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.Contract.Settle(&_X402UptoPermit2Proxy.TransactOpts, permit, amount, owner, witness, signature)
}

// Settle is a paid mutator transaction binding the contract method 0xff11e7b4.
//
// Solidity: function settle(((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyTransactorSession) Settle(permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.Contract.Settle(&_X402UptoPermit2Proxy.TransactOpts, permit, amount, owner, witness, signature)
}

// SettleWithPermit is a paid mutator transaction binding the contract method 0x016c1748.
//
// Solidity: function settleWithPermit((uint256,uint256,bytes32,bytes32,uint8) permit2612, ((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyTransactor) SettleWithPermit(opts *bind.TransactOpts, permit2612 X402BasePermit2ProxyEIP2612Permit, permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.contract.Transact(opts, "settleWithPermit", permit2612, permit, amount, owner, witness, signature)
}

// SettleWithPermit is a paid mutator transaction binding the contract method 0x016c1748.
//
// Solidity: function settleWithPermit((uint256,uint256,bytes32,bytes32,uint8) permit2612, ((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxySession) SettleWithPermit(permit2612 X402BasePermit2ProxyEIP2612Permit, permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.Contract.SettleWithPermit(&_X402UptoPermit2Proxy.TransactOpts, permit2612, permit, amount, owner, witness, signature)
}

// SettleWithPermit is a paid mutator transaction binding the contract method 0x016c1748.
//
// Solidity: function settleWithPermit((uint256,uint256,bytes32,bytes32,uint8) permit2612, ((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyTransactorSession) SettleWithPermit(permit2612 X402BasePermit2ProxyEIP2612Permit, permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) (*types.Transaction, error) {
	return _X402UptoPermit2Proxy.Contract.SettleWithPermit(&_X402UptoPermit2Proxy.TransactOpts, permit2612, permit, amount, owner, witness, signature)
}

// X402UptoPermit2ProxyEIP2612PermitFailedWithDataIterator is returned from FilterEIP2612PermitFailedWithData and is used to iterate over the raw logs and unpacked data for EIP2612PermitFailedWithData events raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxyEIP2612PermitFailedWithDataIterator struct {
	Event *X402UptoPermit2ProxyEIP2612PermitFailedWithData // Event containing the contract specifics and raw log

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
func (it *X402UptoPermit2ProxyEIP2612PermitFailedWithDataIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402UptoPermit2ProxyEIP2612PermitFailedWithData)
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
		it.Event = new(X402UptoPermit2ProxyEIP2612PermitFailedWithData)
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
func (it *X402UptoPermit2ProxyEIP2612PermitFailedWithDataIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402UptoPermit2ProxyEIP2612PermitFailedWithDataIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402UptoPermit2ProxyEIP2612PermitFailedWithData represents a EIP2612PermitFailedWithData event raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxyEIP2612PermitFailedWithData struct {
	Token common.Address
	Owner common.Address
	Data  []byte
	Raw   types.Log // Blockchain specific contextual infos
}

// FilterEIP2612PermitFailedWithData is a free log retrieval operation binding the contract event 0x41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) FilterEIP2612PermitFailedWithData(opts *bind.FilterOpts, token []common.Address, owner []common.Address) (*X402UptoPermit2ProxyEIP2612PermitFailedWithDataIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402UptoPermit2Proxy.contract.FilterLogs(opts, "EIP2612PermitFailedWithData", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &X402UptoPermit2ProxyEIP2612PermitFailedWithDataIterator{contract: _X402UptoPermit2Proxy.contract, event: "EIP2612PermitFailedWithData", logs: logs, sub: sub}, nil
}

// WatchEIP2612PermitFailedWithData is a free log subscription operation binding the contract event 0x41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) WatchEIP2612PermitFailedWithData(opts *bind.WatchOpts, sink chan<- *X402UptoPermit2ProxyEIP2612PermitFailedWithData, token []common.Address, owner []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402UptoPermit2Proxy.contract.WatchLogs(opts, "EIP2612PermitFailedWithData", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402UptoPermit2ProxyEIP2612PermitFailedWithData)
				if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithData", log); err != nil {
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

// ParseEIP2612PermitFailedWithData is a log parse operation binding the contract event 0x41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) ParseEIP2612PermitFailedWithData(log types.Log) (*X402UptoPermit2ProxyEIP2612PermitFailedWithData, error) {
	event := new(X402UptoPermit2ProxyEIP2612PermitFailedWithData)
	if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithData", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402UptoPermit2ProxyEIP2612PermitFailedWithPanicIterator is returned from FilterEIP2612PermitFailedWithPanic and is used to iterate over the raw logs and unpacked data for EIP2612PermitFailedWithPanic events raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxyEIP2612PermitFailedWithPanicIterator struct {
	Event *X402UptoPermit2ProxyEIP2612PermitFailedWithPanic // Event containing the contract specifics and raw log

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
func (it *X402UptoPermit2ProxyEIP2612PermitFailedWithPanicIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402UptoPermit2ProxyEIP2612PermitFailedWithPanic)
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
		it.Event = new(X402UptoPermit2ProxyEIP2612PermitFailedWithPanic)
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
func (it *X402UptoPermit2ProxyEIP2612PermitFailedWithPanicIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402UptoPermit2ProxyEIP2612PermitFailedWithPanicIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402UptoPermit2ProxyEIP2612PermitFailedWithPanic represents a EIP2612PermitFailedWithPanic event raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxyEIP2612PermitFailedWithPanic struct {
	Token     common.Address
	Owner     common.Address
	ErrorCode *big.Int
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterEIP2612PermitFailedWithPanic is a free log retrieval operation binding the contract event 0x278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d197623.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) FilterEIP2612PermitFailedWithPanic(opts *bind.FilterOpts, token []common.Address, owner []common.Address) (*X402UptoPermit2ProxyEIP2612PermitFailedWithPanicIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402UptoPermit2Proxy.contract.FilterLogs(opts, "EIP2612PermitFailedWithPanic", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &X402UptoPermit2ProxyEIP2612PermitFailedWithPanicIterator{contract: _X402UptoPermit2Proxy.contract, event: "EIP2612PermitFailedWithPanic", logs: logs, sub: sub}, nil
}

// WatchEIP2612PermitFailedWithPanic is a free log subscription operation binding the contract event 0x278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d197623.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) WatchEIP2612PermitFailedWithPanic(opts *bind.WatchOpts, sink chan<- *X402UptoPermit2ProxyEIP2612PermitFailedWithPanic, token []common.Address, owner []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402UptoPermit2Proxy.contract.WatchLogs(opts, "EIP2612PermitFailedWithPanic", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402UptoPermit2ProxyEIP2612PermitFailedWithPanic)
				if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithPanic", log); err != nil {
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

// ParseEIP2612PermitFailedWithPanic is a log parse operation binding the contract event 0x278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d197623.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) ParseEIP2612PermitFailedWithPanic(log types.Log) (*X402UptoPermit2ProxyEIP2612PermitFailedWithPanic, error) {
	event := new(X402UptoPermit2ProxyEIP2612PermitFailedWithPanic)
	if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithPanic", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402UptoPermit2ProxyEIP2612PermitFailedWithReasonIterator is returned from FilterEIP2612PermitFailedWithReason and is used to iterate over the raw logs and unpacked data for EIP2612PermitFailedWithReason events raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxyEIP2612PermitFailedWithReasonIterator struct {
	Event *X402UptoPermit2ProxyEIP2612PermitFailedWithReason // Event containing the contract specifics and raw log

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
func (it *X402UptoPermit2ProxyEIP2612PermitFailedWithReasonIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402UptoPermit2ProxyEIP2612PermitFailedWithReason)
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
		it.Event = new(X402UptoPermit2ProxyEIP2612PermitFailedWithReason)
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
func (it *X402UptoPermit2ProxyEIP2612PermitFailedWithReasonIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402UptoPermit2ProxyEIP2612PermitFailedWithReasonIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402UptoPermit2ProxyEIP2612PermitFailedWithReason represents a EIP2612PermitFailedWithReason event raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxyEIP2612PermitFailedWithReason struct {
	Token  common.Address
	Owner  common.Address
	Reason string
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterEIP2612PermitFailedWithReason is a free log retrieval operation binding the contract event 0x0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e7.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) FilterEIP2612PermitFailedWithReason(opts *bind.FilterOpts, token []common.Address, owner []common.Address) (*X402UptoPermit2ProxyEIP2612PermitFailedWithReasonIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402UptoPermit2Proxy.contract.FilterLogs(opts, "EIP2612PermitFailedWithReason", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &X402UptoPermit2ProxyEIP2612PermitFailedWithReasonIterator{contract: _X402UptoPermit2Proxy.contract, event: "EIP2612PermitFailedWithReason", logs: logs, sub: sub}, nil
}

// WatchEIP2612PermitFailedWithReason is a free log subscription operation binding the contract event 0x0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e7.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) WatchEIP2612PermitFailedWithReason(opts *bind.WatchOpts, sink chan<- *X402UptoPermit2ProxyEIP2612PermitFailedWithReason, token []common.Address, owner []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _X402UptoPermit2Proxy.contract.WatchLogs(opts, "EIP2612PermitFailedWithReason", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402UptoPermit2ProxyEIP2612PermitFailedWithReason)
				if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithReason", log); err != nil {
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

// ParseEIP2612PermitFailedWithReason is a log parse operation binding the contract event 0x0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e7.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) ParseEIP2612PermitFailedWithReason(log types.Log) (*X402UptoPermit2ProxyEIP2612PermitFailedWithReason, error) {
	event := new(X402UptoPermit2ProxyEIP2612PermitFailedWithReason)
	if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "EIP2612PermitFailedWithReason", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402UptoPermit2ProxySettledIterator is returned from FilterSettled and is used to iterate over the raw logs and unpacked data for Settled events raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxySettledIterator struct {
	Event *X402UptoPermit2ProxySettled // Event containing the contract specifics and raw log

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
func (it *X402UptoPermit2ProxySettledIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402UptoPermit2ProxySettled)
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
		it.Event = new(X402UptoPermit2ProxySettled)
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
func (it *X402UptoPermit2ProxySettledIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402UptoPermit2ProxySettledIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402UptoPermit2ProxySettled represents a Settled event raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxySettled struct {
	Raw types.Log // Blockchain specific contextual infos
}

// FilterSettled is a free log retrieval operation binding the contract event 0x97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6.
//
// Solidity: event Settled()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) FilterSettled(opts *bind.FilterOpts) (*X402UptoPermit2ProxySettledIterator, error) {

	logs, sub, err := _X402UptoPermit2Proxy.contract.FilterLogs(opts, "Settled")
	if err != nil {
		return nil, err
	}
	return &X402UptoPermit2ProxySettledIterator{contract: _X402UptoPermit2Proxy.contract, event: "Settled", logs: logs, sub: sub}, nil
}

// WatchSettled is a free log subscription operation binding the contract event 0x97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6.
//
// Solidity: event Settled()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) WatchSettled(opts *bind.WatchOpts, sink chan<- *X402UptoPermit2ProxySettled) (event.Subscription, error) {

	logs, sub, err := _X402UptoPermit2Proxy.contract.WatchLogs(opts, "Settled")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402UptoPermit2ProxySettled)
				if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "Settled", log); err != nil {
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

// ParseSettled is a log parse operation binding the contract event 0x97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6.
//
// Solidity: event Settled()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) ParseSettled(log types.Log) (*X402UptoPermit2ProxySettled, error) {
	event := new(X402UptoPermit2ProxySettled)
	if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "Settled", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402UptoPermit2ProxySettledWithPermitIterator is returned from FilterSettledWithPermit and is used to iterate over the raw logs and unpacked data for SettledWithPermit events raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxySettledWithPermitIterator struct {
	Event *X402UptoPermit2ProxySettledWithPermit // Event containing the contract specifics and raw log

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
func (it *X402UptoPermit2ProxySettledWithPermitIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402UptoPermit2ProxySettledWithPermit)
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
		it.Event = new(X402UptoPermit2ProxySettledWithPermit)
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
func (it *X402UptoPermit2ProxySettledWithPermitIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402UptoPermit2ProxySettledWithPermitIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402UptoPermit2ProxySettledWithPermit represents a SettledWithPermit event raised by the X402UptoPermit2Proxy contract.
type X402UptoPermit2ProxySettledWithPermit struct {
	Raw types.Log // Blockchain specific contextual infos
}

// FilterSettledWithPermit is a free log retrieval operation binding the contract event 0xde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8.
//
// Solidity: event SettledWithPermit()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) FilterSettledWithPermit(opts *bind.FilterOpts) (*X402UptoPermit2ProxySettledWithPermitIterator, error) {

	logs, sub, err := _X402UptoPermit2Proxy.contract.FilterLogs(opts, "SettledWithPermit")
	if err != nil {
		return nil, err
	}
	return &X402UptoPermit2ProxySettledWithPermitIterator{contract: _X402UptoPermit2Proxy.contract, event: "SettledWithPermit", logs: logs, sub: sub}, nil
}

// WatchSettledWithPermit is a free log subscription operation binding the contract event 0xde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8.
//
// Solidity: event SettledWithPermit()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) WatchSettledWithPermit(opts *bind.WatchOpts, sink chan<- *X402UptoPermit2ProxySettledWithPermit) (event.Subscription, error) {

	logs, sub, err := _X402UptoPermit2Proxy.contract.WatchLogs(opts, "SettledWithPermit")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402UptoPermit2ProxySettledWithPermit)
				if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "SettledWithPermit", log); err != nil {
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

// ParseSettledWithPermit is a log parse operation binding the contract event 0xde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8.
//
// Solidity: event SettledWithPermit()
func (_X402UptoPermit2Proxy *X402UptoPermit2ProxyFilterer) ParseSettledWithPermit(log types.Log) (*X402UptoPermit2ProxySettledWithPermit, error) {
	event := new(X402UptoPermit2ProxySettledWithPermit)
	if err := _X402UptoPermit2Proxy.contract.UnpackLog(event, "SettledWithPermit", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
