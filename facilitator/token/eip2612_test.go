package token

import (
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// permitTypedData is EIP-2612's Permit under the token's domain, as
// wallets (and the x402 clients' eip2612GasSponsoring) sign it.
func permitTypedData(chainID *big.Int, tokenAddr, owner, spender common.Address, value, nonce, deadline *big.Int) apitypes.TypedData {
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": authTypes("x")["EIP712Domain"],
			"Permit": {
				{Name: "owner", Type: "address"},
				{Name: "spender", Type: "address"},
				{Name: "value", Type: "uint256"},
				{Name: "nonce", Type: "uint256"},
				{Name: "deadline", Type: "uint256"},
			},
		},
		PrimaryType: "Permit",
		Domain: apitypes.TypedDataDomain{
			Name: "Bridged USDC (Stargate)", Version: "1",
			ChainId: (*math.HexOrDecimal256)(chainID), VerifyingContract: tokenAddr.Hex(),
		},
		Message: apitypes.TypedDataMessage{
			"owner": owner.Hex(), "spender": spender.Hex(),
			"value": value, "nonce": nonce, "deadline": deadline,
		},
	}
}

// apitypesPermitTransferFrom is Permit2's PermitTransferFrom (no witness).
func apitypesPermitTransferFrom(chainID *big.Int, tokenAddr common.Address, amount *big.Int, spender common.Address, nonce, deadline *big.Int) apitypes.TypedData {
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {
				{Name: "name", Type: "string"},
				{Name: "chainId", Type: "uint256"},
				{Name: "verifyingContract", Type: "address"},
			},
			"PermitTransferFrom": {
				{Name: "permitted", Type: "TokenPermissions"},
				{Name: "spender", Type: "address"},
				{Name: "nonce", Type: "uint256"},
				{Name: "deadline", Type: "uint256"},
			},
			"TokenPermissions": {{Name: "token", Type: "address"}, {Name: "amount", Type: "uint256"}},
		},
		PrimaryType: "PermitTransferFrom",
		Domain: apitypes.TypedDataDomain{
			Name: "Permit2", ChainId: (*math.HexOrDecimal256)(chainID),
			VerifyingContract: "0x000000000022D473030F116dDEE9F6B43aC78BA3",
		},
		Message: apitypes.TypedDataMessage{
			"permitted": map[string]any{"token": tokenAddr.Hex(), "amount": amount},
			"spender":   spender.Hex(), "nonce": nonce, "deadline": deadline,
		},
	}
}

func hashTyped(td apitypes.TypedData) (common.Hash, error) {
	d, _, err := apitypes.TypedDataAndHash(td)
	return common.BytesToHash(d), err
}

// sign2612 is the buyer's EIP-2612 permit as the proxies' settleWithPermit
// takes it.
func (e *p2env) sign2612(t *testing.T, k *ecdsa.PrivateKey, owner, spender common.Address, value, nonce, deadline *big.Int) X402BasePermit2ProxyEIP2612Permit {
	t.Helper()
	sig := signTyped(t, k, permitTypedData(e.chainID, genesisAt, owner, spender, value, nonce, deadline))
	v, r, s := splitSig(sig)
	return X402BasePermit2ProxyEIP2612Permit{Value: value, Deadline: deadline, R: r, S: s, V: v}
}

