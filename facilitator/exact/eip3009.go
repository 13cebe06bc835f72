package exact

import (
	"cmp"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// payment is a payment that passed the off-chain checks (scheme.Payment).
type payment struct {
	b        *bound
	p        *x402.Payment
	calldata []byte // transferWithAuthorization call, built on first use
	// smart is set when the signature is not the payer's ECDSA one: a
	// smart-contract wallet's, to be checked on chain (wallet.go).
	smart *walletSig
	// deploy is set by settle when the transaction deploys the payer's
	// wallet (ERC-6492) before the transfer.
	deploy bool
	// payerHeld is set while the payment holds its payer, a smart-contract
	// wallet, for its settlement (cooloff.go).
	payerHeld bool
}

// transferCalldata is the transferWithAuthorization call: the (v, r, s)
// form for an EOA's signature, the bytes form with the wallet's own
// signature for a smart-contract wallet.
func (c *payment) transferCalldata() []byte {
	if c.calldata == nil && c.smart != nil {
		c.calldata = evm.TransferCalldataBytes(&c.p.Authorization, c.smart.sig)
	}
	if c.calldata == nil {
		var err error
		if c.calldata, err = evm.TransferCalldata(&c.p.Authorization, c.p.Signature); err != nil {
			panic(err) // every argument was parsed into its ABI type
		}
	}
	return c.calldata
}

// Payer, Nonce and Value are the authorization's (scheme.Payment).
func (c *payment) Payer() common.Address { return c.p.Authorization.From }
func (c *payment) Nonce() [32]byte       { return c.p.Authorization.Nonce }
func (c *payment) Value() *big.Int       { return c.p.Authorization.Value }

// sameAddress compares two hex addresses case-insensitively.
func sameAddress(a string, b common.Address) bool {
	addr, ok := x402.ParseAddress(a)
	return ok && addr == b
}

// checkWindow applies validAfter and validBefore (Unix seconds) to the
// current time as the token does (strictly: valid when validAfter < now <
// validBefore), with the expiry margin before validBefore.
func (b *bound) checkWindow(a *x402.Authorization) string {
	now := b.env.Now()
	if cmpInt64(a.ValidBefore, now.Add(b.env.ExpiryMargin).Unix()) <= 0 {
		return x402.ErrTextExpired
	}
	if cmpInt64(a.ValidAfter, now.Unix()) >= 0 {
		return x402.ErrTextNotYetValid
	}
	return ""
}

// cmpInt64 is x.Cmp(big.NewInt(y)) without allocating.
func cmpInt64(x *big.Int, y int64) int {
	if !x.IsInt64() {
		return x.Sign()
	}
	return cmp.Compare(x.Int64(), y)
}
