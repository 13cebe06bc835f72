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

// X402BatchSettlementChannelConfig is an auto generated low-level Go binding around an user-defined struct.
type X402BatchSettlementChannelConfig struct {
	Payer              common.Address
	PayerAuthorizer    common.Address
	Receiver           common.Address
	ReceiverAuthorizer common.Address
	Token              common.Address
	WithdrawDelay      *big.Int
	Salt               [32]byte
}

// X402BatchSettlementVoucher is an auto generated low-level Go binding around an user-defined struct.
type X402BatchSettlementVoucher struct {
	Channel            X402BatchSettlementChannelConfig
	MaxClaimableAmount *big.Int
}

// X402BatchSettlementVoucherClaim is an auto generated low-level Go binding around an user-defined struct.
type X402BatchSettlementVoucherClaim struct {
	Voucher      X402BatchSettlementVoucher
	Signature    []byte
	TotalClaimed *big.Int
}

// ERC3009DepositCollectorMetaData contains all meta data concerning the ERC3009DepositCollector contract.
var ERC3009DepositCollectorMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"settlement\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"InvalidX402BatchSettlementAddress\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"OnlyX402BatchSettlement\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"SafeERC20FailedOperation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"collectorData\",\"type\":\"bytes\"}],\"name\":\"collect\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"x402BatchSettlement\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x60a060405234801561000f575f5ffd5b5060405161060538038061060583398101604081905261002e91610068565b806001600160a01b0381166100565760405163e55654f560e01b815260040160405180910390fd5b6001600160a01b031660805250610095565b5f60208284031215610078575f5ffd5b81516001600160a01b038116811461008e575f5ffd5b9392505050565b60805161054c6100b95f395f8181603d01528181609b015261018d015261054c5ff3fe608060405234801561000f575f5ffd5b5060043610610034575f3560e01c80634dec6d9514610038578063e416d8d31461007b575b5f5ffd5b61005f7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200160405180910390f35b61008e6100893660046102e4565b610090565b005b336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016146100d957604051639794beb960e01b815260040160405180910390fd5b5f8080806100e985870187610399565b9350935093509350886001600160a01b03166388b7ab638b308b88888d89604051602001610121929190918252602082015260400190565b60405160208183030381529060405280519060200120886040518863ffffffff1660e01b815260040161015a9796959493929190610468565b5f604051808303815f87803b158015610171575f5ffd5b505af1158015610183573d5f5f3e3d5ffd5b505050506101b2897f00000000000000000000000000000000000000000000000000000000000000008a6101be565b50505050505050505050565b6040516001600160a01b038381166024830152604482018390525f91829186169060640160408051601f198184030181529181526020820180516001600160e01b031663a9059cbb60e01b1790525161021791906104da565b5f604051808303815f865af19150503d805f8114610250576040519150601f19603f3d011682016040523d82523d5f602084013e610255565b606091505b50915091508161026757805160208201fd5b805115610288578080602001905181019061028291906104f0565b15610295565b6001600160a01b0385163b155b156102c257604051635274afe760e01b81526001600160a01b038616600482015260240160405180910390fd5b5050505050565b80356001600160a01b03811681146102df575f5ffd5b919050565b5f5f5f5f5f5f60a087890312156102f9575f5ffd5b610302876102c9565b9550610310602088016102c9565b94506040870135935060608701359250608087013567ffffffffffffffff811115610339575f5ffd5b8701601f81018913610349575f5ffd5b803567ffffffffffffffff81111561035f575f5ffd5b896020828401011115610370575f5ffd5b60208201935080925050509295509295509295565b634e487b7160e01b5f52604160045260245ffd5b5f5f5f5f608085870312156103ac575f5ffd5b843593506020850135925060408501359150606085013567ffffffffffffffff8111156103d7575f5ffd5b8501601f810187136103e7575f5ffd5b803567ffffffffffffffff81111561040157610401610385565b604051601f8201601f19908116603f0116810167ffffffffffffffff8111828210171561043057610430610385565b604052818152828201602001891015610447575f5ffd5b816020840160208301375f6020838301015280935050505092959194509250565b60018060a01b038816815260018060a01b03871660208201528560408201528460608201528360808201528260a082015260e060c08201525f82518060e0840152806020850161010085015e5f6101008285010152610100601f19601f83011684010191505098975050505050505050565b5f82518060208501845e5f920191825250919050565b5f60208284031215610500575f5ffd5b8151801515811461050f575f5ffd5b939250505056fea26469706673582212205b97548e3d903c3bfee8ebf4aa9db87de210e14646f06b7279b1add93132490464736f6c634300081e0033",
}

// ERC3009DepositCollectorABI is the input ABI used to generate the binding from.
// Deprecated: Use ERC3009DepositCollectorMetaData.ABI instead.
var ERC3009DepositCollectorABI = ERC3009DepositCollectorMetaData.ABI

// ERC3009DepositCollectorBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use ERC3009DepositCollectorMetaData.Bin instead.
var ERC3009DepositCollectorBin = ERC3009DepositCollectorMetaData.Bin

// DeployERC3009DepositCollector deploys a new Ethereum contract, binding an instance of ERC3009DepositCollector to it.
func DeployERC3009DepositCollector(auth *bind.TransactOpts, backend bind.ContractBackend, settlement common.Address) (common.Address, *types.Transaction, *ERC3009DepositCollector, error) {
	parsed, err := ERC3009DepositCollectorMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(ERC3009DepositCollectorBin), backend, settlement)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &ERC3009DepositCollector{ERC3009DepositCollectorCaller: ERC3009DepositCollectorCaller{contract: contract}, ERC3009DepositCollectorTransactor: ERC3009DepositCollectorTransactor{contract: contract}, ERC3009DepositCollectorFilterer: ERC3009DepositCollectorFilterer{contract: contract}}, nil
}

// ERC3009DepositCollector is an auto generated Go binding around an Ethereum contract.
type ERC3009DepositCollector struct {
	ERC3009DepositCollectorCaller     // Read-only binding to the contract
	ERC3009DepositCollectorTransactor // Write-only binding to the contract
	ERC3009DepositCollectorFilterer   // Log filterer for contract events
}

// ERC3009DepositCollectorCaller is an auto generated read-only Go binding around an Ethereum contract.
type ERC3009DepositCollectorCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ERC3009DepositCollectorTransactor is an auto generated write-only Go binding around an Ethereum contract.
type ERC3009DepositCollectorTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ERC3009DepositCollectorFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type ERC3009DepositCollectorFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ERC3009DepositCollectorSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type ERC3009DepositCollectorSession struct {
	Contract     *ERC3009DepositCollector // Generic contract binding to set the session for
	CallOpts     bind.CallOpts            // Call options to use throughout this session
	TransactOpts bind.TransactOpts        // Transaction auth options to use throughout this session
}

// ERC3009DepositCollectorCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type ERC3009DepositCollectorCallerSession struct {
	Contract *ERC3009DepositCollectorCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts                  // Call options to use throughout this session
}

// ERC3009DepositCollectorTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type ERC3009DepositCollectorTransactorSession struct {
	Contract     *ERC3009DepositCollectorTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts                  // Transaction auth options to use throughout this session
}

// ERC3009DepositCollectorRaw is an auto generated low-level Go binding around an Ethereum contract.
type ERC3009DepositCollectorRaw struct {
	Contract *ERC3009DepositCollector // Generic contract binding to access the raw methods on
}

// ERC3009DepositCollectorCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type ERC3009DepositCollectorCallerRaw struct {
	Contract *ERC3009DepositCollectorCaller // Generic read-only contract binding to access the raw methods on
}

// ERC3009DepositCollectorTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type ERC3009DepositCollectorTransactorRaw struct {
	Contract *ERC3009DepositCollectorTransactor // Generic write-only contract binding to access the raw methods on
}

// NewERC3009DepositCollector creates a new instance of ERC3009DepositCollector, bound to a specific deployed contract.
func NewERC3009DepositCollector(address common.Address, backend bind.ContractBackend) (*ERC3009DepositCollector, error) {
	contract, err := bindERC3009DepositCollector(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &ERC3009DepositCollector{ERC3009DepositCollectorCaller: ERC3009DepositCollectorCaller{contract: contract}, ERC3009DepositCollectorTransactor: ERC3009DepositCollectorTransactor{contract: contract}, ERC3009DepositCollectorFilterer: ERC3009DepositCollectorFilterer{contract: contract}}, nil
}

// NewERC3009DepositCollectorCaller creates a new read-only instance of ERC3009DepositCollector, bound to a specific deployed contract.
func NewERC3009DepositCollectorCaller(address common.Address, caller bind.ContractCaller) (*ERC3009DepositCollectorCaller, error) {
	contract, err := bindERC3009DepositCollector(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &ERC3009DepositCollectorCaller{contract: contract}, nil
}

// NewERC3009DepositCollectorTransactor creates a new write-only instance of ERC3009DepositCollector, bound to a specific deployed contract.
func NewERC3009DepositCollectorTransactor(address common.Address, transactor bind.ContractTransactor) (*ERC3009DepositCollectorTransactor, error) {
	contract, err := bindERC3009DepositCollector(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &ERC3009DepositCollectorTransactor{contract: contract}, nil
}

// NewERC3009DepositCollectorFilterer creates a new log filterer instance of ERC3009DepositCollector, bound to a specific deployed contract.
func NewERC3009DepositCollectorFilterer(address common.Address, filterer bind.ContractFilterer) (*ERC3009DepositCollectorFilterer, error) {
	contract, err := bindERC3009DepositCollector(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &ERC3009DepositCollectorFilterer{contract: contract}, nil
}

// bindERC3009DepositCollector binds a generic wrapper to an already deployed contract.
func bindERC3009DepositCollector(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := ERC3009DepositCollectorMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_ERC3009DepositCollector *ERC3009DepositCollectorRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _ERC3009DepositCollector.Contract.ERC3009DepositCollectorCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_ERC3009DepositCollector *ERC3009DepositCollectorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _ERC3009DepositCollector.Contract.ERC3009DepositCollectorTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_ERC3009DepositCollector *ERC3009DepositCollectorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _ERC3009DepositCollector.Contract.ERC3009DepositCollectorTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_ERC3009DepositCollector *ERC3009DepositCollectorCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _ERC3009DepositCollector.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_ERC3009DepositCollector *ERC3009DepositCollectorTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _ERC3009DepositCollector.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_ERC3009DepositCollector *ERC3009DepositCollectorTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _ERC3009DepositCollector.Contract.contract.Transact(opts, method, params...)
}

// X402BatchSettlement is a free data retrieval call binding the contract method 0x4dec6d95.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (_ERC3009DepositCollector *ERC3009DepositCollectorCaller) X402BatchSettlement(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _ERC3009DepositCollector.contract.Call(opts, &out, "x402BatchSettlement")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// X402BatchSettlement is a free data retrieval call binding the contract method 0x4dec6d95.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (_ERC3009DepositCollector *ERC3009DepositCollectorSession) X402BatchSettlement() (common.Address, error) {
	return _ERC3009DepositCollector.Contract.X402BatchSettlement(&_ERC3009DepositCollector.CallOpts)
}

// X402BatchSettlement is a free data retrieval call binding the contract method 0x4dec6d95.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (_ERC3009DepositCollector *ERC3009DepositCollectorCallerSession) X402BatchSettlement() (common.Address, error) {
	return _ERC3009DepositCollector.Contract.X402BatchSettlement(&_ERC3009DepositCollector.CallOpts)
}

// Collect is a paid mutator transaction binding the contract method 0xe416d8d3.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (_ERC3009DepositCollector *ERC3009DepositCollectorTransactor) Collect(opts *bind.TransactOpts, payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) (*types.Transaction, error) {
	return _ERC3009DepositCollector.contract.Transact(opts, "collect", payer, token, amount, channelId, collectorData)
}

// Collect is a paid mutator transaction binding the contract method 0xe416d8d3.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (_ERC3009DepositCollector *ERC3009DepositCollectorSession) Collect(payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) (*types.Transaction, error) {
	return _ERC3009DepositCollector.Contract.Collect(&_ERC3009DepositCollector.TransactOpts, payer, token, amount, channelId, collectorData)
}

// Collect is a paid mutator transaction binding the contract method 0xe416d8d3.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (_ERC3009DepositCollector *ERC3009DepositCollectorTransactorSession) Collect(payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) (*types.Transaction, error) {
	return _ERC3009DepositCollector.Contract.Collect(&_ERC3009DepositCollector.TransactOpts, payer, token, amount, channelId, collectorData)
}

// Permit2DepositCollectorMetaData contains all meta data concerning the Permit2DepositCollector contract.
var Permit2DepositCollectorMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"settlement\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"permit2\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"InvalidPermit2Address\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidX402BatchSettlementAddress\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"OnlyX402BatchSettlement\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"Permit2612AmountMismatch\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"EIP2612PermitFailedWithData\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"errorCode\",\"type\":\"uint256\"}],\"name\":\"EIP2612PermitFailedWithPanic\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"EIP2612PermitFailedWithReason\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DEPOSIT_WITNESS_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"DEPOSIT_WITNESS_TYPE_STRING\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"PERMIT2\",\"outputs\":[{\"internalType\":\"contractISignatureTransfer\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"collectorData\",\"type\":\"bytes\"}],\"name\":\"collect\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"x402BatchSettlement\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x60c060405234801561000f575f5ffd5b50604051610ae8380380610ae883398101604081905261002e916100b0565b816001600160a01b0381166100565760405163e55654f560e01b815260040160405180910390fd5b6001600160a01b039081166080528116610083576040516359106c8960e01b815260040160405180910390fd5b6001600160a01b031660a052506100e1565b80516001600160a01b03811681146100ab575f5ffd5b919050565b5f5f604083850312156100c1575f5ffd5b6100ca83610095565b91506100d860208401610095565b90509250929050565b60805160a0516109cc61011c5f395f818160f0015281816101bb015261038701525f8181607c0152818161014e015261022d01526109cc5ff3fe608060405234801561000f575f5ffd5b5060043610610055575f3560e01c806322971aa0146100595780634dec6d95146100775780634f829976146100b65780636afdd850146100eb578063e416d8d314610112575b5f5ffd5b610061610127565b60405161006e919061058f565b60405180910390f35b61009e7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200161006e565b6100dd7fba0000097e86dabe64178afe31109221193339a6861598f2133fcbdc92c8447981565b60405190815260200161006e565b61009e7f000000000000000000000000000000000000000000000000000000000000000081565b6101256101203660046105c3565b610143565b005b6040518060a00160405280606681526020016109316066913981565b336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161461018c57604051639794beb960e01b815260040160405180910390fd5b5f80808061019c85870187610715565b93509350935093505f815111156101b9576101b98a8a8a84610325565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031663137c29fe604051806060016040528060405180604001604052808e6001600160a01b031681526020018d81525081526020018781526020018681525060405180604001604052807f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031681526020018c8152508d7fba0000097e86dabe64178afe31109221193339a6861598f2133fcbdc92c844798c60405160200161029b929190918252602082015260400190565b604051602081830303815290604052805190602001206040518060a001604052806066815260200161093160669139886040518763ffffffff1660e01b81526004016102ec9695949392919061078c565b5f604051808303815f87803b158015610303575f5ffd5b505af1158015610315573d5f5f3e3d5ffd5b5050505050505050505050505050565b5f5f5f5f5f8580602001905181019061033e919061082a565b945094509450945094508685146103685760405163050cda4960e01b815260040160405180910390fd5b60405163d505accf60e01b81526001600160a01b038a811660048301527f000000000000000000000000000000000000000000000000000000000000000081166024830152604482018790526064820186905260ff8516608483015260a4820184905260c4820183905289169063d505accf9060e4015f604051808303815f87803b1580156103f5575f5ffd5b505af1925050508015610406575060015b61055657610412610876565b806308c379a003610482575061042661088f565b8061043157506104e4565b896001600160a01b0316896001600160a01b03167f0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e783604051610474919061058f565b60405180910390a350610556565b634e487b71036104e457610494610913565b9061049f57506104e4565b896001600160a01b0316896001600160a01b03167f278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d1976238360405161047491815260200190565b3d80801561050d576040519150601f19603f3d011682016040523d82523d5f602084013e610512565b606091505b50896001600160a01b0316896001600160a01b03167f41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe83604051610474919061058f565b505050505050505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f6105a16020830184610561565b9392505050565b80356001600160a01b03811681146105be575f5ffd5b919050565b5f5f5f5f5f5f60a087890312156105d8575f5ffd5b6105e1876105a8565b95506105ef602088016105a8565b94506040870135935060608701359250608087013567ffffffffffffffff811115610618575f5ffd5b8701601f81018913610628575f5ffd5b803567ffffffffffffffff81111561063e575f5ffd5b89602082840101111561064f575f5ffd5b60208201935080925050509295509295509295565b634e487b7160e01b5f52604160045260245ffd5b601f8201601f1916810167ffffffffffffffff8111828210171561069e5761069e610664565b6040525050565b5f82601f8301126106b4575f5ffd5b813567ffffffffffffffff8111156106ce576106ce610664565b6040516106e5601f8301601f191660200182610678565b8181528460208386010111156106f9575f5ffd5b816020850160208301375f918101602001919091529392505050565b5f5f5f5f60808587031215610728575f5ffd5b8435935060208501359250604085013567ffffffffffffffff81111561074c575f5ffd5b610758878288016106a5565b925050606085013567ffffffffffffffff811115610774575f5ffd5b610780878288016106a5565b91505092959194509250565b6107aa81885180516001600160a01b03168252602090810151910152565b60208701516040820152604087015160608201526107de608082018780516001600160a01b03168252602090810151910152565b60018060a01b03851660c08201528360e08201526101406101008201525f61080a610140830185610561565b82810361012084015261081d8185610561565b9998505050505050505050565b5f5f5f5f5f60a0868803121561083e575f5ffd5b855160208701516040880151919650945060ff8116811461085d575f5ffd5b6060870151608090970151959894975095949392505050565b5f60033d111561088c5760045f5f3e505f5160e01c5b90565b5f60443d101561089c5790565b6040513d600319016004823e80513d602482011167ffffffffffffffff821117156108c657505090565b808201805167ffffffffffffffff8111156108e2575050505090565b3d84016003190182820160200111156108fc575050505090565b61090b60208285010185610678565b509392505050565b5f5f60233d111561092c57602060045f3e50505f516001905b909156fe4465706f7369745769746e657373207769746e657373294465706f7369745769746e6573732862797465733332206368616e6e656c496429546f6b656e5065726d697373696f6e73286164647265737320746f6b656e2c75696e7432353620616d6f756e7429a26469706673582212202a1050d9a563a88880f747f3da8151673340f61478af52ce1e6e9397400a015764736f6c634300081e0033",
}

