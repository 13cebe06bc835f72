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

// LyingWalletMetaData contains all meta data concerning the LyingWallet contract.
var LyingWalletMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"isValidSignature\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x608060405234801561001057600080fd5b506040516103d03803806103d083398101604081905261002f916100bd565b6001600160a01b0381166100985760405162461bcd60e51b815260206004820152602660248201527f4c79696e6757616c6c65743a206f776e657220697320746865207a65726f206160448201526564647265737360d01b606482015260840160405180910390fd5b600080546001600160a01b0319166001600160a01b03929092169190911790556100ed565b6000602082840312156100cf57600080fd5b81516001600160a01b03811681146100e657600080fd5b9392505050565b6102d4806100fc6000396000f3fe608060405234801561001057600080fd5b50600436106100365760003560e01c80631626ba7e1461003b5780638da5cb5b1461006c575b600080fd5b61004e6100493660046101c1565b610097565b6040516001600160e01b031990911681526020015b60405180910390f35b60005461007f906001600160a01b031681565b6040516001600160a01b039091168152602001610063565b60003a1515806100a8575060418214155b156100bc57506001600160e01b03196101ba565b60006100cb602082858761023f565b6100d491610269565b905060006100e660406020868861023f565b6100ef91610269565b905060008585604081811061010657610106610288565b604080516000808252602082018084528d9052949092013560f81c908201819052606082018790526080820186905293506001915060a0016020604051602081039080840390855afa158015610160573d6000803e3d6000fd5b5050604051601f1901519150506001600160a01b038116158061019157506000546001600160a01b03828116911614155b156101ab57506001600160e01b031993506101ba92505050565b50630b135d3f60e11b93505050505b9392505050565b6000806000604084860312156101d657600080fd5b83359250602084013567ffffffffffffffff8111156101f457600080fd5b8401601f8101861361020557600080fd5b803567ffffffffffffffff81111561021c57600080fd5b86602082840101111561022e57600080fd5b939660209190910195509293505050565b6000808585111561024f57600080fd5b8386111561025c57600080fd5b5050820193919092039150565b8035602083101561028257600019602084900360031b1b165b92915050565b634e487b7160e01b600052603260045260246000fdfea264697066735822122087470a3fcbdef7bb0b44b986ea2b7e338487dd2bb039de39ec1b1259bd1f8b3964736f6c634300081e0033",
}

// LyingWalletABI is the input ABI used to generate the binding from.
// Deprecated: Use LyingWalletMetaData.ABI instead.
var LyingWalletABI = LyingWalletMetaData.ABI

// LyingWalletBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use LyingWalletMetaData.Bin instead.
var LyingWalletBin = LyingWalletMetaData.Bin

// DeployLyingWallet deploys a new Ethereum contract, binding an instance of LyingWallet to it.
func DeployLyingWallet(auth *bind.TransactOpts, backend bind.ContractBackend, owner_ common.Address) (common.Address, *types.Transaction, *LyingWallet, error) {
	parsed, err := LyingWalletMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(LyingWalletBin), backend, owner_)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &LyingWallet{LyingWalletCaller: LyingWalletCaller{contract: contract}, LyingWalletTransactor: LyingWalletTransactor{contract: contract}, LyingWalletFilterer: LyingWalletFilterer{contract: contract}}, nil
}

// LyingWallet is an auto generated Go binding around an Ethereum contract.
type LyingWallet struct {
	LyingWalletCaller     // Read-only binding to the contract
	LyingWalletTransactor // Write-only binding to the contract
	LyingWalletFilterer   // Log filterer for contract events
}

// LyingWalletCaller is an auto generated read-only Go binding around an Ethereum contract.
type LyingWalletCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// LyingWalletTransactor is an auto generated write-only Go binding around an Ethereum contract.
type LyingWalletTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// LyingWalletFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type LyingWalletFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// LyingWalletSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type LyingWalletSession struct {
	Contract     *LyingWallet      // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// LyingWalletCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type LyingWalletCallerSession struct {
	Contract *LyingWalletCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts      // Call options to use throughout this session
}

// LyingWalletTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type LyingWalletTransactorSession struct {
	Contract     *LyingWalletTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts      // Transaction auth options to use throughout this session
}

