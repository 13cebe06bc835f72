package upto

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// permit2Spent is the engine's Spent for upto payments. Permit2 marks a
// nonce used in nonceBitmap(owner, nonce >> 8) (bit nonce & 0xff) and
// logs nothing of it on a witness transfer (UnorderedNonceInvalidation is
// only for invalidateUnorderedNonces), and the proxy's Settled() has no
// arguments; so the transaction that used a nonce is found from the
// token's Transfer logs out of the payer, each transaction read back
// (MatchUse: an upto settle of that owner and nonce).
type permit2Spent struct {
	token common.Address
	proxy evm.Permit2Proxy
}

var (
	_ engine.Spent       = permit2Spent{}
	_ engine.UseMatcher  = permit2Spent{}
	_ engine.NonceSpacer = permit2Spent{}
)

// NonceSpace is Permit2's: a Permit2 nonce is another authorization than
// the same EIP-3009 nonce of the payer (engine.NonceSpacer).
func (permit2Spent) NonceSpace() string { return engine.NonceSpacePermit2 }

// transferTopic is ERC-20's Transfer(address,address,uint256).
var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// UsedCalls reads nonceBitmap(payer, wordPos) of each nonce at block (0:
// the latest).
func (s permit2Spent) UsedCalls(block uint64, payer common.Address, nonces [][32]byte) ([]rpc.BatchElem, func() ([]bool, error)) {
	elems := make([]rpc.BatchElem, len(nonces))
	outs := make([]*hexutil.Bytes, len(nonces))
	for i, n := range nonces {
		elems[i], outs[i] = evm.NonceBitmapCall(payer, n, block)
	}
	return elems, func() ([]bool, error) {
		used := make([]bool, len(nonces))
		for i, out := range outs {
			u, err := evm.NonceUsed(*out, nonces[i])
			if err != nil {
				return nil, err
			}
			used[i] = u
		}
		return used, nil
	}
}

// UseLog is the token's Transfer logs out of the payer.
func (s permit2Spent) UseLog(payer common.Address, _ [32]byte) (common.Address, []any) {
	return s.token, []any{transferTopic, common.BytesToHash(payer.Bytes())}
}

// MatchUse reports whether a transaction is an upto settle through the
// proxy of the payer's nonce.
func (s permit2Spent) MatchUse(payer common.Address, nonce [32]byte, to *common.Address, input []byte) bool {
	if to == nil || *to != s.proxy.Address() {
		return false
	}
	a, _, ok := settleArgs(s.proxy, input)
	return ok && a.From == payer && evm.NonceBytes(a.Nonce) == nonce && a.Token == s.token
}

// settleArgs reads a proxy's settle calldata back: the authorization and
// the amount moved (exact: the whole permitted amount).
func settleArgs(p evm.Permit2Proxy, input []byte) (*evm.Permit2Authorization, *big.Int, bool) {
	if a, amount, ok := evm.SettleWithPermitArgs(p, input); ok {
		return a, amount, true
	}
	if p == evm.UptoPermit2 {
		a, amount, _, ok := evm.UptoSettleArgs(input)
		return a, amount, ok
	}
	a, _, ok := evm.ExactSettleArgs(input)
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
