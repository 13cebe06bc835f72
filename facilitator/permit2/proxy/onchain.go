package proxy

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// reads are the on-chain reads of an upto payment, in one batch: the
// head's number, Permit2's nonceBitmap word of the nonce, the payer's
// balance and allowance to Permit2, and the proxy's settle run as
// witness.facilitator would send it (eth_call for a verify, eth_estimateGas
// for a settle, which is the simulation too).
type reads struct {
	elems                    []rpc.BatchElem
	block                    hexutil.Uint64
	bitmap, balance, allowed *hexutil.Bytes
	gas                      hexutil.Uint64
	calldata                 []byte // the settle run, which a settle sends
}

// readsElems is the number of elements before the settle's run.
const readsElems = 4

// newReads prepares the reads of c with the settle of amount sent from
// from; estimate asks eth_estimateGas rather than eth_call.
func (b *bound) newReads(c *payment, amount *big.Int, estimate bool, from common.Address) (*reads, error) {
	var data []byte
	var err error
	switch {
	case c.permit != nil:
		data, err = permit2.SettleWithPermitCalldata(b.proxy, c.permit, c.a, amount, c.sig)
	case b.upto():
		data, err = permit2.UptoSettleCalldata(c.a, amount, c.sig)
	default:
		data, err = permit2.ExactSettleCalldata(c.a, c.sig)
	}
	if err != nil {
		return nil, err
	}
	r := &reads{calldata: data}
	var bitmapEl, balEl, allowEl rpc.BatchElem
	bitmapEl, r.bitmap = permit2.NonceBitmapCall(c.a.From, c.nonce, 0)
	balEl, r.balance = evm.ViewCall(b.Token, "balanceOf", c.a.From)
	allowEl, r.allowed = permit2.AllowanceCall(b.Token, c.a.From)
	call := evm.CallArgs{From: from, To: b.proxy.Address(), Data: data}
	run := rpc.BatchElem{Method: "eth_call", Args: []any{call, "latest"}, Result: new(hexutil.Bytes)}
	if estimate {
		run = rpc.BatchElem{Method: "eth_estimateGas", Args: []any{call}, Result: &r.gas}
	}
	r.elems = []rpc.BatchElem{{Method: "eth_blockNumber", Result: &r.block}, bitmapEl, balEl, allowEl, run}
	return r, nil
}

// state is what the reads tell.
type state struct {
	block     uint64
	used      bool
	balance   *big.Int
	allowance *big.Int
	run       error // the settle's revert, if any
}

// state reads the answers; an element that failed for another reason than
// the settle's revert is an error: the chain could not be read.
func (r *reads) state(elems []rpc.BatchElem, nonce [32]byte) (*state, error) {
	for _, el := range elems[:readsElems] {
		if el.Error != nil {
			return nil, fmt.Errorf("%s: %w", el.Method, el.Error)
		}
	}
	st := &state{block: uint64(r.block), run: elems[readsElems].Error}
	var err error
	if st.used, err = permit2.NonceUsed(*r.bitmap, nonce); err != nil {
		return nil, err
	}
	if st.balance, err = permit2.ReadUint256("allowance", *r.balance); err != nil { // balanceOf and allowance both answer one uint256
		return nil, err
	}
	if st.allowance, err = permit2.ReadUint256("allowance", *r.allowed); err != nil {
		return nil, err
	}
	return st, nil
}

// reason is the verdict of the reads for a payment of at most max, in the
// upto spec's order: the nonce, the allowance to Permit2 (unless the
// payment brings its EIP-2612 permit), the balance, then the simulated
// settle. An error is a settle run that failed for another reason than a
// revert: no verdict.
func (b *bound) reason(st *state, c *payment, max *big.Int) (string, error) {
	switch {
	case st.used:
		return x402.ErrTextAlreadyUsed, nil
	case st.allowance.Cmp(max) < 0 && c.permit == nil:
		return x402.ReasonPermit2AllowanceRequired, nil
	case st.balance.Cmp(max) < 0:
		return x402.ErrTextInsufficientFunds, nil
	case st.run == nil:
		return "", nil
	}
	name, ok := permit2.RevertName(st.run)
	if !ok {
		return "", scheme.Unavailable("the node of network "+b.Cfg.Name+" could not simulate the settle; try again shortly", st.run)
	}
	switch name {
	case "InvalidNonce":
		return x402.ErrTextAlreadyUsed, nil
	case "SignatureExpired":
		return x402.ReasonPermit2Expired, nil
	case "PaymentTooEarly":
		return x402.ReasonPermit2NotYetValid, nil
	case "InvalidSignature", "InvalidSigner", "InvalidSignatureLength", "InvalidContractSignature":
		return x402.ReasonPermit2Signature, nil
	case "TRANSFER_FROM_FAILED":
		// Permit2 does not pass the token's reason on: the allowance (an
		// EIP-2612 permit that did not take) or the balance.
		if st.allowance.Cmp(max) < 0 {
			return x402.ReasonPermit2AllowanceRequired, nil
		}
		return x402.ErrTextInsufficientFunds, nil
	}
	return x402.ReasonSimulationFailed(name), nil
}

// check reads the chain for c at amount and decides, in one batch shared
// with the other requests of the moment.
func (b *bound) check(ctx context.Context, c *payment, amount *big.Int) (string, *state, error) {
	r, err := b.newReads(c, amount, false, b.sender(c))
	if err != nil {
		return "", nil, scheme.BadRequest("the payment cannot be encoded as a settle: %v", err)
	}
	if err := b.Pool.BatchShared(ctx, r.elems); err != nil {
		b.env.Logger.Warn("upto on-chain checks failed: RPC unreachable", zap.String("network", b.Cfg.Name), zap.Error(err))
		return "", nil, scheme.Unavailable("cannot reach the chain of network "+b.Cfg.Name+" to check the payment; try again shortly", err)
	}
	st, err := r.state(r.elems, c.nonce)
	if err != nil {
		return "", nil, scheme.Unavailable("the chain of network "+b.Cfg.Name+" gave an unreadable answer; try again shortly", err)
	}
	reason, err := b.reason(st, c, c.a.Amount)
	return reason, st, err
}

// sender is who sends a payment's settle: upto's witness.facilitator;
// for exact through Permit2 (anyone may settle it) the network's first
// signer, as exact simulates.
func (b *bound) sender(c *payment) common.Address {
	if b.upto() {
		return c.a.Facilitator
	}
	return b.SimulationSender()
}

// Verify checks that the amount is the maximum and, unless the network
// skips on-chain checks, the nonce, the allowance to Permit2, the balance
// and the settle simulated at the maximum.
func (b *bound) Verify(ctx context.Context, sp scheme.Payment) (string, error) {
	c := sp.(*payment)
	if reason := atMaximum(c); reason != "" {
		return reason, nil
	}
	if b.Cfg.SkipOnchainVerify {
		return "", nil
	}
	reason, _, err := b.check(ctx, c, c.a.Amount)
	return reason, err
}