// TestPermit: EIP-2612 as FiatToken v2 (v, r, s) and v2.2 (bytes) have it,
// on a deployed and on a genesis-placed token: a permit sets the
// allowance and uses the owner's nonce; sent again it is refused; so are an
// expired one, one by another key and one for the zero spender.
func TestPermit(t *testing.T) {
	for _, viaGenesis := range []bool{false, true} {
		e := newEnv(t, viaGenesis)
		typehash, err := e.tok.PERMITTYPEHASH(nil)
		if err != nil || common.Hash(typehash) != common.HexToHash("0x6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c9") {
			t.Fatalf("PERMIT_TYPEHASH %x %v", typehash, err)
		}
		future := big.NewInt(1 << 40)
		sign := func(k *ecdsa.PrivateKey, spender common.Address, value, nonce, deadline *big.Int) []byte {
			return signTyped(t, k, permitTypedData(e.chainID, e.addr, e.buyer, spender, value, nonce, deadline))
		}

		// (v, r, s): nonce 0.
		v, r, s := splitSig(sign(e.buyerKey, e.relayer, oneToken, big.NewInt(0), future))
		rc := e.mined(t, e.must(t)(e.tok.Permit0(e.opts(t, e.strangerKey), e.buyer, e.relayer, oneToken, future, v, r, s)))
		t.Logf("genesis=%v: permit(v,r,s) gas used %d", viaGenesis, rc.GasUsed)
		if ev, err := e.tok.ParseApproval(*rc.Logs[0]); err != nil || ev.Owner != e.buyer || ev.Spender != e.relayer || ev.Value.Cmp(oneToken) != 0 {
			t.Fatalf("Approval log %+v %v", ev, err)
		}
		if got, _ := e.tok.Allowance(nil, e.buyer, e.relayer); got.Cmp(oneToken) != 0 {
			t.Fatalf("allowance %s", got)
		}
		if n, _ := e.tok.Nonces(nil, e.buyer); n.Cmp(big.NewInt(1)) != 0 {
			t.Fatalf("nonces %s after one permit", n)
		}
		// Sent again: its nonce is used, so the signature no longer matches.
		if got := e.revertReason(t, e.stranger, e.pack(t, "permit0", e.buyer, e.relayer, oneToken, future, v, r, s)); got != "EIP2612: invalid signature" {
			t.Fatalf("replayed permit: %q", got)
		}

		// bytes: nonce 1, a deadline of max uint256 (never expires),
		// lowering the allowance to 0.
		sig := sign(e.buyerKey, e.relayer, new(big.Int), big.NewInt(1), abi.MaxUint256)
		e.mined(t, e.must(t)(e.tok.Permit(e.opts(t, e.relayerKey), e.buyer, e.relayer, new(big.Int), abi.MaxUint256, sig)))
		if got, _ := e.tok.Allowance(nil, e.buyer, e.relayer); got.Sign() != 0 {
			t.Fatalf("allowance %s", got)
		}
		if got := e.revertReason(t, e.stranger, e.pack(t, "permit", e.buyer, e.relayer, new(big.Int), abi.MaxUint256, sig)); got != "EIP2612: invalid signature" {
			t.Fatalf("replayed bytes permit: %q", got)
		}

		for _, c := range []struct {
			name string
			data []byte
			want string
		}{
			{"expired", e.pack(t, "permit", e.buyer, e.relayer, oneToken, big.NewInt(1), sign(e.buyerKey, e.relayer, oneToken, big.NewInt(2), big.NewInt(1))), "FiatTokenV2: permit is expired"},
			{"another key", e.pack(t, "permit", e.buyer, e.relayer, oneToken, future, sign(e.strangerKey, e.relayer, oneToken, big.NewInt(2), future)), "EIP2612: invalid signature"},
			{"another value than signed", e.pack(t, "permit", e.buyer, e.relayer, thousand, future, sign(e.buyerKey, e.relayer, oneToken, big.NewInt(2), future)), "EIP2612: invalid signature"},
			{"a later nonce", e.pack(t, "permit", e.buyer, e.relayer, oneToken, future, sign(e.buyerKey, e.relayer, oneToken, big.NewInt(3), future)), "EIP2612: invalid signature"},
			{"zero spender", e.pack(t, "permit", e.buyer, common.Address{}, oneToken, future, sign(e.buyerKey, common.Address{}, oneToken, big.NewInt(2), future)), "ERC20: approve to the zero address"},
			{"short signature", e.pack(t, "permit", e.buyer, e.relayer, oneToken, future, sign(e.buyerKey, e.relayer, oneToken, big.NewInt(2), future)[:64]), "EIP2612: invalid signature"},
		} {
			if got := e.revertReason(t, e.stranger, c.data); got != c.want {
				t.Errorf("genesis=%v %s: revert %q, want %q", viaGenesis, c.name, got, c.want)
			}
		}
	}
}

// TestSmartWalletPermit: a wallet's permit, checked with EIP-1271 through
// the bytes overload (FiatToken v2.2).
func TestSmartWalletPermit(t *testing.T) {
	e, _, _, wallet := walletEnv(t)
	future := big.NewInt(1 << 40)
	digest, err := hashTyped(permitTypedData(e.chainID, e.addr, wallet, e.relayer, oneToken, big.NewInt(0), future))
	if err != nil {
		t.Fatal(err)
	}
	if got := e.revertReason(t, e.stranger, e.pack(t, "permit", wallet, e.relayer, oneToken, future, sigOf(t, e, digest, false))); got != "EIP2612: invalid signature" {
		t.Fatalf("a stranger's signature for the wallet: %q", got)
	}
	e.mined(t, e.must(t)(e.tok.Permit(e.opts(t, e.relayerKey), wallet, e.relayer, oneToken, future, sigOf(t, e, digest, true))))
	if got, _ := e.tok.Allowance(nil, wallet, e.relayer); got.Cmp(oneToken) != 0 {
		t.Fatalf("allowance %s", got)
	}
}