// Permit2DepositCollectorABI is the input ABI used to generate the binding from.
// Deprecated: Use Permit2DepositCollectorMetaData.ABI instead.
var Permit2DepositCollectorABI = Permit2DepositCollectorMetaData.ABI

// Permit2DepositCollectorBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use Permit2DepositCollectorMetaData.Bin instead.
var Permit2DepositCollectorBin = Permit2DepositCollectorMetaData.Bin

// DeployPermit2DepositCollector deploys a new Ethereum contract, binding an instance of Permit2DepositCollector to it.
func DeployPermit2DepositCollector(auth *bind.TransactOpts, backend bind.ContractBackend, settlement common.Address, permit2 common.Address) (common.Address, *types.Transaction, *Permit2DepositCollector, error) {
	parsed, err := Permit2DepositCollectorMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(Permit2DepositCollectorBin), backend, settlement, permit2)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &Permit2DepositCollector{Permit2DepositCollectorCaller: Permit2DepositCollectorCaller{contract: contract}, Permit2DepositCollectorTransactor: Permit2DepositCollectorTransactor{contract: contract}, Permit2DepositCollectorFilterer: Permit2DepositCollectorFilterer{contract: contract}}, nil
}

// Permit2DepositCollector is an auto generated Go binding around an Ethereum contract.
type Permit2DepositCollector struct {
	Permit2DepositCollectorCaller     // Read-only binding to the contract
	Permit2DepositCollectorTransactor // Write-only binding to the contract
	Permit2DepositCollectorFilterer   // Log filterer for contract events
}

// Permit2DepositCollectorCaller is an auto generated read-only Go binding around an Ethereum contract.
type Permit2DepositCollectorCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// Permit2DepositCollectorTransactor is an auto generated write-only Go binding around an Ethereum contract.
type Permit2DepositCollectorTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// Permit2DepositCollectorFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type Permit2DepositCollectorFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// Permit2DepositCollectorSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type Permit2DepositCollectorSession struct {
	Contract     *Permit2DepositCollector // Generic contract binding to set the session for
	CallOpts     bind.CallOpts            // Call options to use throughout this session
	TransactOpts bind.TransactOpts        // Transaction auth options to use throughout this session
}

// Permit2DepositCollectorCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type Permit2DepositCollectorCallerSession struct {
	Contract *Permit2DepositCollectorCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts                  // Call options to use throughout this session
}

// Permit2DepositCollectorTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type Permit2DepositCollectorTransactorSession struct {
	Contract     *Permit2DepositCollectorTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts                  // Transaction auth options to use throughout this session
}

// Permit2DepositCollectorRaw is an auto generated low-level Go binding around an Ethereum contract.
type Permit2DepositCollectorRaw struct {
	Contract *Permit2DepositCollector // Generic contract binding to access the raw methods on
}

// Permit2DepositCollectorCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type Permit2DepositCollectorCallerRaw struct {
	Contract *Permit2DepositCollectorCaller // Generic read-only contract binding to access the raw methods on
}

// Permit2DepositCollectorTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type Permit2DepositCollectorTransactorRaw struct {
	Contract *Permit2DepositCollectorTransactor // Generic write-only contract binding to access the raw methods on
}

// NewPermit2DepositCollector creates a new instance of Permit2DepositCollector, bound to a specific deployed contract.
func NewPermit2DepositCollector(address common.Address, backend bind.ContractBackend) (*Permit2DepositCollector, error) {
	contract, err := bindPermit2DepositCollector(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &Permit2DepositCollector{Permit2DepositCollectorCaller: Permit2DepositCollectorCaller{contract: contract}, Permit2DepositCollectorTransactor: Permit2DepositCollectorTransactor{contract: contract}, Permit2DepositCollectorFilterer: Permit2DepositCollectorFilterer{contract: contract}}, nil
}

// NewPermit2DepositCollectorCaller creates a new read-only instance of Permit2DepositCollector, bound to a specific deployed contract.
func NewPermit2DepositCollectorCaller(address common.Address, caller bind.ContractCaller) (*Permit2DepositCollectorCaller, error) {
	contract, err := bindPermit2DepositCollector(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &Permit2DepositCollectorCaller{contract: contract}, nil
}

// NewPermit2DepositCollectorTransactor creates a new write-only instance of Permit2DepositCollector, bound to a specific deployed contract.
func NewPermit2DepositCollectorTransactor(address common.Address, transactor bind.ContractTransactor) (*Permit2DepositCollectorTransactor, error) {
	contract, err := bindPermit2DepositCollector(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &Permit2DepositCollectorTransactor{contract: contract}, nil
}

// NewPermit2DepositCollectorFilterer creates a new log filterer instance of Permit2DepositCollector, bound to a specific deployed contract.
func NewPermit2DepositCollectorFilterer(address common.Address, filterer bind.ContractFilterer) (*Permit2DepositCollectorFilterer, error) {
	contract, err := bindPermit2DepositCollector(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &Permit2DepositCollectorFilterer{contract: contract}, nil
}

// bindPermit2DepositCollector binds a generic wrapper to an already deployed contract.
func bindPermit2DepositCollector(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := Permit2DepositCollectorMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_Permit2DepositCollector *Permit2DepositCollectorRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _Permit2DepositCollector.Contract.Permit2DepositCollectorCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_Permit2DepositCollector *Permit2DepositCollectorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _Permit2DepositCollector.Contract.Permit2DepositCollectorTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_Permit2DepositCollector *Permit2DepositCollectorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _Permit2DepositCollector.Contract.Permit2DepositCollectorTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_Permit2DepositCollector *Permit2DepositCollectorCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _Permit2DepositCollector.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_Permit2DepositCollector *Permit2DepositCollectorTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _Permit2DepositCollector.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_Permit2DepositCollector *Permit2DepositCollectorTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _Permit2DepositCollector.Contract.contract.Transact(opts, method, params...)
}

// DEPOSITWITNESSTYPEHASH is a free data retrieval call binding the contract method 0x4f829976.
//
// Solidity: function DEPOSIT_WITNESS_TYPEHASH() view returns(bytes32)
func (_Permit2DepositCollector *Permit2DepositCollectorCaller) DEPOSITWITNESSTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _Permit2DepositCollector.contract.Call(opts, &out, "DEPOSIT_WITNESS_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// DEPOSITWITNESSTYPEHASH is a free data retrieval call binding the contract method 0x4f829976.
//
// Solidity: function DEPOSIT_WITNESS_TYPEHASH() view returns(bytes32)
func (_Permit2DepositCollector *Permit2DepositCollectorSession) DEPOSITWITNESSTYPEHASH() ([32]byte, error) {
	return _Permit2DepositCollector.Contract.DEPOSITWITNESSTYPEHASH(&_Permit2DepositCollector.CallOpts)
}

// DEPOSITWITNESSTYPEHASH is a free data retrieval call binding the contract method 0x4f829976.
//
// Solidity: function DEPOSIT_WITNESS_TYPEHASH() view returns(bytes32)
func (_Permit2DepositCollector *Permit2DepositCollectorCallerSession) DEPOSITWITNESSTYPEHASH() ([32]byte, error) {
	return _Permit2DepositCollector.Contract.DEPOSITWITNESSTYPEHASH(&_Permit2DepositCollector.CallOpts)
}

// DEPOSITWITNESSTYPESTRING is a free data retrieval call binding the contract method 0x22971aa0.
//
// Solidity: function DEPOSIT_WITNESS_TYPE_STRING() view returns(string)
func (_Permit2DepositCollector *Permit2DepositCollectorCaller) DEPOSITWITNESSTYPESTRING(opts *bind.CallOpts) (string, error) {
	var out []interface{}
	err := _Permit2DepositCollector.contract.Call(opts, &out, "DEPOSIT_WITNESS_TYPE_STRING")

	if err != nil {
		return *new(string), err
	}

	out0 := *abi.ConvertType(out[0], new(string)).(*string)

	return out0, err

}

// DEPOSITWITNESSTYPESTRING is a free data retrieval call binding the contract method 0x22971aa0.
//
// Solidity: function DEPOSIT_WITNESS_TYPE_STRING() view returns(string)
func (_Permit2DepositCollector *Permit2DepositCollectorSession) DEPOSITWITNESSTYPESTRING() (string, error) {
	return _Permit2DepositCollector.Contract.DEPOSITWITNESSTYPESTRING(&_Permit2DepositCollector.CallOpts)
}

// DEPOSITWITNESSTYPESTRING is a free data retrieval call binding the contract method 0x22971aa0.
//
// Solidity: function DEPOSIT_WITNESS_TYPE_STRING() view returns(string)
func (_Permit2DepositCollector *Permit2DepositCollectorCallerSession) DEPOSITWITNESSTYPESTRING() (string, error) {
	return _Permit2DepositCollector.Contract.DEPOSITWITNESSTYPESTRING(&_Permit2DepositCollector.CallOpts)
}

// PERMIT2 is a free data retrieval call binding the contract method 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (_Permit2DepositCollector *Permit2DepositCollectorCaller) PERMIT2(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _Permit2DepositCollector.contract.Call(opts, &out, "PERMIT2")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// PERMIT2 is a free data retrieval call binding the contract method 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (_Permit2DepositCollector *Permit2DepositCollectorSession) PERMIT2() (common.Address, error) {
	return _Permit2DepositCollector.Contract.PERMIT2(&_Permit2DepositCollector.CallOpts)
}

// PERMIT2 is a free data retrieval call binding the contract method 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (_Permit2DepositCollector *Permit2DepositCollectorCallerSession) PERMIT2() (common.Address, error) {
	return _Permit2DepositCollector.Contract.PERMIT2(&_Permit2DepositCollector.CallOpts)
}

// X402BatchSettlement is a free data retrieval call binding the contract method 0x4dec6d95.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (_Permit2DepositCollector *Permit2DepositCollectorCaller) X402BatchSettlement(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _Permit2DepositCollector.contract.Call(opts, &out, "x402BatchSettlement")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// X402BatchSettlement is a free data retrieval call binding the contract method 0x4dec6d95.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (_Permit2DepositCollector *Permit2DepositCollectorSession) X402BatchSettlement() (common.Address, error) {
	return _Permit2DepositCollector.Contract.X402BatchSettlement(&_Permit2DepositCollector.CallOpts)
}

// X402BatchSettlement is a free data retrieval call binding the contract method 0x4dec6d95.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (_Permit2DepositCollector *Permit2DepositCollectorCallerSession) X402BatchSettlement() (common.Address, error) {
	return _Permit2DepositCollector.Contract.X402BatchSettlement(&_Permit2DepositCollector.CallOpts)
}

// Collect is a paid mutator transaction binding the contract method 0xe416d8d3.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (_Permit2DepositCollector *Permit2DepositCollectorTransactor) Collect(opts *bind.TransactOpts, payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) (*types.Transaction, error) {
	return _Permit2DepositCollector.contract.Transact(opts, "collect", payer, token, amount, channelId, collectorData)
}

// Collect is a paid mutator transaction binding the contract method 0xe416d8d3.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (_Permit2DepositCollector *Permit2DepositCollectorSession) Collect(payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) (*types.Transaction, error) {
	return _Permit2DepositCollector.Contract.Collect(&_Permit2DepositCollector.TransactOpts, payer, token, amount, channelId, collectorData)
}

// Collect is a paid mutator transaction binding the contract method 0xe416d8d3.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (_Permit2DepositCollector *Permit2DepositCollectorTransactorSession) Collect(payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) (*types.Transaction, error) {
	return _Permit2DepositCollector.Contract.Collect(&_Permit2DepositCollector.TransactOpts, payer, token, amount, channelId, collectorData)
}

// Permit2DepositCollectorEIP2612PermitFailedWithDataIterator is returned from FilterEIP2612PermitFailedWithData and is used to iterate over the raw logs and unpacked data for EIP2612PermitFailedWithData events raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorEIP2612PermitFailedWithDataIterator struct {
	Event *Permit2DepositCollectorEIP2612PermitFailedWithData // Event containing the contract specifics and raw log

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
func (it *Permit2DepositCollectorEIP2612PermitFailedWithDataIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(Permit2DepositCollectorEIP2612PermitFailedWithData)
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
		it.Event = new(Permit2DepositCollectorEIP2612PermitFailedWithData)
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
func (it *Permit2DepositCollectorEIP2612PermitFailedWithDataIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *Permit2DepositCollectorEIP2612PermitFailedWithDataIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// Permit2DepositCollectorEIP2612PermitFailedWithData represents a EIP2612PermitFailedWithData event raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorEIP2612PermitFailedWithData struct {
	Token common.Address
	Owner common.Address
	Data  []byte
	Raw   types.Log // Blockchain specific contextual infos
}

// FilterEIP2612PermitFailedWithData is a free log retrieval operation binding the contract event 0x41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (_Permit2DepositCollector *Permit2DepositCollectorFilterer) FilterEIP2612PermitFailedWithData(opts *bind.FilterOpts, token []common.Address, owner []common.Address) (*Permit2DepositCollectorEIP2612PermitFailedWithDataIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _Permit2DepositCollector.contract.FilterLogs(opts, "EIP2612PermitFailedWithData", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &Permit2DepositCollectorEIP2612PermitFailedWithDataIterator{contract: _Permit2DepositCollector.contract, event: "EIP2612PermitFailedWithData", logs: logs, sub: sub}, nil
}