// LyingWalletRaw is an auto generated low-level Go binding around an Ethereum contract.
type LyingWalletRaw struct {
	Contract *LyingWallet // Generic contract binding to access the raw methods on
}

// LyingWalletCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type LyingWalletCallerRaw struct {
	Contract *LyingWalletCaller // Generic read-only contract binding to access the raw methods on
}

// LyingWalletTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type LyingWalletTransactorRaw struct {
	Contract *LyingWalletTransactor // Generic write-only contract binding to access the raw methods on
}

// NewLyingWallet creates a new instance of LyingWallet, bound to a specific deployed contract.
func NewLyingWallet(address common.Address, backend bind.ContractBackend) (*LyingWallet, error) {
	contract, err := bindLyingWallet(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &LyingWallet{LyingWalletCaller: LyingWalletCaller{contract: contract}, LyingWalletTransactor: LyingWalletTransactor{contract: contract}, LyingWalletFilterer: LyingWalletFilterer{contract: contract}}, nil
}

// NewLyingWalletCaller creates a new read-only instance of LyingWallet, bound to a specific deployed contract.
func NewLyingWalletCaller(address common.Address, caller bind.ContractCaller) (*LyingWalletCaller, error) {
	contract, err := bindLyingWallet(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &LyingWalletCaller{contract: contract}, nil
}

// NewLyingWalletTransactor creates a new write-only instance of LyingWallet, bound to a specific deployed contract.
func NewLyingWalletTransactor(address common.Address, transactor bind.ContractTransactor) (*LyingWalletTransactor, error) {
	contract, err := bindLyingWallet(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &LyingWalletTransactor{contract: contract}, nil
}

// NewLyingWalletFilterer creates a new log filterer instance of LyingWallet, bound to a specific deployed contract.
func NewLyingWalletFilterer(address common.Address, filterer bind.ContractFilterer) (*LyingWalletFilterer, error) {
	contract, err := bindLyingWallet(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &LyingWalletFilterer{contract: contract}, nil
}

// bindLyingWallet binds a generic wrapper to an already deployed contract.
func bindLyingWallet(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := LyingWalletMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_LyingWallet *LyingWalletRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _LyingWallet.Contract.LyingWalletCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_LyingWallet *LyingWalletRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _LyingWallet.Contract.LyingWalletTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_LyingWallet *LyingWalletRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _LyingWallet.Contract.LyingWalletTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_LyingWallet *LyingWalletCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _LyingWallet.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_LyingWallet *LyingWalletTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _LyingWallet.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_LyingWallet *LyingWalletTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _LyingWallet.Contract.contract.Transact(opts, method, params...)
}

// IsValidSignature is a free data retrieval call binding the contract method 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (_LyingWallet *LyingWalletCaller) IsValidSignature(opts *bind.CallOpts, hash [32]byte, signature []byte) ([4]byte, error) {
	var out []interface{}
	err := _LyingWallet.contract.Call(opts, &out, "isValidSignature", hash, signature)

	if err != nil {
		return *new([4]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)

	return out0, err

}

// IsValidSignature is a free data retrieval call binding the contract method 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (_LyingWallet *LyingWalletSession) IsValidSignature(hash [32]byte, signature []byte) ([4]byte, error) {
	return _LyingWallet.Contract.IsValidSignature(&_LyingWallet.CallOpts, hash, signature)
}

// IsValidSignature is a free data retrieval call binding the contract method 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (_LyingWallet *LyingWalletCallerSession) IsValidSignature(hash [32]byte, signature []byte) ([4]byte, error) {
	return _LyingWallet.Contract.IsValidSignature(&_LyingWallet.CallOpts, hash, signature)
}

// Owner is a free data retrieval call binding the contract method 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (_LyingWallet *LyingWalletCaller) Owner(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _LyingWallet.contract.Call(opts, &out, "owner")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Owner is a free data retrieval call binding the contract method 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (_LyingWallet *LyingWalletSession) Owner() (common.Address, error) {
	return _LyingWallet.Contract.Owner(&_LyingWallet.CallOpts)
}

// Owner is a free data retrieval call binding the contract method 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (_LyingWallet *LyingWalletCallerSession) Owner() (common.Address, error) {
	return _LyingWallet.Contract.Owner(&_LyingWallet.CallOpts)
}
