package facilitator

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
)

// tokenABI is the part of an EIP-3009 (FiatToken-style) token the
// facilitator calls. The v, r, s form of transferWithAuthorization is in
// every FiatTokenV2 version, so it is the one submitted.
const tokenABIJSON = `[
 {"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
 {"type":"function","name":"version","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
 {"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"account","type":"address"}],"outputs":[{"type":"uint256"}]},
 {"type":"function","name":"authorizationState","stateMutability":"view","inputs":[{"name":"authorizer","type":"address"},{"name":"nonce","type":"bytes32"}],"outputs":[{"type":"bool"}]},
 {"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[
  {"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},
  {"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},
  {"name":"v","type":"uint8"},{"name":"r","type":"bytes32"},{"name":"s","type":"bytes32"}],"outputs":[]}
]`

var tokenABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(tokenABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// transferCalldata encodes transferWithAuthorization for a payment.
func transferCalldata(p *Payment) ([]byte, error) {
	a := &p.Authorization
	sig := p.Signature
	v := sig[64]
	if v < 27 {
		v += 27
	}
	var r, s [32]byte
	copy(r[:], sig[:32])
	copy(s[:], sig[32:64])
	return tokenABI.Pack("transferWithAuthorization", a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, r, s)
}

// callArgs is the eth_call / eth_estimateGas argument object.
type callArgs struct {
	From common.Address `json:"from"`
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

func viewCall(token common.Address, method string, args ...any) (rpc.BatchElem, *hexutil.Bytes) {
	data, err := tokenABI.Pack(method, args...)
	if err != nil {
		panic(err) // the arguments are typed by the callers
	}
	out := new(hexutil.Bytes)
	return rpc.BatchElem{
		Method: "eth_call",
		Args:   []any{callArgs{To: token, Data: data}, "latest"},
		Result: out,
	}, out
}

// chainState is what one batched round trip tells about a payment.
type chainState struct {
	used       bool
	balance    *big.Int
	simulation error // the simulated transfer's revert, if any
}

// batchChecks are the three reads of verify: authorizationState,
// balanceOf and the simulated transfer from the facilitator's signer.
type batchChecks struct {
	elems   []rpc.BatchElem
	used    *hexutil.Bytes
	balance *hexutil.Bytes
}

func newBatchChecks(token, sender common.Address, p *Payment, calldata []byte) *batchChecks {
	b := &batchChecks{}
	var usedEl, balEl rpc.BatchElem
	usedEl, b.used = viewCall(token, "authorizationState", p.Authorization.From, p.Authorization.Nonce)
	balEl, b.balance = viewCall(token, "balanceOf", p.Authorization.From)
	sim := rpc.BatchElem{
		Method: "eth_call",
		Args:   []any{callArgs{From: sender, To: token, Data: calldata}, "latest"},
		Result: new(hexutil.Bytes),
	}
	b.elems = []rpc.BatchElem{usedEl, balEl, sim}
	return b
}

// state interprets the answers. An element that failed for another reason
// than a revert is an error: the chain could not be read.
func (b *batchChecks) state() (*chainState, error) {
	st := &chainState{}
	if err := b.elems[0].Error; err != nil {
		return nil, fmt.Errorf("authorizationState: %w", err)
	}
	used, err := tokenABI.Unpack("authorizationState", *b.used)
	if err != nil {
		return nil, fmt.Errorf("authorizationState: %w", err)
	}
	st.used = used[0].(bool)
	if err := b.elems[1].Error; err != nil {
		return nil, fmt.Errorf("balanceOf: %w", err)
	}
	bal, err := tokenABI.Unpack("balanceOf", *b.balance)
	if err != nil {
		return nil, fmt.Errorf("balanceOf: %w", err)
	}
	st.balance = bal[0].(*big.Int)
	st.simulation = b.elems[2].Error
	return st, nil
}

// revertReason extracts the revert reason from a JSON-RPC error answer of
// eth_call or eth_estimateGas; ok is false when err is not a revert.
func revertReason(err error) (reason string, ok bool) {
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

// Outcome kinds of a revert, independent of the verify/settle wording.
type revertKind int

const (
	revertOther revertKind = iota
	revertUsed
	revertExpired
	revertNotYetValid
	revertSignature
	revertBalance
)

// classifyRevert maps FiatToken-style revert reasons to their kind.
func classifyRevert(reason string) revertKind {
	r := strings.ToLower(reason)
	switch {
	case strings.Contains(r, "authorization is used"), strings.Contains(r, "authorization is used or canceled"):
		return revertUsed
	case strings.Contains(r, "authorization is expired"):
		return revertExpired
	case strings.Contains(r, "authorization is not yet valid"):
		return revertNotYetValid
	case strings.Contains(r, "invalid signature"):
		return revertSignature
	case strings.Contains(r, "transfer amount exceeds balance"):
		return revertBalance
	}
	return revertOther
}

// verifyTextForRevert is the verify invalidReason for a simulation revert.
func verifyTextForRevert(reason string) string {
	switch classifyRevert(reason) {
	case revertUsed:
		return ErrTextAlreadyUsed
	case revertExpired:
		return ErrTextExpired
	case revertNotYetValid:
		return ErrTextNotYetValid
	case revertSignature:
		return ReasonInvalidSignature
	case revertBalance:
		return ErrTextInsufficientFunds
	}
	return ReasonSimulationFailed(reason)
}

// settleText turns a verify reason into the settle error text: the
// signature failure has a settle wording of its own.
func settleText(verifyReason string) string {
	if verifyReason == ReasonInvalidSignature {
		return ErrTextInvalidSignature
	}
	return verifyReason
}

// readString calls a string-returning view function (name, version).
func (n *network) readString(ctx context.Context, method string) (string, error) {
	data, _ := tokenABI.Pack(method)
	var out hexutil.Bytes
	if err := n.rpc.call(ctx, &out, "eth_call", callArgs{To: n.token, Data: data}, "latest"); err != nil {
		return "", err
	}
	vals, err := tokenABI.Unpack(method, out)
	if err != nil {
		return "", fmt.Errorf("token %s did not answer %s() with a string: %w", n.token.Hex(), method, err)
	}
	return vals[0].(string), nil
}
