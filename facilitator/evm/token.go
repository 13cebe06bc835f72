package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TokenABI is the part of an EIP-3009 (FiatToken-style) token the
// facilitator calls. The v, r, s form of transferWithAuthorization is in
// every FiatTokenV2 version, so it is the one submitted for EOAs; the bytes
// form (FiatToken v2.2, "transferWithAuthorization0" in the parsed ABI) is
// submitted for smart-contract wallets.
const tokenABIJSON = `[
 {"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
 {"type":"function","name":"version","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
 {"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"type":"uint8"}]},
 {"type":"function","name":"DOMAIN_SEPARATOR","stateMutability":"view","inputs":[],"outputs":[{"type":"bytes32"}]},
 {"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"account","type":"address"}],"outputs":[{"type":"uint256"}]},
 {"type":"function","name":"authorizationState","stateMutability":"view","inputs":[{"name":"authorizer","type":"address"},{"name":"nonce","type":"bytes32"}],"outputs":[{"type":"bool"}]},
 {"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[
  {"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},
  {"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},
  {"name":"v","type":"uint8"},{"name":"r","type":"bytes32"},{"name":"s","type":"bytes32"}],"outputs":[]},
 {"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[
  {"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},
  {"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},
  {"name":"signature","type":"bytes"}],"outputs":[]}
]`