// WatchEIP2612PermitFailedWithData is a free log subscription operation binding the contract event 0x41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (_Permit2DepositCollector *Permit2DepositCollectorFilterer) WatchEIP2612PermitFailedWithData(opts *bind.WatchOpts, sink chan<- *Permit2DepositCollectorEIP2612PermitFailedWithData, token []common.Address, owner []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _Permit2DepositCollector.contract.WatchLogs(opts, "EIP2612PermitFailedWithData", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(Permit2DepositCollectorEIP2612PermitFailedWithData)
				if err := _Permit2DepositCollector.contract.UnpackLog(event, "EIP2612PermitFailedWithData", log); err != nil {
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
func (_Permit2DepositCollector *Permit2DepositCollectorFilterer) ParseEIP2612PermitFailedWithData(log types.Log) (*Permit2DepositCollectorEIP2612PermitFailedWithData, error) {
	event := new(Permit2DepositCollectorEIP2612PermitFailedWithData)
	if err := _Permit2DepositCollector.contract.UnpackLog(event, "EIP2612PermitFailedWithData", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// Permit2DepositCollectorEIP2612PermitFailedWithPanicIterator is returned from FilterEIP2612PermitFailedWithPanic and is used to iterate over the raw logs and unpacked data for EIP2612PermitFailedWithPanic events raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorEIP2612PermitFailedWithPanicIterator struct {
	Event *Permit2DepositCollectorEIP2612PermitFailedWithPanic // Event containing the contract specifics and raw log

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
func (it *Permit2DepositCollectorEIP2612PermitFailedWithPanicIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(Permit2DepositCollectorEIP2612PermitFailedWithPanic)
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
		it.Event = new(Permit2DepositCollectorEIP2612PermitFailedWithPanic)
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
func (it *Permit2DepositCollectorEIP2612PermitFailedWithPanicIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *Permit2DepositCollectorEIP2612PermitFailedWithPanicIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// Permit2DepositCollectorEIP2612PermitFailedWithPanic represents a EIP2612PermitFailedWithPanic event raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorEIP2612PermitFailedWithPanic struct {
	Token     common.Address
	Owner     common.Address
	ErrorCode *big.Int
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterEIP2612PermitFailedWithPanic is a free log retrieval operation binding the contract event 0x278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d197623.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (_Permit2DepositCollector *Permit2DepositCollectorFilterer) FilterEIP2612PermitFailedWithPanic(opts *bind.FilterOpts, token []common.Address, owner []common.Address) (*Permit2DepositCollectorEIP2612PermitFailedWithPanicIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _Permit2DepositCollector.contract.FilterLogs(opts, "EIP2612PermitFailedWithPanic", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &Permit2DepositCollectorEIP2612PermitFailedWithPanicIterator{contract: _Permit2DepositCollector.contract, event: "EIP2612PermitFailedWithPanic", logs: logs, sub: sub}, nil
}

// WatchEIP2612PermitFailedWithPanic is a free log subscription operation binding the contract event 0x278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d197623.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (_Permit2DepositCollector *Permit2DepositCollectorFilterer) WatchEIP2612PermitFailedWithPanic(opts *bind.WatchOpts, sink chan<- *Permit2DepositCollectorEIP2612PermitFailedWithPanic, token []common.Address, owner []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _Permit2DepositCollector.contract.WatchLogs(opts, "EIP2612PermitFailedWithPanic", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(Permit2DepositCollectorEIP2612PermitFailedWithPanic)
				if err := _Permit2DepositCollector.contract.UnpackLog(event, "EIP2612PermitFailedWithPanic", log); err != nil {
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
func (_Permit2DepositCollector *Permit2DepositCollectorFilterer) ParseEIP2612PermitFailedWithPanic(log types.Log) (*Permit2DepositCollectorEIP2612PermitFailedWithPanic, error) {
	event := new(Permit2DepositCollectorEIP2612PermitFailedWithPanic)
	if err := _Permit2DepositCollector.contract.UnpackLog(event, "EIP2612PermitFailedWithPanic", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// Permit2DepositCollectorEIP2612PermitFailedWithReasonIterator is returned from FilterEIP2612PermitFailedWithReason and is used to iterate over the raw logs and unpacked data for EIP2612PermitFailedWithReason events raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorEIP2612PermitFailedWithReasonIterator struct {
	Event *Permit2DepositCollectorEIP2612PermitFailedWithReason // Event containing the contract specifics and raw log

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
func (it *Permit2DepositCollectorEIP2612PermitFailedWithReasonIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(Permit2DepositCollectorEIP2612PermitFailedWithReason)
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
		it.Event = new(Permit2DepositCollectorEIP2612PermitFailedWithReason)
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
func (it *Permit2DepositCollectorEIP2612PermitFailedWithReasonIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *Permit2DepositCollectorEIP2612PermitFailedWithReasonIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// Permit2DepositCollectorEIP2612PermitFailedWithReason represents a EIP2612PermitFailedWithReason event raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorEIP2612PermitFailedWithReason struct {
	Token  common.Address
	Owner  common.Address
	Reason string
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterEIP2612PermitFailedWithReason is a free log retrieval operation binding the contract event 0x0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e7.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (_Permit2DepositCollector *Permit2DepositCollectorFilterer) FilterEIP2612PermitFailedWithReason(opts *bind.FilterOpts, token []common.Address, owner []common.Address) (*Permit2DepositCollectorEIP2612PermitFailedWithReasonIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _Permit2DepositCollector.contract.FilterLogs(opts, "EIP2612PermitFailedWithReason", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return &Permit2DepositCollectorEIP2612PermitFailedWithReasonIterator{contract: _Permit2DepositCollector.contract, event: "EIP2612PermitFailedWithReason", logs: logs, sub: sub}, nil
}

// WatchEIP2612PermitFailedWithReason is a free log subscription operation binding the contract event 0x0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e7.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (_Permit2DepositCollector *Permit2DepositCollectorFilterer) WatchEIP2612PermitFailedWithReason(opts *bind.WatchOpts, sink chan<- *Permit2DepositCollectorEIP2612PermitFailedWithReason, token []common.Address, owner []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}

	logs, sub, err := _Permit2DepositCollector.contract.WatchLogs(opts, "EIP2612PermitFailedWithReason", tokenRule, ownerRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(Permit2DepositCollectorEIP2612PermitFailedWithReason)
				if err := _Permit2DepositCollector.contract.UnpackLog(event, "EIP2612PermitFailedWithReason", log); err != nil {
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
func (_Permit2DepositCollector *Permit2DepositCollectorFilterer) ParseEIP2612PermitFailedWithReason(log types.Log) (*Permit2DepositCollectorEIP2612PermitFailedWithReason, error) {
	event := new(Permit2DepositCollectorEIP2612PermitFailedWithReason)
	if err := _Permit2DepositCollector.contract.UnpackLog(event, "EIP2612PermitFailedWithReason", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402BatchSettlementMetaData contains all meta data concerning the X402BatchSettlement contract.
var X402BatchSettlementMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"name\":\"ClaimExceedsBalance\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ClaimExceedsCeiling\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"DepositCollectionFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"DepositOverflow\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ECDSAInvalidSignature\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"length\",\"type\":\"uint256\"}],\"name\":\"ECDSAInvalidSignatureLength\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"}],\"name\":\"ECDSAInvalidSignatureS\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyBatch\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"FailedCall\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidChannel\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidCollector\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidRefundNonce\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotAuthorizedToClaim\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotAuthorizedToFinalizeWithdraw\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotAuthorizedToRefund\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotReceiverAuthorizer\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NothingToWithdraw\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReentrancyGuardReentrantCall\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"SafeERC20FailedOperation\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawAmountExceedsAvailable\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawDelayNotElapsed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawDelayOutOfRange\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawalAlreadyPending\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawalNotPending\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroDeposit\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroRefund\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"indexed\":false,\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"}],\"name\":\"ChannelClosed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"indexed\":false,\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"}],\"name\":\"ChannelCreated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"claimAmount\",\"type\":\"uint128\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"newTotalClaimed\",\"type\":\"uint128\"}],\"name\":\"Claimed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"newBalance\",\"type\":\"uint128\"}],\"name\":\"Deposited\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"EIP712DomainChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"Refunded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"Settled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"WithdrawFinalized\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"indexed\":false,\"internalType\":\"uint40\",\"name\":\"finalizeAfter\",\"type\":\"uint40\"}],\"name\":\"WithdrawInitiated\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"CHANNEL_CONFIG_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"CLAIM_BATCH_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"CLAIM_ENTRY_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_WITHDRAW_DELAY\",\"outputs\":[{\"internalType\":\"uint40\",\"name\":\"\",\"type\":\"uint40\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MIN_WITHDRAW_DELAY\",\"outputs\":[{\"internalType\":\"uint40\",\"name\":\"\",\"type\":\"uint40\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"REFUND_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"VOUCHER_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"}],\"name\":\"channels\",\"outputs\":[{\"internalType\":\"uint128\",\"name\":\"balance\",\"type\":\"uint128\"},{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"channel\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"maxClaimableAmount\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.Voucher\",\"name\":\"voucher\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.VoucherClaim[]\",\"name\":\"voucherClaims\",\"type\":\"tuple[]\"}],\"name\":\"claim\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"channel\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"maxClaimableAmount\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.Voucher\",\"name\":\"voucher\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.VoucherClaim[]\",\"name\":\"voucherClaims\",\"type\":\"tuple[]\"},{\"internalType\":\"bytes\",\"name\":\"authorizerSignature\",\"type\":\"bytes\"}],\"name\":\"claimWithSignature\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"internalType\":\"address\",\"name\":\"collector\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"collectorData\",\"type\":\"bytes\"}],\"name\":\"deposit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"eip712Domain\",\"outputs\":[{\"internalType\":\"bytes1\",\"name\":\"fields\",\"type\":\"bytes1\"},{\"internalType\":\"string\",\"name\":\"name\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"verifyingContract\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"extensions\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"}],\"name\":\"finalizeWithdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"}],\"name\":\"getChannelId\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"channel\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"maxClaimableAmount\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.Voucher\",\"name\":\"voucher\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.VoucherClaim[]\",\"name\":\"voucherClaims\",\"type\":\"tuple[]\"}],\"name\":\"getClaimBatchDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"getRefundDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"internalType\":\"uint128\",\"name\":\"maxClaimableAmount\",\"type\":\"uint128\"}],\"name\":\"getVoucherDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"initiateWithdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes[]\",\"name\":\"data\",\"type\":\"bytes[]\"}],\"name\":\"multicall\",\"outputs\":[{\"internalType\":\"bytes[]\",\"name\":\"results\",\"type\":\"bytes[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"}],\"name\":\"pendingWithdrawals\",\"outputs\":[{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"internalType\":\"uint40\",\"name\":\"initiatedAt\",\"type\":\"uint40\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"receivers\",\"outputs\":[{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"},{\"internalType\":\"uint128\",\"name\":\"totalSettled\",\"type\":\"uint128\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"refund\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"}],\"name\":\"refundNonce\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"receiverAuthorizerSignature\",\"type\":\"bytes\"}],\"name\":\"refundWithSignature\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"settle\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b50612a318061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061016d575f3560e01c806394739e87116100d9578063ba94ec0d11610093578063e25cf1891161006e578063e25cf18914610446578063e43ce1f214610459578063e88377b11461046c578063f0dc792e1461047f575f5ffd5b8063ba94ec0d146103f9578063cf5cf3dc14610420578063dce4bfae14610433575f5ffd5b806394739e87146103265780639db32a8f1461034d578063ac9650d814610360578063ae15943914610380578063b77433e914610389578063b7f06ebe1461039c575f5ffd5b806353ab0fae1161012a57806353ab0fae146102645780635e5e0b871461028b5780637a7ebd7b1461029e57806384b0196e146102d1578063862bb199146102ec5780638e4a68ac146102ff575f5ffd5b8063140f1e75146101715780631e69ef40146101865780631fc3277d146101c057806321ff6389146101e057806329237b0c1461023e578063488ccc3b14610251575b5f5ffd5b61018461017f36600461228a565b61049e565b005b6101ad7fbe23ad087435072cd69b49cc5b92de10ee610fce7ae0ab428307972d764bb21681565b6040519081526020015b60405180910390f35b6101ca62278d0081565b60405164ffffffffff90911681526020016101b7565b61021e6101ee3660046122ff565b600360209081525f92835260408084209091529082529020546001600160801b0380821691600160801b90041682565b604080516001600160801b039384168152929091166020830152016101b7565b61018461024c366004612371565b61091b565b6101ad61025f366004612371565b610a01565b6101ad7f42bd57c010b870c2e96203c66341f28a6a19b4d56a74533a8eb5f706b9fd6d5781565b6101ad6102993660046123b0565b610cc0565b61021e6102ac3660046123ca565b5f602081905290815260409020546001600160801b0380821691600160801b90041682565b6102d9610cf7565b6040516101b7979695949392919061240f565b6101ad6102fa3660046124a5565b610d8b565b6101ad7f1c9a06ceab9b0ebbd3301dc56c9111bb6d9af421356dc9ccb3b7084c755db30881565b6101ad7f1e1bd6ff84c3e0d9029a292b212e039c0ca97ec497c55191a4a5874294609a6981565b61018461035b3660046122ff565b610ddf565b61037361036e366004612371565b610ef2565b6040516101b791906124c6565b6101ca61038481565b610184610397366004612529565b611021565b6103d46103aa3660046123ca565b60026020525f90815260409020546001600160801b03811690600160801b900464ffffffffff1682565b604080516001600160801b03909316835264ffffffffff9091166020830152016101b7565b6101ad7f30b9a0367528fca13c3e8ec6134c3113f1887ebe7a1ad61de0955aac288b0cf581565b61018461042e36600461257a565b6110e7565b61018461044136600461257a565b6112f1565b6101ad6104543660046125a4565b611355565b6101846104673660046125d6565b6113b1565b61018461047a3660046123b0565b611502565b6101ad61048d3660046123ca565b60016020525f908152604090205481565b5f5160206129dc5f395f51905f52805c80156104cd57604051633ee5aeb560e01b815260040160405180910390fd5b6001825d5f6104df6020890189612642565b6001600160a01b0316148061050b57505f6105006060890160408a01612642565b6001600160a01b0316145b8061052d57505f6105226080890160608a01612642565b6001600160a01b0316145b8061054f57505f61054460a0890160808a01612642565b6001600160a01b0316145b1561056d5760405163ea3a9a3960e01b815260040160405180910390fd5b61038461058060c0890160a08a0161266f565b64ffffffffff1610806105ab575062278d006105a260c0890160a08a0161266f565b64ffffffffff16115b156105c9576040516322ba7d5b60e11b815260040160405180910390fd5b856001600160801b03165f036105f2576040516356316e8760e01b815260040160405180910390fd5b6001600160a01b0385166106195760405163062c6bf560e21b815260040160405180910390fd5b5f61062388610cc0565b5f81815260208190526040902080549192509061064b906001600160801b039081169061269c565b6001600160801b0316886001600160801b0316111561067d57604051631132981b60e01b815260040160405180910390fd5b8054889082905f906106999084906001600160801b03166126bb565b92506101000a8154816001600160801b0302191690836001600160801b031602179055505f8960800160208101906106d19190612642565b6040516370a0823160e01b81523060048201529091505f906001600160a01b038316906370a0823190602401602060405180830381865afa158015610718573d5f5f3e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061073c91906126da565b90506001600160a01b03891663e416d8d361075a60208e018e612642565b8d608001602081019061076d9190612642565b8d888d8d6040518763ffffffff1660e01b815260040161079296959493929190612719565b5f604051808303815f87803b1580156107a9575f5ffd5b505af11580156107bb573d5f5f3e3d5ffd5b50505050896001600160801b0316816107d49190612767565b6040516370a0823160e01b81523060048201526001600160a01b038416906370a0823190602401602060405180830381865afa158015610816573d5f5f3e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061083a91906126da565b1461085857604051633ad0d64b60e21b815260040160405180910390fd5b82546001600160801b038b8116911614801561088357508254600160801b90046001600160801b0316155b156108c157837f69d8248d5566bdb2ebc4d218970710d8378a2ff9b709a999e052b71970f808fa8c6040516108b89190612819565b60405180910390a25b8254604080516001600160801b03808e1682529092166020830152339186917f6c2a09353b5e75e70d0b9778b80a413809bb235d46c211811c474b3346791d89910160405180910390a3505050505f825d50505050505050565b5f5160206129dc5f395f51905f52805c801561094a57604051633ee5aeb560e01b815260040160405180910390fd5b6001825d5f83900361096f5760405163c2e5347d60e01b815260040160405180910390fd5b5f5b838110156109f7576109a63386868481811061098f5761098f612827565b90506020028101906109a1919061283b565b6117e4565b6109c35760405163defb706960e01b815260040160405180910390fd5b6109ef8585838181106109d8576109d8612827565b90506020028101906109ea919061283b565b61183b565b600101610971565b505f825d50505050565b5f808267ffffffffffffffff811115610a1c57610a1c61285a565b604051908082528060200260200182016040528015610a45578160200160208202803683370190505b5090505f5b83811015610b6d577f30b9a0367528fca13c3e8ec6134c3113f1887ebe7a1ad61de0955aac288b0cf5610a9a868684818110610a8857610a88612827565b9050602002810190610299919061283b565b868684818110610aac57610aac612827565b9050602002810190610abe919061283b565b610ad09061010081019060e00161286e565b878785818110610ae257610ae2612827565b9050602002810190610af4919061283b565b610b07906101408101906101200161286e565b6040805160208101959095528401929092526001600160801b03908116606084015216608082015260a00160405160208183030381529060405280519060200120828281518110610b5a57610b5a612827565b6020908102919091010152600101610a4a565b50610cb67f42bd57c010b870c2e96203c66341f28a6a19b4d56a74533a8eb5f706b9fd6d5782604051602001610ba39190612887565b60405160208183030381529060405280519060200120604051602001610bd3929190918252602082015260400190565b60408051601f1981840301815282825280516020918201207f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f848301527fe03c502b9066cc6f23a8f0f48ed32cb7d506f9f0a2d0055449f256846a770e9a848401527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc660608501524660808501523060a0808601919091528351808603909101815260c08501845280519083012061190160f01b60e086015260e28501526101028085019190915282518085039091018152610122909301909152815191012090565b9150505b92915050565b5f610cba7f1c9a06ceab9b0ebbd3301dc56c9111bb6d9af421356dc9ccb3b7084c755db30883604051602001610bd39291906128bc565b5f6060808280808346308380604051908082528060200260200182016040528015610d2c578160200160208202803683370190505b5060408051808201825260158152741e0d0c0c8810985d18da0814d95d1d1b195b595b9d605a1b602080830191909152825180840190935260018352603160f81b90830152600f60f81b9d909c50909a50939850919650945092509050565b604080517f1e1bd6ff84c3e0d9029a292b212e039c0ca97ec497c55191a4a5874294609a6960208201529081018390526001600160801b03821660608201525f90610dd890608001610bd3565b9392505050565b5f5160206129dc5f395f51905f52805c8015610e0e57604051633ee5aeb560e01b815260040160405180910390fd5b6001825d6001600160a01b038085165f90815260036020908152604080832093871683529290529081208054909190610e59906001600160801b03600160801b82048116911661269c565b9050806001600160801b03165f03610e72575050610ee9565b81546001600160801b03908116600160801b8102178355610e9890869088908416611b4c565b6040516001600160801b038216815233906001600160a01b0387811691908916907f7337b4386b690fdb8ba66905b92b9d45d33bc6626ee2620c905fb150ec0cc47d9060200160405180910390a450505b5f825d50505050565b60608167ffffffffffffffff811115610f0d57610f0d61285a565b604051908082528060200260200182016040528015610f4057816020015b6060815260200190600190039081610f2b5790505b5090505f5b8281101561101a575f8030868685818110610f6257610f62612827565b9050602002810190610f7491906128d1565b604051610f82929190612914565b5f60405180830381855af49150503d805f8114610fba576040519150601f19603f3d011682016040523d82523d5f602084013e610fbf565b606091505b509150915081610ff25780515f03610fea5760405163d6bda27560e01b815260040160405180910390fd5b805160208201fd5b8084848151811061100557611005612827565b60209081029190910101525050600101610f45565b5092915050565b5f5160206129dc5f395f51905f52805c801561105057604051633ee5aeb560e01b815260040160405180910390fd5b6001825d5f61105e88610cc0565b5f81815260016020526040902054909150861461108e57604051630b278d7f60e11b815260040160405180910390fd5b6110b36110a160808a0160608b01612642565b6110ac83898b611355565b8787611c58565b6110d057604051638baa579f60e01b815260040160405180910390fd5b6110da8888611e67565b505f825d50505050505050565b5f5160206129dc5f395f51905f52805c801561111657604051633ee5aeb560e01b815260040160405180910390fd5b6001825d6111276020850185612642565b6001600160a01b0316336001600160a01b03161415801561116957506111536040850160208601612642565b6001600160a01b0316336001600160a01b031614155b156111875760405163ea3a9a3960e01b815260040160405180910390fd5b826001600160801b03165f036111b057604051630686827b60e51b815260040160405180910390fd5b5f6111ba85610cc0565b5f818152600260205260409020805491925090600160801b900464ffffffffff16156111f957604051630a2aed0f60e41b815260040160405180910390fd5b5f8281526020819052604090208054611224906001600160801b03600160801b82048116911661269c565b6001600160801b0316866001600160801b0316111561125657604051631b4f55d960e21b815260040160405180910390fd5b815464ffffffffff4216600160801b026001600160a81b03199091166001600160801b03881617178255827fe4280d0d903c7f258f62b07c62f262377cbaa23f7791d78126e6446e0f0e3c23876112b360c08b0160a08c0161266f565b6112bd9042612923565b604080516001600160801b03909316835264ffffffffff90911660208301520160405180910390a25050505f825d50505050565b5f5160206129dc5f395f51905f52805c801561132057604051633ee5aeb560e01b815260040160405180910390fd5b6001825d61132e33856117e4565b61134b57604051630f0c9e0160e31b815260040160405180910390fd5b610ee98484611e67565b604080517fbe23ad087435072cd69b49cc5b92de10ee610fce7ae0ab428307972d764bb2166020820152908101849052606081018390526001600160801b03821660808201525f906113a99060a001610bd3565b949350505050565b5f5160206129dc5f395f51905f52805c80156113e057604051633ee5aeb560e01b815260040160405180910390fd5b6001825d5f8590036114055760405163c2e5347d60e01b815260040160405180910390fd5b5f86865f81811061141857611418612827565b905060200281019061142a919061283b565b61143b906080810190606001612642565b905061144b816110ac8989610a01565b61146857604051638baa579f60e01b815260040160405180910390fd5b5f5b868110156114f557816001600160a01b031688888381811061148e5761148e612827565b90506020028101906114a0919061283b565b6114b1906080810190606001612642565b6001600160a01b0316146114d85760405163f5e2237d60e01b815260040160405180910390fd5b6114ed8888838181106109d8576109d8612827565b60010161146a565b50505f825d505050505050565b5f5160206129dc5f395f51905f52805c801561153157604051633ee5aeb560e01b815260040160405180910390fd5b6001825d6115426020840184612642565b6001600160a01b0316336001600160a01b031614158015611584575061156e6040840160208501612642565b6001600160a01b0316336001600160a01b031614155b156115a2576040516315f969d560e01b815260040160405180910390fd5b5f6115ac84610cc0565b5f818152600260205260408120805492935091600160801b900464ffffffffff1690036115ec57604051631d050e5360e11b815260040160405180910390fd5b6115fc60c0860160a0870161266f565b81546116199164ffffffffff90811691600160801b900416612767565b4210156116395760405163f396582760e01b815260040160405180910390fd5b5f8281526020819052604081208054909190611667906001600160801b03600160801b82048116911661269c565b83549091505f906001600160801b038084169116106116865781611692565b83546001600160801b03165b84546001600160a81b03191685558354909150819084905f906116bf9084906001600160801b031661269c565b92506101000a8154816001600160801b0302191690836001600160801b03160217905550336001600160a01b0316857f546ce1e2242cd930c196bd08b894443562d709b4fffe4f028a75a6d233efc6e38360405161172c91906001600160801b0391909116815260200190565b60405180910390a382546001600160801b031615801561175b57508254600160801b90046001600160801b0316155b1561179957847f8d5942f197f362dfd44dfdc1b0b7a9721c9151b67f55817c83349271d3c08d37896040516117909190612819565b60405180910390a25b6001600160801b038116156117d7576117d76117bb60a08a0160808b01612642565b6117c860208b018b612642565b836001600160801b0316611b4c565b50505050505f825d505050565b5f6117f56060830160408401612642565b6001600160a01b0316836001600160a01b03161480610dd8575061181f6080830160608401612642565b6001600160a01b0316836001600160a01b031614905092915050565b5f61184582610cc0565b5f818152602081905260409020805491925090600160801b90046001600160801b031661187a6101408501610120860161286e565b6001600160801b03161161188d57505050565b61189e610100840160e0850161286e565b6001600160801b03166118b96101408501610120860161286e565b6001600160801b031611156118e15760405163f178977560e01b815260040160405180910390fd5b80546001600160801b03166118fe6101408501610120860161286e565b6001600160801b0316111561192657604051633ec1215b60e11b815260040160405180910390fd5b5f61193c836102fa610100870160e0880161286e565b90505f61194f6040860160208701612642565b90506001600160a01b038116156119ad576001600160a01b0381166119818361197c6101008901896128d1565b6120bf565b6001600160a01b0316146119a857604051638baa579f60e01b815260040160405180910390fd5b6119ee565b6119d16119bd6020870187612642565b836119cc6101008901896128d1565b611c58565b6119ee57604051638baa579f60e01b815260040160405180910390fd5b82545f90600160801b90046001600160801b0316611a146101408801610120890161286e565b611a1e919061269c565b9050611a326101408701610120880161286e565b84546001600160801b03918216600160801b0291161784558060035f611a5e60608a0160408b01612642565b6001600160a01b0316815260208101919091526040015f90812090611a8960a08a0160808b01612642565b6001600160a01b0316815260208101919091526040015f9081208054909190611abc9084906001600160801b03166126bb565b92506101000a8154816001600160801b0302191690836001600160801b03160217905550336001600160a01b0316857f36bd546bb573e8921fdbfd934bbed62d872796b01792cd240cce27f79dd3eddd8389610120016020810190611b21919061286e565b604080516001600160801b0393841681529290911660208301520160405180910390a3505050505050565b6040516001600160a01b038381166024830152604482018390525f91829186169060640160408051601f198184030181529181526020820180516001600160e01b031663a9059cbb60e01b17905251611ba59190612940565b5f604051808303815f865af19150503d805f8114611bde576040519150601f19603f3d011682016040523d82523d5f602084013e611be3565b606091505b509150915081611bf557805160208201fd5b805115611c165780806020019051810190611c109190612956565b15611c23565b6001600160a01b0385163b155b15611c5157604051635274afe760e01b81526001600160a01b03861660048201526024015b60405180910390fd5b5050505050565b5f846001600160a01b03163b5f03611d7d5760418214611c7957505f6113a9565b5f611c88604060208587612975565b611c919161299c565b90506fa2a8918ca85bafe22016d0b997e4df60600160ff1b03811115611cba575f9150506113a9565b5f60018686866040818110611cd157611cd1612827565b919091013560f81c9050611ce860205f898b612975565b611cf19161299c565b604080515f8152602081018083529490945260ff9092169183019190915260608201526080810184905260a0016020604051602081039080840390855afa158015611d3e573d5f5f3e3d5ffd5b5050604051601f1901519150506001600160a01b03811615801590611d745750866001600160a01b0316816001600160a01b0316145b925050506113a9565b5f5f866001600160a01b0316631626ba7e60e01b878787604051602401611da6939291906129b9565b60408051601f198184030181529181526020820180516001600160e01b03166001600160e01b0319909416939093179092529051611de49190612940565b5f60405180830381855afa9150503d805f8114611e1c576040519150601f19603f3d011682016040523d82523d5f602084013e611e21565b606091505b5091509150818015611e3557506020815110155b8015611e5c57508051630b135d3f60e11b90611e5a90830160209081019084016126da565b145b979650505050505050565b806001600160801b03165f03611e90576040516335d6149760e21b815260040160405180910390fd5b5f611e9a83610cc0565b5f81815260016020818152604080842080549093019092558290528120805492935091611ed9906001600160801b03600160801b82048116911661269c565b90505f816001600160801b0316856001600160801b031610611efb5781611efd565b845b9050806001600160801b03165f03611f1757505050505050565b8254819084905f90611f339084906001600160801b031661269c565b82546001600160801b039182166101009390930a9283029190920219909116179055505f848152600260205260409020805464ffffffffff600160801b9091041615611fe25780546001600160801b0390811690831610611fa15780546001600160a81b0319168155611fe2565b8054829082905f90611fbd9084906001600160801b031661269c565b92506101000a8154816001600160801b0302191690836001600160801b031602179055505b6040516001600160801b0383168152339086907fa84286cf8ebc7903a663c77c8d99aa92b600d4c2fcca872a5d4a663db4eb394b9060200160405180910390a383546001600160801b031615801561204957508354600160801b90046001600160801b0316155b1561208757847f8d5942f197f362dfd44dfdc1b0b7a9721c9151b67f55817c83349271d3c08d378860405161207e9190612819565b60405180910390a25b6120b661209a60a0890160808a01612642565b6120a760208a018a612642565b846001600160801b0316611b4c565b50505050505050565b5f604182146120e45760405163fce698f760e01b815260048101839052602401611c48565b5f6120f26020828587612975565b6120fb9161299c565b90505f61210c604060208688612975565b6121159161299c565b90505f8585604081811061212b5761212b612827565b919091013560f81c9150506fa2a8918ca85bafe22016d0b997e4df60600160ff1b03821115612170576040516335e2f38360e21b815260048101839052602401611c48565b604080515f81526020810180835289905260ff831691810191909152606081018490526080810183905260019060a0016020604051602081039080840390855afa1580156121c0573d5f5f3e3d5ffd5b5050604051601f1901519450506001600160a01b0384166121f45760405163f645eedf60e01b815260040160405180910390fd5b5050509392505050565b5f60e0828403121561220e575f5ffd5b50919050565b80356001600160801b038116811461222a575f5ffd5b919050565b80356001600160a01b038116811461222a575f5ffd5b5f5f83601f840112612255575f5ffd5b50813567ffffffffffffffff81111561226c575f5ffd5b602083019150836020828501011115612283575f5ffd5b9250929050565b5f5f5f5f5f610140868803121561229f575f5ffd5b6122a987876121fe565b94506122b760e08701612214565b93506122c6610100870161222f565b925061012086013567ffffffffffffffff8111156122e2575f5ffd5b6122ee88828901612245565b969995985093965092949392505050565b5f5f60408385031215612310575f5ffd5b6123198361222f565b91506123276020840161222f565b90509250929050565b5f5f83601f840112612340575f5ffd5b50813567ffffffffffffffff811115612357575f5ffd5b6020830191508360208260051b8501011115612283575f5ffd5b5f5f60208385031215612382575f5ffd5b823567ffffffffffffffff811115612398575f5ffd5b6123a485828601612330565b90969095509350505050565b5f60e082840312156123c0575f5ffd5b610dd883836121fe565b5f602082840312156123da575f5ffd5b5035919050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b60ff60f81b8816815260e060208201525f61242d60e08301896123e1565b828103604084015261243f81896123e1565b606084018890526001600160a01b038716608085015260a0840186905283810360c0850152845180825260208087019350909101905f5b81811015612494578351835260209384019390920191600101612476565b50909b9a5050505050505050505050565b5f5f604083850312156124b6575f5ffd5b8235915061232760208401612214565b5f602082016020835280845180835260408501915060408160051b8601019250602086015f5b8281101561251d57603f198786030184526125088583516123e1565b945060209384019391909101906001016124ec565b50929695505050505050565b5f5f5f5f5f610140868803121561253e575f5ffd5b61254887876121fe565b945061255660e08701612214565b9350610100860135925061012086013567ffffffffffffffff8111156122e2575f5ffd5b5f5f610100838503121561258c575f5ffd5b61259684846121fe565b915061232760e08401612214565b5f5f5f606084860312156125b6575f5ffd5b83359250602084013591506125cd60408501612214565b90509250925092565b5f5f5f5f604085870312156125e9575f5ffd5b843567ffffffffffffffff8111156125ff575f5ffd5b61260b87828801612330565b909550935050602085013567ffffffffffffffff81111561262a575f5ffd5b61263687828801612245565b95989497509550505050565b5f60208284031215612652575f5ffd5b610dd88261222f565b803564ffffffffff8116811461222a575f5ffd5b5f6020828403121561267f575f5ffd5b610dd88261265b565b634e487b7160e01b5f52601160045260245ffd5b6001600160801b038281168282160390811115610cba57610cba612688565b6001600160801b038181168382160190811115610cba57610cba612688565b5f602082840312156126ea575f5ffd5b5051919050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b6001600160a01b038781168252861660208201526001600160801b03851660408201526060810184905260a0608082018190525f9061275b90830184866126f1565b98975050505050505050565b80820180821115610cba57610cba612688565b6001600160a01b0361278b8261222f565b1682526001600160a01b036127a26020830161222f565b1660208301526001600160a01b036127bc6040830161222f565b1660408301526001600160a01b036127d66060830161222f565b1660608301526001600160a01b036127f06080830161222f565b16608083015261280260a0820161265b565b64ffffffffff1660a083015260c090810135910152565b60e08101610cba828461277a565b634e487b7160e01b5f52603260045260245ffd5b5f823561013e19833603018112612850575f5ffd5b9190910192915050565b634e487b7160e01b5f52604160045260245ffd5b5f6020828403121561287e575f5ffd5b610dd882612214565b81515f90829060208501835b828110156128b1578151845260209384019390910190600101612893565b509195945050505050565b8281526101008101610dd8602083018461277a565b5f5f8335601e198436030181126128e6575f5ffd5b83018035915067ffffffffffffffff821115612900575f5ffd5b602001915036819003821315612283575f5ffd5b818382375f9101908152919050565b64ffffffffff8181168382160190811115610cba57610cba612688565b5f82518060208501845e5f920191825250919050565b5f60208284031215612966575f5ffd5b81518015158114610dd8575f5ffd5b5f5f85851115612983575f5ffd5b8386111561298f575f5ffd5b5050820193919092039150565b80356020831015610cba575f19602084900360031b1b1692915050565b838152604060208201525f6129d26040830184866126f1565b9594505050505056fe31e316d92abd0b222f7b59677a4f4b58e1204ebb8675df88823d5977361f812da2646970667358221220f71fae0ee52dae93dfe1a6d5b5e1b6de712891604d28639c2761b553713f7e7864736f6c634300081e0033",
}

// X402BatchSettlementABI is the input ABI used to generate the binding from.
// Deprecated: Use X402BatchSettlementMetaData.ABI instead.
var X402BatchSettlementABI = X402BatchSettlementMetaData.ABI

// X402BatchSettlementBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use X402BatchSettlementMetaData.Bin instead.
var X402BatchSettlementBin = X402BatchSettlementMetaData.Bin

// DeployX402BatchSettlement deploys a new Ethereum contract, binding an instance of X402BatchSettlement to it.
func DeployX402BatchSettlement(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *X402BatchSettlement, error) {
	parsed, err := X402BatchSettlementMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(X402BatchSettlementBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &X402BatchSettlement{X402BatchSettlementCaller: X402BatchSettlementCaller{contract: contract}, X402BatchSettlementTransactor: X402BatchSettlementTransactor{contract: contract}, X402BatchSettlementFilterer: X402BatchSettlementFilterer{contract: contract}}, nil
}

// X402BatchSettlement is an auto generated Go binding around an Ethereum contract.
type X402BatchSettlement struct {
	X402BatchSettlementCaller     // Read-only binding to the contract
	X402BatchSettlementTransactor // Write-only binding to the contract
	X402BatchSettlementFilterer   // Log filterer for contract events
}

// X402BatchSettlementCaller is an auto generated read-only Go binding around an Ethereum contract.
type X402BatchSettlementCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// X402BatchSettlementTransactor is an auto generated write-only Go binding around an Ethereum contract.
type X402BatchSettlementTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// X402BatchSettlementFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type X402BatchSettlementFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// X402BatchSettlementSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type X402BatchSettlementSession struct {
	Contract     *X402BatchSettlement // Generic contract binding to set the session for
	CallOpts     bind.CallOpts        // Call options to use throughout this session
	TransactOpts bind.TransactOpts    // Transaction auth options to use throughout this session
}

// X402BatchSettlementCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type X402BatchSettlementCallerSession struct {
	Contract *X402BatchSettlementCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts              // Call options to use throughout this session
}

