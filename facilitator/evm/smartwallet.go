package evm

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// Smart-contract wallets: EIP-1271 signatures of deployed wallets and
// ERC-6492 signatures of wallets not deployed yet.

// ERC1271MagicValue is what isValidSignature(bytes32,bytes) answers for a
// valid signature (EIP-1271): the function's selector.
var ERC1271MagicValue = [4]byte{0x16, 0x26, 0xba, 0x7e}

// ERC6492Suffix ends an ERC-6492 signature.
var ERC6492Suffix = common.FromHex("0x6492649264926492649264926492649264926492649264926492649264926492")

// erc6492JSON is the creation code of ERC6492SigValidator and
// ERC6492Deployer (facilitator/token/ERC6492.sol), written by the token's
// gen.sh.
//
//go:embed erc6492.json
var erc6492JSON []byte

// creationContract is a contract that is only ever run as creation code.
type creationContract struct {
	code []byte
	args abi.Arguments // the constructor's
}

func (c *creationContract) data(args ...any) []byte {
	enc, err := c.args.Pack(args...)
	if err != nil {
		panic(err) // typed arguments
	}
	return append(append(make([]byte, 0, len(c.code)+len(enc)), c.code...), enc...)
}

var validatorContract, deployerContract = func() (*creationContract, *creationContract) {
	var f struct {
		Contracts map[string]struct {
			ABI      json.RawMessage `json:"abi"`
			Bytecode hexutil.Bytes   `json:"bytecode"`
		} `json:"contracts"`
	}
	if err := json.Unmarshal(erc6492JSON, &f); err != nil {
		panic(err) // embedded: a build defect
	}
	load := func(name string) *creationContract {
		c := f.Contracts[name]
		a, err := abi.JSON(bytes.NewReader(c.ABI))
		if err != nil || len(c.Bytecode) == 0 {
			panic(fmt.Sprintf("erc6492.json: %s: %v", name, err))
		}
		return &creationContract{code: c.Bytecode, args: a.Constructor.Inputs}
	}
	return load("ERC6492SigValidator"), load("ERC6492Deployer")
}()

// erc6492Args is abi.encode(address factory, bytes factoryCalldata, bytes signature).
var erc6492Args = func() abi.Arguments {
	addr, _ := abi.NewType("address", "", nil)
	b, _ := abi.NewType("bytes", "", nil)
	return abi.Arguments{{Type: addr}, {Type: b}, {Type: b}}
}()

// ERC6492 is an unwrapped ERC-6492 signature.
type ERC6492 struct {
	// Factory deploys the wallet when called with FactoryCalldata.
	Factory         common.Address
	FactoryCalldata []byte
	// Signature is the wallet's own (EIP-1271) signature.
	Signature []byte
}

// ErrERC6492 is a signature with the ERC-6492 suffix whose wrapper cannot
// be decoded.
var ErrERC6492 = errors.New("malformed ERC-6492 signature")

// ParseERC6492 unwraps an ERC-6492 signature: ok is false when sig does not
// end with the suffix; an error when it does but the rest is not
// abi.encode(address, bytes, bytes).
func ParseERC6492(sig []byte) (w *ERC6492, ok bool, err error) {
	if len(sig) < len(ERC6492Suffix) || !bytes.Equal(sig[len(sig)-len(ERC6492Suffix):], ERC6492Suffix) {
		return nil, false, nil
	}
	vals, err := erc6492Args.Unpack(sig[:len(sig)-len(ERC6492Suffix)])
	if err != nil {
		return nil, true, fmt.Errorf("%w: %w", ErrERC6492, err)
	}
	return &ERC6492{Factory: vals[0].(common.Address), FactoryCalldata: vals[1].([]byte), Signature: vals[2].([]byte)}, true, nil
}

// WrapERC6492 is the ERC-6492 signature of a wallet that factory deploys
// when called with factoryCalldata: abi.encode(factory, factoryCalldata,
// sig) followed by the suffix. Buyers sign with it before their wallet is
// deployed.
func WrapERC6492(factory common.Address, factoryCalldata, sig []byte) []byte {
	enc, err := erc6492Args.Pack(factory, factoryCalldata, sig)
	if err != nil {
		panic(err) // typed arguments
	}
	return append(enc, ERC6492Suffix...)
}

// CreateArgs are the eth_call / eth_estimateGas arguments of a contract
// creation: no recipient.
type CreateArgs struct {
	From common.Address `json:"from"`
	Data hexutil.Bytes  `json:"data"`
}