// TokenABI is the part of an EIP-3009 token the facilitator calls.
var TokenABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(tokenABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// TransferCalldata encodes transferWithAuthorization for a payment.
func TransferCalldata(a *x402.Authorization, sig []byte) ([]byte, error) {
	if len(sig) != 65 {
		return nil, errors.New("signature is not 65 bytes")
	}
	v := sig[64]
	if v < 27 {
		v += 27
	}
	var r, s [32]byte
	copy(r[:], sig[:32])
	copy(s[:], sig[32:64])
	return TokenABI.Pack("transferWithAuthorization", a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, r, s)
}

// TransferCalldataBytes encodes the bytes-signature overload of
// transferWithAuthorization (FiatToken v2.2), through which a
// smart-contract wallet's signature of any length is checked (EIP-1271).
func TransferCalldataBytes(a *x402.Authorization, sig []byte) []byte {
	data, err := TokenABI.Pack(methodTransferBytes, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, sig)
	if err != nil {
		panic(err) // every argument is of its ABI type
	}
	return data
}

// methodTransferBytes is the parsed ABI's name of the bytes overload.
const methodTransferBytes = "transferWithAuthorization0"

// CallArgs is the eth_call / eth_estimateGas argument object.
type CallArgs struct {
	From common.Address `json:"from"`
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

// ViewCall is an eth_call batch element of a token view function, and
// where its answer goes.
func ViewCall(token common.Address, method string, args ...any) (rpc.BatchElem, *hexutil.Bytes) {
	data, err := TokenABI.Pack(method, args...)
	if err != nil {
		panic(err) // the arguments are typed by the callers
	}
	out := new(hexutil.Bytes)
	return rpc.BatchElem{
		Method: "eth_call",
		Args:   []any{CallArgs{To: token, Data: data}, "latest"},
		Result: out,
	}, out
}

// ViewCallAt is ViewCall at a given block number rather than the latest.
func ViewCallAt(token common.Address, block uint64, method string, args ...any) (rpc.BatchElem, *hexutil.Bytes) {
	el, out := ViewCall(token, method, args...)
	el.Args[1] = hexutil.EncodeUint64(block)
	return el, out
}

// ChainState is what one batched round trip tells about a payment.
type ChainState struct {
	// Used is authorizationState(from, nonce).
	Used bool
	// Balance is the payer's token balance.
	Balance *big.Int
	// Simulation is the simulated transfer's error (a revert), if any.
	Simulation error
	// Block is a block number at or below the block the balance was read
	// at (eth_blockNumber, asked before balanceOf in the same batch, which
	// a node answers in order): a transfer mined at this block or before
	// is in Balance.
	Block uint64
}

// BatchChecks are the reads of verify: the head's number,
// authorizationState, balanceOf and the simulated transfer from the
// facilitator's signer.
type BatchChecks struct {
	// Elems are the batch elements: eth_blockNumber, authorizationState,
	// balanceOf and the simulated transfer, in that order (ChecksElems of
	// them without the simulation).
	Elems   []rpc.BatchElem
	block   *hexutil.Uint64
	used    *hexutil.Bytes
	balance *hexutil.Bytes
}

// ChecksElems is the number of batch elements of BatchChecks without a
// simulation.
const ChecksElems = 3

// NewBatchChecks prepares the reads of verify for an authorization, the
// transfer simulated from sender; without calldata, no simulation (a gas
// estimate simulates it too).
func NewBatchChecks(token, sender common.Address, a *x402.Authorization, calldata []byte) *BatchChecks {
	b := &BatchChecks{block: new(hexutil.Uint64)}
	var usedEl, balEl rpc.BatchElem
	usedEl, b.used = ViewCall(token, "authorizationState", a.From, a.Nonce)
	balEl, b.balance = ViewCall(token, "balanceOf", a.From)
	b.Elems = []rpc.BatchElem{{Method: "eth_blockNumber", Result: b.block}, usedEl, balEl}
	if calldata != nil {
		b.Elems = append(b.Elems, rpc.BatchElem{
			Method: "eth_call",
			Args:   []any{CallArgs{From: sender, To: token, Data: calldata}, "latest"},
			Result: new(hexutil.Bytes),
		})
	}
	return b
}

// State interprets the answers. An element that failed for another reason
// than a revert is an error: the chain could not be read.
func (b *BatchChecks) State() (*ChainState, error) {
	st := &ChainState{}
	if err := b.Elems[0].Error; err != nil {
		return nil, fmt.Errorf("eth_blockNumber: %w", err)
	}
	st.Block = uint64(*b.block)
	if err := b.Elems[1].Error; err != nil {
		return nil, fmt.Errorf("authorizationState: %w", err)
	}
	used, err := TokenABI.Unpack("authorizationState", *b.used)
	if err != nil {
		return nil, fmt.Errorf("authorizationState: %w", err)
	}
	st.Used = used[0].(bool)
	if err := b.Elems[2].Error; err != nil {
		return nil, fmt.Errorf("balanceOf: %w", err)
	}
	bal, err := TokenABI.Unpack("balanceOf", *b.balance)
	if err != nil {
		return nil, fmt.Errorf("balanceOf: %w", err)
	}
	st.Balance = bal[0].(*big.Int)
	if len(b.Elems) > ChecksElems {
		st.Simulation = b.Elems[ChecksElems].Error
	}
	return st, nil
}

// RevertReason extracts the revert reason from a JSON-RPC error answer of
// eth_call or eth_estimateGas; ok is false when err is not a revert.
func RevertReason(err error) (reason string, ok bool) {
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, isStr := de.ErrorData().(string); isStr {
			if data, derr := hexutil.Decode(s); derr == nil {
				if r, uerr := abi.UnpackRevert(data); uerr == nil {
					return r, true
				}
				return "execution reverted", true
			}
		}
	}
	msg := err.Error()
	if rest, found := strings.CutPrefix(msg, "execution reverted: "); found {
		return rest, true
	}
	if msg == "execution reverted" {
		return msg, true
	}
	return "", false
}

// RevertKind is the outcome kind of a revert, independent of the verify/settle wording.
type RevertKind int

// Revert kinds.
const (
	RevertOther RevertKind = iota
	RevertUsed
	RevertExpired
	RevertNotYetValid
	RevertSignature
	RevertBalance
)

// ClassifyRevert maps FiatToken-style revert reasons to their kind.
func ClassifyRevert(reason string) RevertKind {
	r := strings.ToLower(reason)
	switch {
	case strings.Contains(r, "authorization is used"), strings.Contains(r, "authorization is used or canceled"):
		return RevertUsed
	case strings.Contains(r, "authorization is expired"):
		return RevertExpired
	case strings.Contains(r, "authorization is not yet valid"):
		return RevertNotYetValid
	case strings.Contains(r, "invalid signature"):
		return RevertSignature
	case strings.Contains(r, "transfer amount exceeds balance"):
		return RevertBalance
	}
	return RevertOther
}

// ReadString calls a string-returning view function (name, version) of a token.
func ReadString(ctx context.Context, pool *Pool, token common.Address, method string) (string, error) {
	data, _ := TokenABI.Pack(method)
	var out hexutil.Bytes
	if err := pool.Call(ctx, &out, "eth_call", CallArgs{To: token, Data: data}, "latest"); err != nil {
		return "", err
	}
	vals, err := TokenABI.Unpack(method, out)
	if err != nil {
		return "", fmt.Errorf("token %s did not answer %s() with a string: %w", token.Hex(), method, err)
	}
	return vals[0].(string), nil
}

// ReadDomainSeparator calls the token's DOMAIN_SEPARATOR().
func ReadDomainSeparator(ctx context.Context, pool *Pool, token common.Address) (common.Hash, error) {
	data, _ := TokenABI.Pack("DOMAIN_SEPARATOR")
	var out hexutil.Bytes
	if err := pool.Call(ctx, &out, "eth_call", CallArgs{To: token, Data: data}, "latest"); err != nil {
		return common.Hash{}, err
	}
	vals, err := TokenABI.Unpack("DOMAIN_SEPARATOR", out)
	if err != nil {
		return common.Hash{}, fmt.Errorf("token %s did not answer DOMAIN_SEPARATOR() with a bytes32: %w", token.Hex(), err)
	}
	return common.Hash(vals[0].([32]byte)), nil
}

// ReadDecimals calls the token's decimals().
func ReadDecimals(ctx context.Context, pool *Pool, token common.Address) (uint8, error) {
	data, err := TokenABI.Pack("decimals")
	if err != nil {
		return 0, err
	}
	var out hexutil.Bytes
	if err := pool.Call(ctx, &out, "eth_call", CallArgs{To: token, Data: data}, "latest"); err != nil {
		return 0, err
	}
	vals, err := TokenABI.Unpack("decimals", out)
	if err != nil {
		return 0, fmt.Errorf("token %s did not answer decimals() with a uint8: %w", token.Hex(), err)
	}
	return vals[0].(uint8), nil
}