// X402BatchSettlementTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type X402BatchSettlementTransactorSession struct {
	Contract     *X402BatchSettlementTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts              // Transaction auth options to use throughout this session
}

// X402BatchSettlementRaw is an auto generated low-level Go binding around an Ethereum contract.
type X402BatchSettlementRaw struct {
	Contract *X402BatchSettlement // Generic contract binding to access the raw methods on
}

// X402BatchSettlementCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type X402BatchSettlementCallerRaw struct {
	Contract *X402BatchSettlementCaller // Generic read-only contract binding to access the raw methods on
}

// X402BatchSettlementTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type X402BatchSettlementTransactorRaw struct {
	Contract *X402BatchSettlementTransactor // Generic write-only contract binding to access the raw methods on
}

// NewX402BatchSettlement creates a new instance of X402BatchSettlement, bound to a specific deployed contract.
func NewX402BatchSettlement(address common.Address, backend bind.ContractBackend) (*X402BatchSettlement, error) {
	contract, err := bindX402BatchSettlement(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlement{X402BatchSettlementCaller: X402BatchSettlementCaller{contract: contract}, X402BatchSettlementTransactor: X402BatchSettlementTransactor{contract: contract}, X402BatchSettlementFilterer: X402BatchSettlementFilterer{contract: contract}}, nil
}

// NewX402BatchSettlementCaller creates a new read-only instance of X402BatchSettlement, bound to a specific deployed contract.
func NewX402BatchSettlementCaller(address common.Address, caller bind.ContractCaller) (*X402BatchSettlementCaller, error) {
	contract, err := bindX402BatchSettlement(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementCaller{contract: contract}, nil
}

// NewX402BatchSettlementTransactor creates a new write-only instance of X402BatchSettlement, bound to a specific deployed contract.
func NewX402BatchSettlementTransactor(address common.Address, transactor bind.ContractTransactor) (*X402BatchSettlementTransactor, error) {
	contract, err := bindX402BatchSettlement(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementTransactor{contract: contract}, nil
}

// NewX402BatchSettlementFilterer creates a new log filterer instance of X402BatchSettlement, bound to a specific deployed contract.
func NewX402BatchSettlementFilterer(address common.Address, filterer bind.ContractFilterer) (*X402BatchSettlementFilterer, error) {
	contract, err := bindX402BatchSettlement(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementFilterer{contract: contract}, nil
}

// bindX402BatchSettlement binds a generic wrapper to an already deployed contract.
func bindX402BatchSettlement(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := X402BatchSettlementMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_X402BatchSettlement *X402BatchSettlementRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _X402BatchSettlement.Contract.X402BatchSettlementCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_X402BatchSettlement *X402BatchSettlementRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.X402BatchSettlementTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_X402BatchSettlement *X402BatchSettlementRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.X402BatchSettlementTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_X402BatchSettlement *X402BatchSettlementCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _X402BatchSettlement.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_X402BatchSettlement *X402BatchSettlementTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_X402BatchSettlement *X402BatchSettlementTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.contract.Transact(opts, method, params...)
}

// CHANNELCONFIGTYPEHASH is a free data retrieval call binding the contract method 0x8e4a68ac.
//
// Solidity: function CHANNEL_CONFIG_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCaller) CHANNELCONFIGTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "CHANNEL_CONFIG_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// CHANNELCONFIGTYPEHASH is a free data retrieval call binding the contract method 0x8e4a68ac.
//
// Solidity: function CHANNEL_CONFIG_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementSession) CHANNELCONFIGTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.CHANNELCONFIGTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// CHANNELCONFIGTYPEHASH is a free data retrieval call binding the contract method 0x8e4a68ac.
//
// Solidity: function CHANNEL_CONFIG_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) CHANNELCONFIGTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.CHANNELCONFIGTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// CLAIMBATCHTYPEHASH is a free data retrieval call binding the contract method 0x53ab0fae.
//
// Solidity: function CLAIM_BATCH_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCaller) CLAIMBATCHTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "CLAIM_BATCH_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// CLAIMBATCHTYPEHASH is a free data retrieval call binding the contract method 0x53ab0fae.
//
// Solidity: function CLAIM_BATCH_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementSession) CLAIMBATCHTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.CLAIMBATCHTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// CLAIMBATCHTYPEHASH is a free data retrieval call binding the contract method 0x53ab0fae.
//
// Solidity: function CLAIM_BATCH_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) CLAIMBATCHTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.CLAIMBATCHTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// CLAIMENTRYTYPEHASH is a free data retrieval call binding the contract method 0xba94ec0d.
//
// Solidity: function CLAIM_ENTRY_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCaller) CLAIMENTRYTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "CLAIM_ENTRY_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// CLAIMENTRYTYPEHASH is a free data retrieval call binding the contract method 0xba94ec0d.
//
// Solidity: function CLAIM_ENTRY_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementSession) CLAIMENTRYTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.CLAIMENTRYTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// CLAIMENTRYTYPEHASH is a free data retrieval call binding the contract method 0xba94ec0d.
//
// Solidity: function CLAIM_ENTRY_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) CLAIMENTRYTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.CLAIMENTRYTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// MAXWITHDRAWDELAY is a free data retrieval call binding the contract method 0x1fc3277d.
//
// Solidity: function MAX_WITHDRAW_DELAY() view returns(uint40)
func (_X402BatchSettlement *X402BatchSettlementCaller) MAXWITHDRAWDELAY(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "MAX_WITHDRAW_DELAY")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// MAXWITHDRAWDELAY is a free data retrieval call binding the contract method 0x1fc3277d.
//
// Solidity: function MAX_WITHDRAW_DELAY() view returns(uint40)
func (_X402BatchSettlement *X402BatchSettlementSession) MAXWITHDRAWDELAY() (*big.Int, error) {
	return _X402BatchSettlement.Contract.MAXWITHDRAWDELAY(&_X402BatchSettlement.CallOpts)
}

// MAXWITHDRAWDELAY is a free data retrieval call binding the contract method 0x1fc3277d.
//
// Solidity: function MAX_WITHDRAW_DELAY() view returns(uint40)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) MAXWITHDRAWDELAY() (*big.Int, error) {
	return _X402BatchSettlement.Contract.MAXWITHDRAWDELAY(&_X402BatchSettlement.CallOpts)
}

// MINWITHDRAWDELAY is a free data retrieval call binding the contract method 0xae159439.
//
// Solidity: function MIN_WITHDRAW_DELAY() view returns(uint40)
func (_X402BatchSettlement *X402BatchSettlementCaller) MINWITHDRAWDELAY(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "MIN_WITHDRAW_DELAY")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// MINWITHDRAWDELAY is a free data retrieval call binding the contract method 0xae159439.
//
// Solidity: function MIN_WITHDRAW_DELAY() view returns(uint40)
func (_X402BatchSettlement *X402BatchSettlementSession) MINWITHDRAWDELAY() (*big.Int, error) {
	return _X402BatchSettlement.Contract.MINWITHDRAWDELAY(&_X402BatchSettlement.CallOpts)
}

// MINWITHDRAWDELAY is a free data retrieval call binding the contract method 0xae159439.
//
// Solidity: function MIN_WITHDRAW_DELAY() view returns(uint40)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) MINWITHDRAWDELAY() (*big.Int, error) {
	return _X402BatchSettlement.Contract.MINWITHDRAWDELAY(&_X402BatchSettlement.CallOpts)
}

// REFUNDTYPEHASH is a free data retrieval call binding the contract method 0x1e69ef40.
//
// Solidity: function REFUND_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCaller) REFUNDTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "REFUND_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// REFUNDTYPEHASH is a free data retrieval call binding the contract method 0x1e69ef40.
//
// Solidity: function REFUND_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementSession) REFUNDTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.REFUNDTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// REFUNDTYPEHASH is a free data retrieval call binding the contract method 0x1e69ef40.
//
// Solidity: function REFUND_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) REFUNDTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.REFUNDTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// VOUCHERTYPEHASH is a free data retrieval call binding the contract method 0x94739e87.
//
// Solidity: function VOUCHER_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCaller) VOUCHERTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "VOUCHER_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// VOUCHERTYPEHASH is a free data retrieval call binding the contract method 0x94739e87.
//
// Solidity: function VOUCHER_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementSession) VOUCHERTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.VOUCHERTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// VOUCHERTYPEHASH is a free data retrieval call binding the contract method 0x94739e87.
//
// Solidity: function VOUCHER_TYPEHASH() view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) VOUCHERTYPEHASH() ([32]byte, error) {
	return _X402BatchSettlement.Contract.VOUCHERTYPEHASH(&_X402BatchSettlement.CallOpts)
}

// Channels is a free data retrieval call binding the contract method 0x7a7ebd7b.
//
// Solidity: function channels(bytes32 channelId) view returns(uint128 balance, uint128 totalClaimed)
func (_X402BatchSettlement *X402BatchSettlementCaller) Channels(opts *bind.CallOpts, channelId [32]byte) (struct {
	Balance      *big.Int
	TotalClaimed *big.Int
}, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "channels", channelId)

	outstruct := new(struct {
		Balance      *big.Int
		TotalClaimed *big.Int
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Balance = *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)
	outstruct.TotalClaimed = *abi.ConvertType(out[1], new(*big.Int)).(**big.Int)

	return *outstruct, err

}

// Channels is a free data retrieval call binding the contract method 0x7a7ebd7b.
//
// Solidity: function channels(bytes32 channelId) view returns(uint128 balance, uint128 totalClaimed)
func (_X402BatchSettlement *X402BatchSettlementSession) Channels(channelId [32]byte) (struct {
	Balance      *big.Int
	TotalClaimed *big.Int
}, error) {
	return _X402BatchSettlement.Contract.Channels(&_X402BatchSettlement.CallOpts, channelId)
}

// Channels is a free data retrieval call binding the contract method 0x7a7ebd7b.
//
// Solidity: function channels(bytes32 channelId) view returns(uint128 balance, uint128 totalClaimed)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) Channels(channelId [32]byte) (struct {
	Balance      *big.Int
	TotalClaimed *big.Int
}, error) {
	return _X402BatchSettlement.Contract.Channels(&_X402BatchSettlement.CallOpts, channelId)
}