// DeployAndTransferCode is the creation code of a transaction that deploys
// w's wallet through its factory (when it has no code yet) and then runs
// transferCalldata on token, reverting as a whole with the token's reason
// when the transfer fails (ERC6492Deployer).
func DeployAndTransferCode(w *ERC6492, wallet, token common.Address, transferCalldata []byte) []byte {
	return deployerContract.data(w.Factory, w.FactoryCalldata, wallet, token, transferCalldata)
}

// WalletDeployedTopic is the topic of ERC6492Deployer's
// WalletDeployed(address indexed wallet, address indexed factory) log: the
// deploying transaction deployed the wallet (an earlier one had not).
var WalletDeployedTopic = crypto.Keccak256Hash([]byte("WalletDeployed(address,address)"))

// WalletChecks are the reads that tell whether a payer that did not sign
// by ECDSA is a smart-contract wallet that did: eth_getCode(from), then
// isValidSignature(digest, signature) on the wallet (EIP-1271) or, for an
// ERC-6492 signature, ERC6492SigValidator run in an eth_call (deploy, then
// check, in one simulation); and the wallet's ERC-1967 implementation and
// beacon slots, for its CodeIdentity.
type WalletChecks struct {
	// Elems are eth_getCode, the signature check and the two slots, in
	// that order (WalletElems of them).
	Elems        []rpc.BatchElem
	code         *hexutil.Bytes
	check        *hexutil.Bytes
	impl, beacon *common.Hash
	wrap         bool
}

// WalletElems is the number of batch elements of WalletChecks.
const WalletElems = 4

// The ERC-1967 storage slots of a proxy's implementation and beacon.
var (
	ERC1967ImplementationSlot = common.HexToHash("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc")
	ERC1967BeaconSlot         = common.HexToHash("0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50")
)

// CodeIdentity is what makes two wallets "the same code" (the
// facilitator's cooling-off of wallets whose code lied): the keccak256 of
// the code and, for an ERC-1967 proxy, whose code every proxy of its kind
// shares whatever it delegates to, of the code with its implementation and
// beacon slots. So a proxy in front of a lying implementation does not
// stand for every proxy with the same bytecode.
func CodeIdentity(code []byte, impl, beacon common.Hash) common.Hash {
	if impl == (common.Hash{}) && beacon == (common.Hash{}) {
		return crypto.Keccak256Hash(code)
	}
	return crypto.Keccak256Hash(code, impl[:], beacon[:])
}

// WalletIdentityElems are the reads of a wallet's CodeIdentity at block
// (a hex number or tag): its code and its two ERC-1967 slots.
func WalletIdentityElems(from common.Address, block string) (elems []rpc.BatchElem, identity func() (code []byte, id common.Hash, err error)) {
	code, impl, beacon := new(hexutil.Bytes), new(common.Hash), new(common.Hash)
	elems = []rpc.BatchElem{
		{Method: "eth_getCode", Args: []any{from, block}, Result: code},
		{Method: "eth_getStorageAt", Args: []any{from, ERC1967ImplementationSlot, block}, Result: impl},
		{Method: "eth_getStorageAt", Args: []any{from, ERC1967BeaconSlot, block}, Result: beacon},
	}
	return elems, func() ([]byte, common.Hash, error) {
		for _, el := range elems {
			if el.Error != nil {
				return nil, common.Hash{}, fmt.Errorf("%s: %w", el.Method, el.Error)
			}
		}
		if len(*code) == 0 {
			return nil, common.Hash{}, nil
		}
		return *code, CodeIdentity(*code, *impl, *beacon), nil
	}
}

// NewWalletChecks prepares the reads for a signature sig of from over
// digest; erc6492 says that sig is the whole ERC-6492 signature.
func NewWalletChecks(from common.Address, digest common.Hash, sig []byte, erc6492 bool) *WalletChecks {
	w := &WalletChecks{code: new(hexutil.Bytes), check: new(hexutil.Bytes), impl: new(common.Hash), beacon: new(common.Hash), wrap: erc6492}
	w.Elems = []rpc.BatchElem{{Method: "eth_getCode", Args: []any{from, "latest"}, Result: w.code}}
	if erc6492 {
		w.Elems = append(w.Elems, rpc.BatchElem{Method: "eth_call",
			Args: []any{CreateArgs{Data: validatorContract.data(from, digest, sig)}, "latest"}, Result: w.check})
	} else {
		data, err := walletABI.Pack("isValidSignature", digest, sig)
		if err != nil {
			panic(err) // typed arguments
		}
		w.Elems = append(w.Elems, rpc.BatchElem{Method: "eth_call", Args: []any{CallArgs{To: from, Data: data}, "latest"}, Result: w.check})
	}
	w.Elems = append(w.Elems,
		rpc.BatchElem{Method: "eth_getStorageAt", Args: []any{from, ERC1967ImplementationSlot, "latest"}, Result: w.impl},
		rpc.BatchElem{Method: "eth_getStorageAt", Args: []any{from, ERC1967BeaconSlot, "latest"}, Result: w.beacon})
	return w
}

