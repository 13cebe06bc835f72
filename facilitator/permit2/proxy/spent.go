package proxy

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
)

// permit2Spent is the engine's Spent for upto payments. Permit2 marks a
// nonce used in nonceBitmap(owner, nonce >> 8) (bit nonce & 0xff) and
// logs nothing of it on a witness transfer (UnorderedNonceInvalidation is
// only for invalidateUnorderedNonces), and the proxy's Settled() has no
// arguments; so the transaction that used a nonce is found from the
// token's Transfer logs out of the payer, each transaction read back
// (MatchUse: an upto settle of that owner and nonce).
type permit2Spent struct {
	permit2.Spent
	proxy permit2.Proxy
}

var (
	_ engine.Spent      = permit2Spent{}
	_ engine.UseMatcher = permit2Spent{}
)

// MatchUse reports whether a transaction is an upto settle through the
// proxy of the payer's nonce.
func (s permit2Spent) MatchUse(payer common.Address, nonce [32]byte, to *common.Address, input []byte) bool {
	if to == nil || *to != s.proxy.Address() {
		return false
	}
	a, _, ok := settleArgs(s.proxy, input)
	return ok && a.From == payer && permit2.NonceBytes(a.Nonce) == nonce && a.Token == s.Token
}

// settleArgs reads a proxy's settle calldata back: the authorization and
// the amount moved (exact: the whole permitted amount).
func settleArgs(p permit2.Proxy, input []byte) (*permit2.Authorization, *big.Int, bool) {
	if a, amount, ok := permit2.SettleWithPermitArgs(p, input); ok {
		return a, amount, true
	}
	if p == permit2.UptoProxy {
		a, amount, _, ok := permit2.UptoSettleArgs(input)
		return a, amount, ok
	}
	a, _, ok := permit2.ExactSettleArgs(input)
	if !ok {
		return nil, nil, false
	}
	return a, a.Amount, true
}

// Recognize reads an upto settle through the proxy back (look-ups after
// the journal's retention): the owner, witness.to and the amount moved.
func (b *bound) Recognize(to common.Address, input []byte) (from, payee common.Address, value *big.Int, ok bool) {
	if to != b.proxy.Address() {
		return common.Address{}, common.Address{}, nil, false
	}
	a, amount, ok := settleArgs(b.proxy, input)
	if !ok || a.Token != b.Token {
		return common.Address{}, common.Address{}, nil, false
	}
	return a.From, a.To, amount, true
}