// Eip712Domain is a free data retrieval call binding the contract method 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (_X402BatchSettlement *X402BatchSettlementCaller) Eip712Domain(opts *bind.CallOpts) (struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "eip712Domain")

	outstruct := new(struct {
		Fields            [1]byte
		Name              string
		Version           string
		ChainId           *big.Int
		VerifyingContract common.Address
		Salt              [32]byte
		Extensions        []*big.Int
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Fields = *abi.ConvertType(out[0], new([1]byte)).(*[1]byte)
	outstruct.Name = *abi.ConvertType(out[1], new(string)).(*string)
	outstruct.Version = *abi.ConvertType(out[2], new(string)).(*string)
	outstruct.ChainId = *abi.ConvertType(out[3], new(*big.Int)).(**big.Int)
	outstruct.VerifyingContract = *abi.ConvertType(out[4], new(common.Address)).(*common.Address)
	outstruct.Salt = *abi.ConvertType(out[5], new([32]byte)).(*[32]byte)
	outstruct.Extensions = *abi.ConvertType(out[6], new([]*big.Int)).(*[]*big.Int)

	return *outstruct, err

}

// Eip712Domain is a free data retrieval call binding the contract method 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (_X402BatchSettlement *X402BatchSettlementSession) Eip712Domain() (struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}, error) {
	return _X402BatchSettlement.Contract.Eip712Domain(&_X402BatchSettlement.CallOpts)
}

