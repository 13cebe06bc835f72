package facilitator_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// spendPermit2Nonce has the payer use its Permit2 nonce outside x402: a
// plain permitTransferFrom (no witness, the payer as its own spender) of
// 1 smallest unit to itself, signed and sent by the payer, straight to
// Permit2.
func spendPermit2Nonce(t *testing.T, b devnet.Account, nonce *big.Int) {
	t.Helper()
	deadline := big.NewInt(time.Now().Add(time.Hour).Unix())
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain":       {{Name: "name", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"PermitTransferFrom": {{Name: "permitted", Type: "TokenPermissions"}, {Name: "spender", Type: "address"}, {Name: "nonce", Type: "uint256"}, {Name: "deadline", Type: "uint256"}},
			"TokenPermissions":   {{Name: "token", Type: "address"}, {Name: "amount", Type: "uint256"}},
		},
		PrimaryType: "PermitTransferFrom",
		Domain:      apitypes.TypedDataDomain{Name: "Permit2", ChainId: (*math.HexOrDecimal256)(chain.ChainID()), VerifyingContract: permit2.Address.Hex()},
		Message: apitypes.TypedDataMessage{
			"permitted": map[string]any{"token": chain.Token().Hex(), "amount": big.NewInt(1)},
			"spender":   b.Address.Hex(),
			"nonce":     nonce,
			"deadline":  deadline,
		},
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := evm.SignDigest(b.Key, common.BytesToHash(digest))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := token.NewPermit2(permit2.Address, chain.Client())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := p2.PermitTransferFrom(bind.NewKeyedTransactor(b.Key, chain.ChainID()),
		token.ISignatureTransferPermitTransferFrom{Permitted: token.ISignatureTransferTokenPermissions{Token: chain.Token(), Amount: big.NewInt(1)}, Nonce: nonce, Deadline: deadline},
		token.ISignatureTransferSignatureTransferDetails{To: b.Address, RequestedAmount: big.NewInt(1)}, b.Address, sig)
	if err != nil {
		t.Fatal(err)
	}
	waitTx(t, tx)
}

// TestPermit2NonceUsedElsewhere: an upto payment whose Permit2 nonce the
// payer used outside x402 (a plain permitTransferFrom to another spender,
// or invalidateUnorderedNonces) is looked up as a final answer, not as a
// chain to ask again: by authorization, payment.failed "Authorization
// already used: its Permit2 nonce was used on chain, but by no x402
// settlement ..."; the HTTP look-up answers it 200 with status failed; the
// paywall's own look-up answers ErrSettledElsewhere.
func TestPermit2NonceUsedElsewhere(t *testing.T) {
	ctx := context.Background()
	api := httptest.NewServer(httpapi.New(fac, httpapi.Config{NoRateLimits: true}))
	defer api.Close()
	invalidate := func(t *testing.T, b devnet.Account, nonce *big.Int) {
		p2, err := token.NewPermit2(permit2.Address, chain.Client())
		if err != nil {
			t.Fatal(err)
		}
		word, bit := new(big.Int).Rsh(nonce, 8), new(big.Int).And(nonce, big.NewInt(0xff))
		tx, err := p2.InvalidateUnorderedNonces(bind.NewKeyedTransactor(b.Key, chain.ChainID()), word, new(big.Int).Lsh(big.NewInt(1), uint(bit.Uint64())))
		if err != nil {
			t.Fatal(err)
		}
		waitTx(t, tx)
	}
	for name, use := range map[string]func(*testing.T, devnet.Account, *big.Int){
		"permitTransferFrom":        spendPermit2Nonce,
		"invalidateUnorderedNonces": invalidate,
	} {
		t.Run(name, func(t *testing.T) {
			b := uptoBuyer(t, 100_000, big.NewInt(1e12))
			seller := newSeller(t)
			acc := uptoAccepted(t, fac, seller, "5000")
			nonce := big.NewInt(0x5eed_0001)
			h := uptoPay(t, b, acc, permit2.PaymentOptions{Nonce: nonce})
			use(t, b, nonce)
			nb := permit2.NonceBytes(nonce)
			hexN := hexutil.Encode(nb[:])

			got, err := fac.SettlementByAuthorizationOf("cronos-testnet", "upto", b.Address.Hex(), hexN)
			if err != nil || got.Settled() || got.Event != x402.EventFailed || got.Error != x402.ErrTextUsedElsewhere || got.TxHash != "" {
				t.Fatalf("look-up by authorization = %+v, %v; want payment.failed %q", got, err, x402.ErrTextUsedElsewhere)
			}
			q := url.Values{"network": {"cronos-testnet"}, "from": {b.Address.Hex()}, "nonce": {hexN}, "scheme": {"upto"}}
			resp, err := http.Get(api.URL + "/v2/x402/settlements?" + q.Encode())
			if err != nil {
				t.Fatal(err)
			}
			var st httpapi.SettlementStatus
			err = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK || st.Status != "failed" || st.SettleResponse == nil || st.Error != x402.ErrTextUsedElsewhere {
				t.Fatalf("GET settlements by authorization: %d %+v %v", resp.StatusCode, st, err)
			}
			if _, err := fac.OwnSettlementByAuthorizationOf(ctx, "cronos-testnet", "upto", b.Address.Hex(), hexN); !errors.Is(err, facilitator.ErrSettledElsewhere) {
				t.Fatalf("own look-up = %v, want ErrSettledElsewhere", err)
			}
			// The payment itself is refused as used, and moves nothing.
			if s, err := fac.Settle(ctx, uptoRequest(h, acc, "3000")); err != nil || s.Settled() || s.Error != x402.ErrTextAlreadyUsed {
				t.Fatalf("settle = %+v, %v", s, err)
			}
			if got := balance(t, seller).Int64(); got != 0 {
				t.Fatalf("seller holds %d", got)
			}
		})
	}
}