// WalletState is what WalletChecks tell.
type WalletState struct {
	// Deployed is true when from has code.
	Deployed bool
	// CodeIdentity is from's CodeIdentity, when it has code.
	CodeIdentity common.Hash
	// Valid is true when the wallet (or, for ERC-6492, the simulated
	// deployment and then the wallet) accepts the signature.
	Valid bool
}

// State interprets the answers. A revert of the signature check is an
// invalid signature; another failure is an error.
func (w *WalletChecks) State() (*WalletState, error) {
	if err := w.Elems[0].Error; err != nil {
		return nil, fmt.Errorf("eth_getCode: %w", err)
	}
	st := &WalletState{Deployed: len(*w.code) > 0}
	for _, el := range w.Elems[2:] {
		if el.Error != nil {
			return nil, fmt.Errorf("eth_getStorageAt: %w", el.Error)
		}
	}
	if st.Deployed {
		st.CodeIdentity = CodeIdentity(*w.code, *w.impl, *w.beacon)
	}
	if err := w.Elems[1].Error; err != nil {
		if _, reverted := RevertReason(err); reverted {
			return st, nil
		}
		return nil, fmt.Errorf("signature check: %w", err)
	}
	out := []byte(*w.check)
	if w.wrap {
		st.Valid = len(out) == 1 && out[0] == 1
	} else {
		// bytes4 is returned left-aligned in a 32-byte word.
		st.Valid = len(out) == 32 && [4]byte(out[:4]) == ERC1271MagicValue && common.BytesToHash(out[4:]) == (common.Hash{})
	}
	return st, nil
}

var walletABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"isValidSignature","stateMutability":"view",
 "inputs":[{"name":"hash","type":"bytes32"},{"name":"signature","type":"bytes"}],"outputs":[{"type":"bytes4"}]}]`))
	if err != nil {
		panic(err)
	}
	return a
}()

// WalletVerdict is what a wallet answered about a signature of a message
// (not a payment): WalletSignature.
type WalletVerdict int

// The answers of WalletSignature.
const (
	// WalletNoCode: the address has no code (and the signature is no
	// ERC-6492 one that deploys it): it is no contract wallet.
	WalletNoCode WalletVerdict = iota
	// WalletRefused: the wallet (or, for ERC-6492, the simulated
	// deployment and then the wallet) did not accept the signature.
	WalletRefused
	// WalletAccepted: the wallet answered EIP-1271's magic value.
	WalletAccepted
)

// WalletSignature asks, in one eth_call at the latest block, whether the
// contract wallet at wallet accepts sig over hash: isValidSignature(hash,
// sig) (EIP-1271), or, for an ERC-6492 signature, ERC6492SigValidator,
// which deploys the wallet in the simulation when it has no code yet. A
// revert is a refusal; an error means the chain could not be asked.
func WalletSignature(ctx context.Context, pool *Pool, wallet common.Address, hash common.Hash, sig []byte) (WalletVerdict, error) {
	var out hexutil.Bytes
	var err error
	_, wrapped, perr := ParseERC6492(sig)
	switch {
	case perr != nil:
		return WalletRefused, nil
	case wrapped:
		err = pool.Call(ctx, &out, "eth_call", CreateArgs{Data: validatorContract.data(wallet, hash, sig)}, "latest")
	default:
		data, perr := walletABI.Pack("isValidSignature", hash, sig)
		if perr != nil {
			return WalletRefused, nil
		}
		err = pool.Call(ctx, &out, "eth_call", CallArgs{To: wallet, Data: data}, "latest")
	}
	if err != nil {
		if _, reverted := RevertReason(err); reverted {
			return WalletRefused, nil
		}
		return WalletRefused, err
	}
	switch {
	case wrapped && len(out) == 1 && out[0] == 1:
		return WalletAccepted, nil
	case wrapped:
		return WalletRefused, nil
	case len(out) == 0:
		return WalletNoCode, nil
	case len(out) == 32 && [4]byte(out[:4]) == ERC1271MagicValue && common.BytesToHash(out[4:]) == (common.Hash{}):
		return WalletAccepted, nil
	}
	return WalletRefused, nil
}