// Eip712Domain is a free data retrieval call binding the contract method 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) Eip712Domain() (struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}, error) {
	return _X402BatchSettlement.Contract.Eip712Domain(&_X402BatchSettlement.CallOpts)
}

// GetChannelId is a free data retrieval call binding the contract method 0x5e5e0b87.
//
// Solidity: function getChannelId((address,address,address,address,address,uint40,bytes32) config) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCaller) GetChannelId(opts *bind.CallOpts, config X402BatchSettlementChannelConfig) ([32]byte, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "getChannelId", config)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// GetChannelId is a free data retrieval call binding the contract method 0x5e5e0b87.
//
// Solidity: function getChannelId((address,address,address,address,address,uint40,bytes32) config) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementSession) GetChannelId(config X402BatchSettlementChannelConfig) ([32]byte, error) {
	return _X402BatchSettlement.Contract.GetChannelId(&_X402BatchSettlement.CallOpts, config)
}

// GetChannelId is a free data retrieval call binding the contract method 0x5e5e0b87.
//
// Solidity: function getChannelId((address,address,address,address,address,uint40,bytes32) config) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) GetChannelId(config X402BatchSettlementChannelConfig) ([32]byte, error) {
	return _X402BatchSettlement.Contract.GetChannelId(&_X402BatchSettlement.CallOpts, config)
}

// GetClaimBatchDigest is a free data retrieval call binding the contract method 0x488ccc3b.
//
// Solidity: function getClaimBatchDigest((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCaller) GetClaimBatchDigest(opts *bind.CallOpts, voucherClaims []X402BatchSettlementVoucherClaim) ([32]byte, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "getClaimBatchDigest", voucherClaims)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// GetClaimBatchDigest is a free data retrieval call binding the contract method 0x488ccc3b.
//
// Solidity: function getClaimBatchDigest((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementSession) GetClaimBatchDigest(voucherClaims []X402BatchSettlementVoucherClaim) ([32]byte, error) {
	return _X402BatchSettlement.Contract.GetClaimBatchDigest(&_X402BatchSettlement.CallOpts, voucherClaims)
}

// GetClaimBatchDigest is a free data retrieval call binding the contract method 0x488ccc3b.
//
// Solidity: function getClaimBatchDigest((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) GetClaimBatchDigest(voucherClaims []X402BatchSettlementVoucherClaim) ([32]byte, error) {
	return _X402BatchSettlement.Contract.GetClaimBatchDigest(&_X402BatchSettlement.CallOpts, voucherClaims)
}

// GetRefundDigest is a free data retrieval call binding the contract method 0xe25cf189.
//
// Solidity: function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCaller) GetRefundDigest(opts *bind.CallOpts, channelId [32]byte, nonce *big.Int, amount *big.Int) ([32]byte, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "getRefundDigest", channelId, nonce, amount)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// GetRefundDigest is a free data retrieval call binding the contract method 0xe25cf189.
//
// Solidity: function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementSession) GetRefundDigest(channelId [32]byte, nonce *big.Int, amount *big.Int) ([32]byte, error) {
	return _X402BatchSettlement.Contract.GetRefundDigest(&_X402BatchSettlement.CallOpts, channelId, nonce, amount)
}

// GetRefundDigest is a free data retrieval call binding the contract method 0xe25cf189.
//
// Solidity: function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) GetRefundDigest(channelId [32]byte, nonce *big.Int, amount *big.Int) ([32]byte, error) {
	return _X402BatchSettlement.Contract.GetRefundDigest(&_X402BatchSettlement.CallOpts, channelId, nonce, amount)
}

// GetVoucherDigest is a free data retrieval call binding the contract method 0x862bb199.
//
// Solidity: function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCaller) GetVoucherDigest(opts *bind.CallOpts, channelId [32]byte, maxClaimableAmount *big.Int) ([32]byte, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "getVoucherDigest", channelId, maxClaimableAmount)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// GetVoucherDigest is a free data retrieval call binding the contract method 0x862bb199.
//
// Solidity: function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementSession) GetVoucherDigest(channelId [32]byte, maxClaimableAmount *big.Int) ([32]byte, error) {
	return _X402BatchSettlement.Contract.GetVoucherDigest(&_X402BatchSettlement.CallOpts, channelId, maxClaimableAmount)
}

// GetVoucherDigest is a free data retrieval call binding the contract method 0x862bb199.
//
// Solidity: function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) view returns(bytes32)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) GetVoucherDigest(channelId [32]byte, maxClaimableAmount *big.Int) ([32]byte, error) {
	return _X402BatchSettlement.Contract.GetVoucherDigest(&_X402BatchSettlement.CallOpts, channelId, maxClaimableAmount)
}

// PendingWithdrawals is a free data retrieval call binding the contract method 0xb7f06ebe.
//
// Solidity: function pendingWithdrawals(bytes32 channelId) view returns(uint128 amount, uint40 initiatedAt)
func (_X402BatchSettlement *X402BatchSettlementCaller) PendingWithdrawals(opts *bind.CallOpts, channelId [32]byte) (struct {
	Amount      *big.Int
	InitiatedAt *big.Int
}, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "pendingWithdrawals", channelId)

	outstruct := new(struct {
		Amount      *big.Int
		InitiatedAt *big.Int
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Amount = *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)
	outstruct.InitiatedAt = *abi.ConvertType(out[1], new(*big.Int)).(**big.Int)

	return *outstruct, err

}

// PendingWithdrawals is a free data retrieval call binding the contract method 0xb7f06ebe.
//
// Solidity: function pendingWithdrawals(bytes32 channelId) view returns(uint128 amount, uint40 initiatedAt)
func (_X402BatchSettlement *X402BatchSettlementSession) PendingWithdrawals(channelId [32]byte) (struct {
	Amount      *big.Int
	InitiatedAt *big.Int
}, error) {
	return _X402BatchSettlement.Contract.PendingWithdrawals(&_X402BatchSettlement.CallOpts, channelId)
}

// PendingWithdrawals is a free data retrieval call binding the contract method 0xb7f06ebe.
//
// Solidity: function pendingWithdrawals(bytes32 channelId) view returns(uint128 amount, uint40 initiatedAt)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) PendingWithdrawals(channelId [32]byte) (struct {
	Amount      *big.Int
	InitiatedAt *big.Int
}, error) {
	return _X402BatchSettlement.Contract.PendingWithdrawals(&_X402BatchSettlement.CallOpts, channelId)
}

// Receivers is a free data retrieval call binding the contract method 0x21ff6389.
//
// Solidity: function receivers(address receiver, address token) view returns(uint128 totalClaimed, uint128 totalSettled)
func (_X402BatchSettlement *X402BatchSettlementCaller) Receivers(opts *bind.CallOpts, receiver common.Address, token common.Address) (struct {
	TotalClaimed *big.Int
	TotalSettled *big.Int
}, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "receivers", receiver, token)

	outstruct := new(struct {
		TotalClaimed *big.Int
		TotalSettled *big.Int
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.TotalClaimed = *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)
	outstruct.TotalSettled = *abi.ConvertType(out[1], new(*big.Int)).(**big.Int)

	return *outstruct, err

}

// Receivers is a free data retrieval call binding the contract method 0x21ff6389.
//
// Solidity: function receivers(address receiver, address token) view returns(uint128 totalClaimed, uint128 totalSettled)
func (_X402BatchSettlement *X402BatchSettlementSession) Receivers(receiver common.Address, token common.Address) (struct {
	TotalClaimed *big.Int
	TotalSettled *big.Int
}, error) {
	return _X402BatchSettlement.Contract.Receivers(&_X402BatchSettlement.CallOpts, receiver, token)
}

// Receivers is a free data retrieval call binding the contract method 0x21ff6389.
//
// Solidity: function receivers(address receiver, address token) view returns(uint128 totalClaimed, uint128 totalSettled)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) Receivers(receiver common.Address, token common.Address) (struct {
	TotalClaimed *big.Int
	TotalSettled *big.Int
}, error) {
	return _X402BatchSettlement.Contract.Receivers(&_X402BatchSettlement.CallOpts, receiver, token)
}

// RefundNonce is a free data retrieval call binding the contract method 0xf0dc792e.
//
// Solidity: function refundNonce(bytes32 channelId) view returns(uint256)
func (_X402BatchSettlement *X402BatchSettlementCaller) RefundNonce(opts *bind.CallOpts, channelId [32]byte) (*big.Int, error) {
	var out []interface{}
	err := _X402BatchSettlement.contract.Call(opts, &out, "refundNonce", channelId)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// RefundNonce is a free data retrieval call binding the contract method 0xf0dc792e.
//
// Solidity: function refundNonce(bytes32 channelId) view returns(uint256)
func (_X402BatchSettlement *X402BatchSettlementSession) RefundNonce(channelId [32]byte) (*big.Int, error) {
	return _X402BatchSettlement.Contract.RefundNonce(&_X402BatchSettlement.CallOpts, channelId)
}

// RefundNonce is a free data retrieval call binding the contract method 0xf0dc792e.
//
// Solidity: function refundNonce(bytes32 channelId) view returns(uint256)
func (_X402BatchSettlement *X402BatchSettlementCallerSession) RefundNonce(channelId [32]byte) (*big.Int, error) {
	return _X402BatchSettlement.Contract.RefundNonce(&_X402BatchSettlement.CallOpts, channelId)
}

// Claim is a paid mutator transaction binding the contract method 0x29237b0c.
//
// Solidity: function claim((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactor) Claim(opts *bind.TransactOpts, voucherClaims []X402BatchSettlementVoucherClaim) (*types.Transaction, error) {
	return _X402BatchSettlement.contract.Transact(opts, "claim", voucherClaims)
}

// Claim is a paid mutator transaction binding the contract method 0x29237b0c.
//
// Solidity: function claim((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) returns()
func (_X402BatchSettlement *X402BatchSettlementSession) Claim(voucherClaims []X402BatchSettlementVoucherClaim) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Claim(&_X402BatchSettlement.TransactOpts, voucherClaims)
}

// Claim is a paid mutator transaction binding the contract method 0x29237b0c.
//
// Solidity: function claim((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactorSession) Claim(voucherClaims []X402BatchSettlementVoucherClaim) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Claim(&_X402BatchSettlement.TransactOpts, voucherClaims)
}

// ClaimWithSignature is a paid mutator transaction binding the contract method 0xe43ce1f2.
//
// Solidity: function claimWithSignature((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims, bytes authorizerSignature) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactor) ClaimWithSignature(opts *bind.TransactOpts, voucherClaims []X402BatchSettlementVoucherClaim, authorizerSignature []byte) (*types.Transaction, error) {
	return _X402BatchSettlement.contract.Transact(opts, "claimWithSignature", voucherClaims, authorizerSignature)
}

// ClaimWithSignature is a paid mutator transaction binding the contract method 0xe43ce1f2.
//
// Solidity: function claimWithSignature((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims, bytes authorizerSignature) returns()
func (_X402BatchSettlement *X402BatchSettlementSession) ClaimWithSignature(voucherClaims []X402BatchSettlementVoucherClaim, authorizerSignature []byte) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.ClaimWithSignature(&_X402BatchSettlement.TransactOpts, voucherClaims, authorizerSignature)
}

// ClaimWithSignature is a paid mutator transaction binding the contract method 0xe43ce1f2.
//
// Solidity: function claimWithSignature((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims, bytes authorizerSignature) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactorSession) ClaimWithSignature(voucherClaims []X402BatchSettlementVoucherClaim, authorizerSignature []byte) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.ClaimWithSignature(&_X402BatchSettlement.TransactOpts, voucherClaims, authorizerSignature)
}

// Deposit is a paid mutator transaction binding the contract method 0x140f1e75.
//
// Solidity: function deposit((address,address,address,address,address,uint40,bytes32) config, uint128 amount, address collector, bytes collectorData) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactor) Deposit(opts *bind.TransactOpts, config X402BatchSettlementChannelConfig, amount *big.Int, collector common.Address, collectorData []byte) (*types.Transaction, error) {
	return _X402BatchSettlement.contract.Transact(opts, "deposit", config, amount, collector, collectorData)
}

// Deposit is a paid mutator transaction binding the contract method 0x140f1e75.
//
// Solidity: function deposit((address,address,address,address,address,uint40,bytes32) config, uint128 amount, address collector, bytes collectorData) returns()
func (_X402BatchSettlement *X402BatchSettlementSession) Deposit(config X402BatchSettlementChannelConfig, amount *big.Int, collector common.Address, collectorData []byte) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Deposit(&_X402BatchSettlement.TransactOpts, config, amount, collector, collectorData)
}

// Deposit is a paid mutator transaction binding the contract method 0x140f1e75.
//
// Solidity: function deposit((address,address,address,address,address,uint40,bytes32) config, uint128 amount, address collector, bytes collectorData) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactorSession) Deposit(config X402BatchSettlementChannelConfig, amount *big.Int, collector common.Address, collectorData []byte) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Deposit(&_X402BatchSettlement.TransactOpts, config, amount, collector, collectorData)
}

// FinalizeWithdraw is a paid mutator transaction binding the contract method 0xe88377b1.
//
// Solidity: function finalizeWithdraw((address,address,address,address,address,uint40,bytes32) config) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactor) FinalizeWithdraw(opts *bind.TransactOpts, config X402BatchSettlementChannelConfig) (*types.Transaction, error) {
	return _X402BatchSettlement.contract.Transact(opts, "finalizeWithdraw", config)
}

// FinalizeWithdraw is a paid mutator transaction binding the contract method 0xe88377b1.
//
// Solidity: function finalizeWithdraw((address,address,address,address,address,uint40,bytes32) config) returns()
func (_X402BatchSettlement *X402BatchSettlementSession) FinalizeWithdraw(config X402BatchSettlementChannelConfig) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.FinalizeWithdraw(&_X402BatchSettlement.TransactOpts, config)
}

// FinalizeWithdraw is a paid mutator transaction binding the contract method 0xe88377b1.
//
// Solidity: function finalizeWithdraw((address,address,address,address,address,uint40,bytes32) config) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactorSession) FinalizeWithdraw(config X402BatchSettlementChannelConfig) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.FinalizeWithdraw(&_X402BatchSettlement.TransactOpts, config)
}

// InitiateWithdraw is a paid mutator transaction binding the contract method 0xcf5cf3dc.
//
// Solidity: function initiateWithdraw((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactor) InitiateWithdraw(opts *bind.TransactOpts, config X402BatchSettlementChannelConfig, amount *big.Int) (*types.Transaction, error) {
	return _X402BatchSettlement.contract.Transact(opts, "initiateWithdraw", config, amount)
}

// InitiateWithdraw is a paid mutator transaction binding the contract method 0xcf5cf3dc.
//
// Solidity: function initiateWithdraw((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (_X402BatchSettlement *X402BatchSettlementSession) InitiateWithdraw(config X402BatchSettlementChannelConfig, amount *big.Int) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.InitiateWithdraw(&_X402BatchSettlement.TransactOpts, config, amount)
}

// InitiateWithdraw is a paid mutator transaction binding the contract method 0xcf5cf3dc.
//
// Solidity: function initiateWithdraw((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactorSession) InitiateWithdraw(config X402BatchSettlementChannelConfig, amount *big.Int) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.InitiateWithdraw(&_X402BatchSettlement.TransactOpts, config, amount)
}

// Multicall is a paid mutator transaction binding the contract method 0xac9650d8.
//
// Solidity: function multicall(bytes[] data) returns(bytes[] results)
func (_X402BatchSettlement *X402BatchSettlementTransactor) Multicall(opts *bind.TransactOpts, data [][]byte) (*types.Transaction, error) {
	return _X402BatchSettlement.contract.Transact(opts, "multicall", data)
}

// Multicall is a paid mutator transaction binding the contract method 0xac9650d8.
//
// Solidity: function multicall(bytes[] data) returns(bytes[] results)
func (_X402BatchSettlement *X402BatchSettlementSession) Multicall(data [][]byte) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Multicall(&_X402BatchSettlement.TransactOpts, data)
}

// Multicall is a paid mutator transaction binding the contract method 0xac9650d8.
//
// Solidity: function multicall(bytes[] data) returns(bytes[] results)
func (_X402BatchSettlement *X402BatchSettlementTransactorSession) Multicall(data [][]byte) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Multicall(&_X402BatchSettlement.TransactOpts, data)
}

// Refund is a paid mutator transaction binding the contract method 0xdce4bfae.
//
// Solidity: function refund((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactor) Refund(opts *bind.TransactOpts, config X402BatchSettlementChannelConfig, amount *big.Int) (*types.Transaction, error) {
	return _X402BatchSettlement.contract.Transact(opts, "refund", config, amount)
}

// Refund is a paid mutator transaction binding the contract method 0xdce4bfae.
//
// Solidity: function refund((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (_X402BatchSettlement *X402BatchSettlementSession) Refund(config X402BatchSettlementChannelConfig, amount *big.Int) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Refund(&_X402BatchSettlement.TransactOpts, config, amount)
}

// Refund is a paid mutator transaction binding the contract method 0xdce4bfae.
//
// Solidity: function refund((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactorSession) Refund(config X402BatchSettlementChannelConfig, amount *big.Int) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Refund(&_X402BatchSettlement.TransactOpts, config, amount)
}

// RefundWithSignature is a paid mutator transaction binding the contract method 0xb77433e9.
//
// Solidity: function refundWithSignature((address,address,address,address,address,uint40,bytes32) config, uint128 amount, uint256 nonce, bytes receiverAuthorizerSignature) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactor) RefundWithSignature(opts *bind.TransactOpts, config X402BatchSettlementChannelConfig, amount *big.Int, nonce *big.Int, receiverAuthorizerSignature []byte) (*types.Transaction, error) {
	return _X402BatchSettlement.contract.Transact(opts, "refundWithSignature", config, amount, nonce, receiverAuthorizerSignature)
}

// RefundWithSignature is a paid mutator transaction binding the contract method 0xb77433e9.
//
// Solidity: function refundWithSignature((address,address,address,address,address,uint40,bytes32) config, uint128 amount, uint256 nonce, bytes receiverAuthorizerSignature) returns()
func (_X402BatchSettlement *X402BatchSettlementSession) RefundWithSignature(config X402BatchSettlementChannelConfig, amount *big.Int, nonce *big.Int, receiverAuthorizerSignature []byte) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.RefundWithSignature(&_X402BatchSettlement.TransactOpts, config, amount, nonce, receiverAuthorizerSignature)
}

// RefundWithSignature is a paid mutator transaction binding the contract method 0xb77433e9.
//
// Solidity: function refundWithSignature((address,address,address,address,address,uint40,bytes32) config, uint128 amount, uint256 nonce, bytes receiverAuthorizerSignature) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactorSession) RefundWithSignature(config X402BatchSettlementChannelConfig, amount *big.Int, nonce *big.Int, receiverAuthorizerSignature []byte) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.RefundWithSignature(&_X402BatchSettlement.TransactOpts, config, amount, nonce, receiverAuthorizerSignature)
}

// Settle is a paid mutator transaction binding the contract method 0x9db32a8f.
//
// Solidity: function settle(address receiver, address token) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactor) Settle(opts *bind.TransactOpts, receiver common.Address, token common.Address) (*types.Transaction, error) {
	return _X402BatchSettlement.contract.Transact(opts, "settle", receiver, token)
}

// Settle is a paid mutator transaction binding the contract method 0x9db32a8f.
//
// Solidity: function settle(address receiver, address token) returns()
func (_X402BatchSettlement *X402BatchSettlementSession) Settle(receiver common.Address, token common.Address) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Settle(&_X402BatchSettlement.TransactOpts, receiver, token)
}

// Settle is a paid mutator transaction binding the contract method 0x9db32a8f.
//
// Solidity: function settle(address receiver, address token) returns()
func (_X402BatchSettlement *X402BatchSettlementTransactorSession) Settle(receiver common.Address, token common.Address) (*types.Transaction, error) {
	return _X402BatchSettlement.Contract.Settle(&_X402BatchSettlement.TransactOpts, receiver, token)
}

// X402BatchSettlementChannelClosedIterator is returned from FilterChannelClosed and is used to iterate over the raw logs and unpacked data for ChannelClosed events raised by the X402BatchSettlement contract.
type X402BatchSettlementChannelClosedIterator struct {
	Event *X402BatchSettlementChannelClosed // Event containing the contract specifics and raw log

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
func (it *X402BatchSettlementChannelClosedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402BatchSettlementChannelClosed)
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
		it.Event = new(X402BatchSettlementChannelClosed)
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
func (it *X402BatchSettlementChannelClosedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402BatchSettlementChannelClosedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402BatchSettlementChannelClosed represents a ChannelClosed event raised by the X402BatchSettlement contract.
type X402BatchSettlementChannelClosed struct {
	ChannelId [32]byte
	Config    X402BatchSettlementChannelConfig
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterChannelClosed is a free log retrieval operation binding the contract event 0x8d5942f197f362dfd44dfdc1b0b7a9721c9151b67f55817c83349271d3c08d37.
//
// Solidity: event ChannelClosed(bytes32 indexed channelId, (address,address,address,address,address,uint40,bytes32) config)
func (_X402BatchSettlement *X402BatchSettlementFilterer) FilterChannelClosed(opts *bind.FilterOpts, channelId [][32]byte) (*X402BatchSettlementChannelClosedIterator, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.FilterLogs(opts, "ChannelClosed", channelIdRule)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementChannelClosedIterator{contract: _X402BatchSettlement.contract, event: "ChannelClosed", logs: logs, sub: sub}, nil
}

// WatchChannelClosed is a free log subscription operation binding the contract event 0x8d5942f197f362dfd44dfdc1b0b7a9721c9151b67f55817c83349271d3c08d37.
//
// Solidity: event ChannelClosed(bytes32 indexed channelId, (address,address,address,address,address,uint40,bytes32) config)
func (_X402BatchSettlement *X402BatchSettlementFilterer) WatchChannelClosed(opts *bind.WatchOpts, sink chan<- *X402BatchSettlementChannelClosed, channelId [][32]byte) (event.Subscription, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.WatchLogs(opts, "ChannelClosed", channelIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402BatchSettlementChannelClosed)
				if err := _X402BatchSettlement.contract.UnpackLog(event, "ChannelClosed", log); err != nil {
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

// ParseChannelClosed is a log parse operation binding the contract event 0x8d5942f197f362dfd44dfdc1b0b7a9721c9151b67f55817c83349271d3c08d37.
//
// Solidity: event ChannelClosed(bytes32 indexed channelId, (address,address,address,address,address,uint40,bytes32) config)
func (_X402BatchSettlement *X402BatchSettlementFilterer) ParseChannelClosed(log types.Log) (*X402BatchSettlementChannelClosed, error) {
	event := new(X402BatchSettlementChannelClosed)
	if err := _X402BatchSettlement.contract.UnpackLog(event, "ChannelClosed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402BatchSettlementChannelCreatedIterator is returned from FilterChannelCreated and is used to iterate over the raw logs and unpacked data for ChannelCreated events raised by the X402BatchSettlement contract.
type X402BatchSettlementChannelCreatedIterator struct {
	Event *X402BatchSettlementChannelCreated // Event containing the contract specifics and raw log

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
func (it *X402BatchSettlementChannelCreatedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402BatchSettlementChannelCreated)
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
		it.Event = new(X402BatchSettlementChannelCreated)
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
func (it *X402BatchSettlementChannelCreatedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402BatchSettlementChannelCreatedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402BatchSettlementChannelCreated represents a ChannelCreated event raised by the X402BatchSettlement contract.
type X402BatchSettlementChannelCreated struct {
	ChannelId [32]byte
	Config    X402BatchSettlementChannelConfig
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterChannelCreated is a free log retrieval operation binding the contract event 0x69d8248d5566bdb2ebc4d218970710d8378a2ff9b709a999e052b71970f808fa.
//
// Solidity: event ChannelCreated(bytes32 indexed channelId, (address,address,address,address,address,uint40,bytes32) config)
func (_X402BatchSettlement *X402BatchSettlementFilterer) FilterChannelCreated(opts *bind.FilterOpts, channelId [][32]byte) (*X402BatchSettlementChannelCreatedIterator, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.FilterLogs(opts, "ChannelCreated", channelIdRule)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementChannelCreatedIterator{contract: _X402BatchSettlement.contract, event: "ChannelCreated", logs: logs, sub: sub}, nil
}

// WatchChannelCreated is a free log subscription operation binding the contract event 0x69d8248d5566bdb2ebc4d218970710d8378a2ff9b709a999e052b71970f808fa.
//
// Solidity: event ChannelCreated(bytes32 indexed channelId, (address,address,address,address,address,uint40,bytes32) config)
func (_X402BatchSettlement *X402BatchSettlementFilterer) WatchChannelCreated(opts *bind.WatchOpts, sink chan<- *X402BatchSettlementChannelCreated, channelId [][32]byte) (event.Subscription, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.WatchLogs(opts, "ChannelCreated", channelIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402BatchSettlementChannelCreated)
				if err := _X402BatchSettlement.contract.UnpackLog(event, "ChannelCreated", log); err != nil {
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

// ParseChannelCreated is a log parse operation binding the contract event 0x69d8248d5566bdb2ebc4d218970710d8378a2ff9b709a999e052b71970f808fa.
//
// Solidity: event ChannelCreated(bytes32 indexed channelId, (address,address,address,address,address,uint40,bytes32) config)
func (_X402BatchSettlement *X402BatchSettlementFilterer) ParseChannelCreated(log types.Log) (*X402BatchSettlementChannelCreated, error) {
	event := new(X402BatchSettlementChannelCreated)
	if err := _X402BatchSettlement.contract.UnpackLog(event, "ChannelCreated", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402BatchSettlementClaimedIterator is returned from FilterClaimed and is used to iterate over the raw logs and unpacked data for Claimed events raised by the X402BatchSettlement contract.
type X402BatchSettlementClaimedIterator struct {
	Event *X402BatchSettlementClaimed // Event containing the contract specifics and raw log

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
func (it *X402BatchSettlementClaimedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402BatchSettlementClaimed)
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
		it.Event = new(X402BatchSettlementClaimed)
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
func (it *X402BatchSettlementClaimedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402BatchSettlementClaimedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402BatchSettlementClaimed represents a Claimed event raised by the X402BatchSettlement contract.
type X402BatchSettlementClaimed struct {
	ChannelId       [32]byte
	Sender          common.Address
	ClaimAmount     *big.Int
	NewTotalClaimed *big.Int
	Raw             types.Log // Blockchain specific contextual infos
}

// FilterClaimed is a free log retrieval operation binding the contract event 0x36bd546bb573e8921fdbfd934bbed62d872796b01792cd240cce27f79dd3eddd.
//
// Solidity: event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed)
func (_X402BatchSettlement *X402BatchSettlementFilterer) FilterClaimed(opts *bind.FilterOpts, channelId [][32]byte, sender []common.Address) (*X402BatchSettlementClaimedIterator, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.FilterLogs(opts, "Claimed", channelIdRule, senderRule)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementClaimedIterator{contract: _X402BatchSettlement.contract, event: "Claimed", logs: logs, sub: sub}, nil
}

// WatchClaimed is a free log subscription operation binding the contract event 0x36bd546bb573e8921fdbfd934bbed62d872796b01792cd240cce27f79dd3eddd.
//
// Solidity: event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed)
func (_X402BatchSettlement *X402BatchSettlementFilterer) WatchClaimed(opts *bind.WatchOpts, sink chan<- *X402BatchSettlementClaimed, channelId [][32]byte, sender []common.Address) (event.Subscription, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.WatchLogs(opts, "Claimed", channelIdRule, senderRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402BatchSettlementClaimed)
				if err := _X402BatchSettlement.contract.UnpackLog(event, "Claimed", log); err != nil {
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

// ParseClaimed is a log parse operation binding the contract event 0x36bd546bb573e8921fdbfd934bbed62d872796b01792cd240cce27f79dd3eddd.
//
// Solidity: event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed)
func (_X402BatchSettlement *X402BatchSettlementFilterer) ParseClaimed(log types.Log) (*X402BatchSettlementClaimed, error) {
	event := new(X402BatchSettlementClaimed)
	if err := _X402BatchSettlement.contract.UnpackLog(event, "Claimed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402BatchSettlementDepositedIterator is returned from FilterDeposited and is used to iterate over the raw logs and unpacked data for Deposited events raised by the X402BatchSettlement contract.
type X402BatchSettlementDepositedIterator struct {
	Event *X402BatchSettlementDeposited // Event containing the contract specifics and raw log

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
func (it *X402BatchSettlementDepositedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402BatchSettlementDeposited)
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
		it.Event = new(X402BatchSettlementDeposited)
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
func (it *X402BatchSettlementDepositedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402BatchSettlementDepositedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402BatchSettlementDeposited represents a Deposited event raised by the X402BatchSettlement contract.
type X402BatchSettlementDeposited struct {
	ChannelId  [32]byte
	Sender     common.Address
	Amount     *big.Int
	NewBalance *big.Int
	Raw        types.Log // Blockchain specific contextual infos
}

// FilterDeposited is a free log retrieval operation binding the contract event 0x6c2a09353b5e75e70d0b9778b80a413809bb235d46c211811c474b3346791d89.
//
// Solidity: event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance)
func (_X402BatchSettlement *X402BatchSettlementFilterer) FilterDeposited(opts *bind.FilterOpts, channelId [][32]byte, sender []common.Address) (*X402BatchSettlementDepositedIterator, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.FilterLogs(opts, "Deposited", channelIdRule, senderRule)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementDepositedIterator{contract: _X402BatchSettlement.contract, event: "Deposited", logs: logs, sub: sub}, nil
}

// WatchDeposited is a free log subscription operation binding the contract event 0x6c2a09353b5e75e70d0b9778b80a413809bb235d46c211811c474b3346791d89.
//
// Solidity: event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance)
func (_X402BatchSettlement *X402BatchSettlementFilterer) WatchDeposited(opts *bind.WatchOpts, sink chan<- *X402BatchSettlementDeposited, channelId [][32]byte, sender []common.Address) (event.Subscription, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.WatchLogs(opts, "Deposited", channelIdRule, senderRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402BatchSettlementDeposited)
				if err := _X402BatchSettlement.contract.UnpackLog(event, "Deposited", log); err != nil {
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

// ParseDeposited is a log parse operation binding the contract event 0x6c2a09353b5e75e70d0b9778b80a413809bb235d46c211811c474b3346791d89.
//
// Solidity: event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance)
func (_X402BatchSettlement *X402BatchSettlementFilterer) ParseDeposited(log types.Log) (*X402BatchSettlementDeposited, error) {
	event := new(X402BatchSettlementDeposited)
	if err := _X402BatchSettlement.contract.UnpackLog(event, "Deposited", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402BatchSettlementEIP712DomainChangedIterator is returned from FilterEIP712DomainChanged and is used to iterate over the raw logs and unpacked data for EIP712DomainChanged events raised by the X402BatchSettlement contract.
type X402BatchSettlementEIP712DomainChangedIterator struct {
	Event *X402BatchSettlementEIP712DomainChanged // Event containing the contract specifics and raw log

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
func (it *X402BatchSettlementEIP712DomainChangedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402BatchSettlementEIP712DomainChanged)
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
		it.Event = new(X402BatchSettlementEIP712DomainChanged)
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
func (it *X402BatchSettlementEIP712DomainChangedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402BatchSettlementEIP712DomainChangedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402BatchSettlementEIP712DomainChanged represents a EIP712DomainChanged event raised by the X402BatchSettlement contract.
type X402BatchSettlementEIP712DomainChanged struct {
	Raw types.Log // Blockchain specific contextual infos
}

// FilterEIP712DomainChanged is a free log retrieval operation binding the contract event 0x0a6387c9ea3628b88a633bb4f3b151770f70085117a15f9bf3787cda53f13d31.
//
// Solidity: event EIP712DomainChanged()
func (_X402BatchSettlement *X402BatchSettlementFilterer) FilterEIP712DomainChanged(opts *bind.FilterOpts) (*X402BatchSettlementEIP712DomainChangedIterator, error) {

	logs, sub, err := _X402BatchSettlement.contract.FilterLogs(opts, "EIP712DomainChanged")
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementEIP712DomainChangedIterator{contract: _X402BatchSettlement.contract, event: "EIP712DomainChanged", logs: logs, sub: sub}, nil
}

// WatchEIP712DomainChanged is a free log subscription operation binding the contract event 0x0a6387c9ea3628b88a633bb4f3b151770f70085117a15f9bf3787cda53f13d31.
//
// Solidity: event EIP712DomainChanged()
func (_X402BatchSettlement *X402BatchSettlementFilterer) WatchEIP712DomainChanged(opts *bind.WatchOpts, sink chan<- *X402BatchSettlementEIP712DomainChanged) (event.Subscription, error) {

	logs, sub, err := _X402BatchSettlement.contract.WatchLogs(opts, "EIP712DomainChanged")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402BatchSettlementEIP712DomainChanged)
				if err := _X402BatchSettlement.contract.UnpackLog(event, "EIP712DomainChanged", log); err != nil {
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

// ParseEIP712DomainChanged is a log parse operation binding the contract event 0x0a6387c9ea3628b88a633bb4f3b151770f70085117a15f9bf3787cda53f13d31.
//
// Solidity: event EIP712DomainChanged()
func (_X402BatchSettlement *X402BatchSettlementFilterer) ParseEIP712DomainChanged(log types.Log) (*X402BatchSettlementEIP712DomainChanged, error) {
	event := new(X402BatchSettlementEIP712DomainChanged)
	if err := _X402BatchSettlement.contract.UnpackLog(event, "EIP712DomainChanged", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402BatchSettlementRefundedIterator is returned from FilterRefunded and is used to iterate over the raw logs and unpacked data for Refunded events raised by the X402BatchSettlement contract.
type X402BatchSettlementRefundedIterator struct {
	Event *X402BatchSettlementRefunded // Event containing the contract specifics and raw log

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
func (it *X402BatchSettlementRefundedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402BatchSettlementRefunded)
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
		it.Event = new(X402BatchSettlementRefunded)
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
func (it *X402BatchSettlementRefundedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402BatchSettlementRefundedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402BatchSettlementRefunded represents a Refunded event raised by the X402BatchSettlement contract.
type X402BatchSettlementRefunded struct {
	ChannelId [32]byte
	Sender    common.Address
	Amount    *big.Int
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterRefunded is a free log retrieval operation binding the contract event 0xa84286cf8ebc7903a663c77c8d99aa92b600d4c2fcca872a5d4a663db4eb394b.
//
// Solidity: event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount)
func (_X402BatchSettlement *X402BatchSettlementFilterer) FilterRefunded(opts *bind.FilterOpts, channelId [][32]byte, sender []common.Address) (*X402BatchSettlementRefundedIterator, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.FilterLogs(opts, "Refunded", channelIdRule, senderRule)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementRefundedIterator{contract: _X402BatchSettlement.contract, event: "Refunded", logs: logs, sub: sub}, nil
}

// WatchRefunded is a free log subscription operation binding the contract event 0xa84286cf8ebc7903a663c77c8d99aa92b600d4c2fcca872a5d4a663db4eb394b.
//
// Solidity: event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount)
func (_X402BatchSettlement *X402BatchSettlementFilterer) WatchRefunded(opts *bind.WatchOpts, sink chan<- *X402BatchSettlementRefunded, channelId [][32]byte, sender []common.Address) (event.Subscription, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.WatchLogs(opts, "Refunded", channelIdRule, senderRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402BatchSettlementRefunded)
				if err := _X402BatchSettlement.contract.UnpackLog(event, "Refunded", log); err != nil {
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

// ParseRefunded is a log parse operation binding the contract event 0xa84286cf8ebc7903a663c77c8d99aa92b600d4c2fcca872a5d4a663db4eb394b.
//
// Solidity: event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount)
func (_X402BatchSettlement *X402BatchSettlementFilterer) ParseRefunded(log types.Log) (*X402BatchSettlementRefunded, error) {
	event := new(X402BatchSettlementRefunded)
	if err := _X402BatchSettlement.contract.UnpackLog(event, "Refunded", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402BatchSettlementSettledIterator is returned from FilterSettled and is used to iterate over the raw logs and unpacked data for Settled events raised by the X402BatchSettlement contract.
type X402BatchSettlementSettledIterator struct {
	Event *X402BatchSettlementSettled // Event containing the contract specifics and raw log

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
func (it *X402BatchSettlementSettledIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402BatchSettlementSettled)
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
		it.Event = new(X402BatchSettlementSettled)
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
func (it *X402BatchSettlementSettledIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402BatchSettlementSettledIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402BatchSettlementSettled represents a Settled event raised by the X402BatchSettlement contract.
type X402BatchSettlementSettled struct {
	Receiver common.Address
	Token    common.Address
	Sender   common.Address
	Amount   *big.Int
	Raw      types.Log // Blockchain specific contextual infos
}

// FilterSettled is a free log retrieval operation binding the contract event 0x7337b4386b690fdb8ba66905b92b9d45d33bc6626ee2620c905fb150ec0cc47d.
//
// Solidity: event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount)
func (_X402BatchSettlement *X402BatchSettlementFilterer) FilterSettled(opts *bind.FilterOpts, receiver []common.Address, token []common.Address, sender []common.Address) (*X402BatchSettlementSettledIterator, error) {

	var receiverRule []interface{}
	for _, receiverItem := range receiver {
		receiverRule = append(receiverRule, receiverItem)
	}
	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.FilterLogs(opts, "Settled", receiverRule, tokenRule, senderRule)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementSettledIterator{contract: _X402BatchSettlement.contract, event: "Settled", logs: logs, sub: sub}, nil
}

// WatchSettled is a free log subscription operation binding the contract event 0x7337b4386b690fdb8ba66905b92b9d45d33bc6626ee2620c905fb150ec0cc47d.
//
// Solidity: event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount)
func (_X402BatchSettlement *X402BatchSettlementFilterer) WatchSettled(opts *bind.WatchOpts, sink chan<- *X402BatchSettlementSettled, receiver []common.Address, token []common.Address, sender []common.Address) (event.Subscription, error) {

	var receiverRule []interface{}
	for _, receiverItem := range receiver {
		receiverRule = append(receiverRule, receiverItem)
	}
	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.WatchLogs(opts, "Settled", receiverRule, tokenRule, senderRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402BatchSettlementSettled)
				if err := _X402BatchSettlement.contract.UnpackLog(event, "Settled", log); err != nil {
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

// ParseSettled is a log parse operation binding the contract event 0x7337b4386b690fdb8ba66905b92b9d45d33bc6626ee2620c905fb150ec0cc47d.
//
// Solidity: event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount)
func (_X402BatchSettlement *X402BatchSettlementFilterer) ParseSettled(log types.Log) (*X402BatchSettlementSettled, error) {
	event := new(X402BatchSettlementSettled)
	if err := _X402BatchSettlement.contract.UnpackLog(event, "Settled", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402BatchSettlementWithdrawFinalizedIterator is returned from FilterWithdrawFinalized and is used to iterate over the raw logs and unpacked data for WithdrawFinalized events raised by the X402BatchSettlement contract.
type X402BatchSettlementWithdrawFinalizedIterator struct {
	Event *X402BatchSettlementWithdrawFinalized // Event containing the contract specifics and raw log

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
func (it *X402BatchSettlementWithdrawFinalizedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402BatchSettlementWithdrawFinalized)
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
		it.Event = new(X402BatchSettlementWithdrawFinalized)
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
func (it *X402BatchSettlementWithdrawFinalizedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402BatchSettlementWithdrawFinalizedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402BatchSettlementWithdrawFinalized represents a WithdrawFinalized event raised by the X402BatchSettlement contract.
type X402BatchSettlementWithdrawFinalized struct {
	ChannelId [32]byte
	Sender    common.Address
	Amount    *big.Int
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterWithdrawFinalized is a free log retrieval operation binding the contract event 0x546ce1e2242cd930c196bd08b894443562d709b4fffe4f028a75a6d233efc6e3.
//
// Solidity: event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount)
func (_X402BatchSettlement *X402BatchSettlementFilterer) FilterWithdrawFinalized(opts *bind.FilterOpts, channelId [][32]byte, sender []common.Address) (*X402BatchSettlementWithdrawFinalizedIterator, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.FilterLogs(opts, "WithdrawFinalized", channelIdRule, senderRule)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementWithdrawFinalizedIterator{contract: _X402BatchSettlement.contract, event: "WithdrawFinalized", logs: logs, sub: sub}, nil
}

// WatchWithdrawFinalized is a free log subscription operation binding the contract event 0x546ce1e2242cd930c196bd08b894443562d709b4fffe4f028a75a6d233efc6e3.
//
// Solidity: event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount)
func (_X402BatchSettlement *X402BatchSettlementFilterer) WatchWithdrawFinalized(opts *bind.WatchOpts, sink chan<- *X402BatchSettlementWithdrawFinalized, channelId [][32]byte, sender []common.Address) (event.Subscription, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}
	var senderRule []interface{}
	for _, senderItem := range sender {
		senderRule = append(senderRule, senderItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.WatchLogs(opts, "WithdrawFinalized", channelIdRule, senderRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402BatchSettlementWithdrawFinalized)
				if err := _X402BatchSettlement.contract.UnpackLog(event, "WithdrawFinalized", log); err != nil {
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

// ParseWithdrawFinalized is a log parse operation binding the contract event 0x546ce1e2242cd930c196bd08b894443562d709b4fffe4f028a75a6d233efc6e3.
//
// Solidity: event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount)
func (_X402BatchSettlement *X402BatchSettlementFilterer) ParseWithdrawFinalized(log types.Log) (*X402BatchSettlementWithdrawFinalized, error) {
	event := new(X402BatchSettlementWithdrawFinalized)
	if err := _X402BatchSettlement.contract.UnpackLog(event, "WithdrawFinalized", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// X402BatchSettlementWithdrawInitiatedIterator is returned from FilterWithdrawInitiated and is used to iterate over the raw logs and unpacked data for WithdrawInitiated events raised by the X402BatchSettlement contract.
type X402BatchSettlementWithdrawInitiatedIterator struct {
	Event *X402BatchSettlementWithdrawInitiated // Event containing the contract specifics and raw log

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
func (it *X402BatchSettlementWithdrawInitiatedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(X402BatchSettlementWithdrawInitiated)
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
		it.Event = new(X402BatchSettlementWithdrawInitiated)
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
func (it *X402BatchSettlementWithdrawInitiatedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *X402BatchSettlementWithdrawInitiatedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// X402BatchSettlementWithdrawInitiated represents a WithdrawInitiated event raised by the X402BatchSettlement contract.
type X402BatchSettlementWithdrawInitiated struct {
	ChannelId     [32]byte
	Amount        *big.Int
	FinalizeAfter *big.Int
	Raw           types.Log // Blockchain specific contextual infos
}

// FilterWithdrawInitiated is a free log retrieval operation binding the contract event 0xe4280d0d903c7f258f62b07c62f262377cbaa23f7791d78126e6446e0f0e3c23.
//
// Solidity: event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter)
func (_X402BatchSettlement *X402BatchSettlementFilterer) FilterWithdrawInitiated(opts *bind.FilterOpts, channelId [][32]byte) (*X402BatchSettlementWithdrawInitiatedIterator, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.FilterLogs(opts, "WithdrawInitiated", channelIdRule)
	if err != nil {
		return nil, err
	}
	return &X402BatchSettlementWithdrawInitiatedIterator{contract: _X402BatchSettlement.contract, event: "WithdrawInitiated", logs: logs, sub: sub}, nil
}

// WatchWithdrawInitiated is a free log subscription operation binding the contract event 0xe4280d0d903c7f258f62b07c62f262377cbaa23f7791d78126e6446e0f0e3c23.
//
// Solidity: event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter)
func (_X402BatchSettlement *X402BatchSettlementFilterer) WatchWithdrawInitiated(opts *bind.WatchOpts, sink chan<- *X402BatchSettlementWithdrawInitiated, channelId [][32]byte) (event.Subscription, error) {

	var channelIdRule []interface{}
	for _, channelIdItem := range channelId {
		channelIdRule = append(channelIdRule, channelIdItem)
	}

	logs, sub, err := _X402BatchSettlement.contract.WatchLogs(opts, "WithdrawInitiated", channelIdRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(X402BatchSettlementWithdrawInitiated)
				if err := _X402BatchSettlement.contract.UnpackLog(event, "WithdrawInitiated", log); err != nil {
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

// ParseWithdrawInitiated is a log parse operation binding the contract event 0xe4280d0d903c7f258f62b07c62f262377cbaa23f7791d78126e6446e0f0e3c23.
//
// Solidity: event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter)
func (_X402BatchSettlement *X402BatchSettlementFilterer) ParseWithdrawInitiated(log types.Log) (*X402BatchSettlementWithdrawInitiated, error) {
	event := new(X402BatchSettlementWithdrawInitiated)
	if err := _X402BatchSettlement.contract.UnpackLog(event, "WithdrawInitiated", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
