package facilitator_test

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// permit2ChannelReq is channelReq with assetTransferMethod permit2.
func permit2ChannelReq(seller common.Address) x402.RequirementsV2 {
	r := channelReq(seller)
	r.Extra["assetTransferMethod"] = "permit2"
	return r
}

// permit2DepositPayload is a deposit of amount into cfg by a Permit2
// witness transfer (nonce), with a voucher at max, as @x402/evm 2.27's
// createBatchSettlementPermit2DepositPayload builds it.
func permit2DepositPayload(t testing.TB, buyer devnet.Account, cfg batch.ChannelConfig, amount, max int64, nonce int64) map[string]any {
	t.Helper()
	p := voucherPayload(t, buyer, cfg, "deposit", max)
	id, _ := cfg.ID(chain.ChainID())
	d := batch.Permit2Deposit{Token: devnet.TokenAddress, Amount: big.NewInt(amount), Nonce: big.NewInt(nonce), Deadline: big.NewInt(time.Now().Add(time.Hour).Unix()), ChannelID: id}
	sig, err := batch.SignPermit2Deposit(buyer.Key, chain.ChainID(), d)
	if err != nil {
		t.Fatal(err)
	}
	p["deposit"] = map[string]any{"amount": d.Amount.String(), "authorization": map[string]any{"permit2Authorization": map[string]any{
		"from": buyer.Address.Hex(), "permitted": map[string]any{"token": devnet.TokenAddress.Hex(), "amount": d.Amount.String()},
		"spender": batch.Permit2CollectorAddress.Hex(), "nonce": d.Nonce.String(), "deadline": d.Deadline.String(),
		"witness": map[string]any{"channelId": id.Hex()}, "signature": hexutil.Encode(sig)}}}
	return p
}

// TestBatchPermit2Deposit: a buyer who approved Permit2 once deposits by a
// Permit2 witness transfer through the Permit2 collector: verified with
// the channel's state, settled through the engine (the amount moves from
// the buyer into the escrow), the same deposit again moves nothing;
// vouchers on the channel are valid and claimed and settled to the seller
// as any channel's; a buyer without the allowance is refused with the
// published reason, and every malformed authorization with its own.
func TestBatchPermit2Deposit(t *testing.T) {
	buyer := uptoBuyer(t, 100_000, big.NewInt(1_000_000))
	seller := newSeller(t)
	req := permit2ChannelReq(seller)
	cfg := channelOf(buyer, seller, 41)
	dep := permit2DepositPayload(t, buyer, cfg, 5000, 1000, 7)

	var v x402.ReferenceVerifyResponse
	if st := post(t, x402.PathVerify, channelBody(t, dep, req), &v); st != 200 || !v.IsValid || !strings.EqualFold(v.Payer, buyer.Address.Hex()) || v.Extra["balance"] != "0" {
		t.Fatalf("verify deposit = %d %+v", st, v)
	}
	buyerBefore, escrowBefore := balance(t, buyer.Address), balance(t, batch.SettlementAddress)
	var s x402.ReferenceSettleResponse
	if st := post(t, x402.PathSettle, channelBody(t, dep, req), &s); st != 200 || !s.Success || s.Transaction == "" || s.Amount != "5000" {
		t.Fatalf("settle deposit = %d %+v", st, s)
	}
	if cs, _ := s.Extra["channelState"].(map[string]any); cs["balance"] != "5000" || cs["totalClaimed"] != "0" {
		t.Fatalf("settle deposit extra = %v", s.Extra)
	}
	moved := func() {
		t.Helper()
		if got := new(big.Int).Sub(buyerBefore, balance(t, buyer.Address)); got.Int64() != 5000 {
			t.Fatalf("buyer paid %s, want 5000", got)
		}
		if got := new(big.Int).Sub(balance(t, batch.SettlementAddress), escrowBefore); got.Int64() != 5000 {
			t.Fatalf("escrow got %s, want 5000", got)
		}
	}
	moved()
	// The same deposit again (a resend): refused, nothing more moves.
	var again x402.ReferenceSettleResponse
	if st := post(t, x402.PathSettle, channelBody(t, dep, req), &again); st != 200 || again.Success {
		t.Fatalf("second settle = %d %+v", st, again)
	}
	moved()
	// Its verify now fails: the nonce is used (the simulation reverts).
	if st := post(t, x402.PathVerify, channelBody(t, dep, req), &v); st != 200 || v.IsValid {
		t.Fatalf("verify of a used deposit = %d %+v", st, v)
	}

	// Vouchers on the channel, claimed and settled to the seller.
	if st := post(t, x402.PathVerify, channelBody(t, voucherPayload(t, buyer, cfg, "voucher", 2000), req), &v); st != 200 || !v.IsValid || v.Extra["balance"] != "5000" {
		t.Fatalf("verify voucher = %d %+v", st, v)
	}
	claim := map[string]any{"type": "claim", "claims": []any{claimRow(t, buyer, cfg, 2000, 2000)}}
	if st := postKeyed(t, x402.PathSettle, channelBody(t, claim, req), &s); st != 200 || !s.Success || s.Amount != "2000" {
		t.Fatalf("claim = %d %+v", st, s)
	}
	settle := map[string]any{"type": "settle", "receiver": seller.Hex(), "token": devnet.TokenAddress.Hex()}
	if st := postKeyed(t, x402.PathSettle, channelBody(t, settle, req), &s); st != 200 || !s.Success || s.Amount != "2000" {
		t.Fatalf("settle = %d %+v", st, s)
	}
	if got := balance(t, seller); got.Int64() != 2000 {
		t.Fatalf("seller holds %s, want 2000", got)
	}
	moved2 := new(big.Int).Sub(balance(t, batch.SettlementAddress), escrowBefore)
	if moved2.Int64() != 3000 {
		t.Fatalf("escrow holds %s of the channel after the settle, want 3000", moved2)
	}

	// A top-up by Permit2 (another nonce) into the same channel.
	top := permit2DepositPayload(t, buyer, cfg, 1000, 5500, 8)
	if st := post(t, x402.PathSettle, channelBody(t, top, req), &s); st != 200 || !s.Success || s.Amount != "1000" {
		t.Fatalf("top-up = %d %+v", st, s)
	}
	if cs, _ := s.Extra["channelState"].(map[string]any); cs["balance"] != "6000" || cs["totalClaimed"] != "2000" {
		t.Fatalf("top-up extra = %v", s.Extra)
	}

	unapproved := newBuyer(t, chain, 100_000)
	ucfg := channelOf(unapproved, seller, 42)
	mutate := func(f func(a map[string]any)) map[string]any {
		p := permit2DepositPayload(t, buyer, channelOf(buyer, seller, 43), 100, 10, 9)
		f(p["deposit"].(map[string]any)["authorization"].(map[string]any)["permit2Authorization"].(map[string]any))
		return p
	}
	for _, tc := range []struct {
		name    string
		payload map[string]any
		req     x402.RequirementsV2
		want    string
	}{
		{"no allowance to Permit2", permit2DepositPayload(t, unapproved, ucfg, 100, 10, 1), req, batchsettlement.ErrPermit2AllowanceRequired},
		{"another spender", mutate(func(a map[string]any) { a["spender"] = seller.Hex() }), req, batchsettlement.ErrPermit2InvalidSpender},
		{"another amount", mutate(func(a map[string]any) {
			a["permitted"] = map[string]any{"token": devnet.TokenAddress.Hex(), "amount": "101"}
		}), req, batchsettlement.ErrPermit2AmountMismatch},
		{"another channel", mutate(func(a map[string]any) { a["witness"] = map[string]any{"channelId": "0x" + strings.Repeat("11", 32)} }), req, batchsettlement.ErrChannelIDMismatch},
		{"expired", mutate(func(a map[string]any) { a["deadline"] = "1" }), req, batchsettlement.ErrPermit2DeadlineExpired},
		{"another nonce than signed", mutate(func(a map[string]any) { a["nonce"] = "10" }), req, batchsettlement.ErrPermit2InvalidSignature},
		{"another from", mutate(func(a map[string]any) { a["from"] = seller.Hex() }), req, batchsettlement.ErrPermit2InvalidSignature},
		{"permit2 route, ERC-3009 payload", depositPayload(t, buyer, channelOf(buyer, seller, 44), 100, 10), req, batchsettlement.ErrInvalidPayloadType},
		{"beyond the balance", permit2DepositPayload(t, buyer, channelOf(buyer, seller, 45), 900_000, 10, 11), req, batchsettlement.ErrInsufficientBalance},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v x402.ReferenceVerifyResponse
			if st := post(t, x402.PathVerify, channelBody(t, tc.payload, tc.req), &v); st != 200 || v.IsValid || v.InvalidReason != tc.want {
				t.Fatalf("verify = %d %+v, want %s", st, v, tc.want)
			}
		})
	}
	// A settle without the allowance is refused before any broadcast.
	ub := balance(t, unapproved.Address)
	if st := post(t, x402.PathSettle, channelBody(t, permit2DepositPayload(t, unapproved, ucfg, 100, 10, 2), req), &s); st != 200 || s.Success || s.ErrorReason != batchsettlement.ErrPermit2AllowanceRequired || s.Transaction != "" {
		t.Fatalf("settle without allowance = %d %+v", st, s)
	}
	if got := balance(t, unapproved.Address); got.Cmp(ub) != 0 {
		t.Fatalf("the unapproved buyer's balance moved: %s -> %s", ub, got)
	}
}

// TestBatchPermit2CrashRecovery: TestBatchCrashRecovery's burst with
// deposits by Permit2: the restarted facilitator concludes what was sent
// from Permit2's nonceBitmap and each deposit moves exactly once.
func TestBatchPermit2CrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	const burst, amount = 8, 700
	key := newSignerKey(t, chain)
	authorizer := crypto.PubkeyToAddress(key.PublicKey)
	seller := newSeller(t)
	req := permit2ChannelReq(seller)
	req.Extra["receiverAuthorizer"] = authorizer.Hex()
	buyer := uptoBuyer(t, burst*amount, big.NewInt(1_000_000))
	bodies := make([][]byte, burst)
	for i := range bodies {
		cfg := channelOf(buyer, seller, byte(150+i))
		cfg.ReceiverAuthorizer = authorizer
		bodies[i] = channelBody(t, permit2DepositPayload(t, buyer, cfg, amount, 1, int64(1000+i)), req)
	}
	depositCrash(t, key, buyer.Address, bodies, amount)
}

// TestBatchPermit2DepositEIP2612: a buyer who never approved Permit2 (and
// holds no gas) deposits by Permit2 with its EIP-2612 permit of the
// deposit to Permit2 in the eip2612GasSponsoring extension: verify
// accepts it without an allowance, the settle submits the permit in the
// Permit2 collector's data and moves exactly the deposit; a permit of
// another value is refused with the published reason.
func TestBatchPermit2DepositEIP2612(t *testing.T) {
	buyer := newBuyer(t, chain, 100_000) // no approval, no gas
	seller := newSeller(t)
	req := permit2ChannelReq(seller)
	cfg := channelOf(buyer, seller, 61)
	dep := permit2DepositPayload(t, buyer, cfg, 4000, 1000, 3)
	body := func(value int64) []byte {
		t.Helper()
		ext, err := permit2.EIP2612Extension(buyer.Key, devnet.TokenAddress, devnet.TokenName, devnet.TokenVersion, big.NewInt(devnet.ChainID), new(big.Int), big.NewInt(value), big.NewInt(time.Now().Add(time.Hour).Unix()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(map[string]any{"x402Version": 2,
			"paymentPayload":      map[string]any{"x402Version": 2, "accepted": req, "payload": dep, "extensions": ext},
			"paymentRequirements": req})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var v x402.ReferenceVerifyResponse
	if st := post(t, x402.PathVerify, channelBody(t, dep, req), &v); st != 200 || v.IsValid || v.InvalidReason != batchsettlement.ErrPermit2AllowanceRequired {
		t.Fatalf("verify without the permit = %d %+v", st, v)
	}
	if st := post(t, x402.PathVerify, body(4001), &v); st != 200 || v.IsValid || v.InvalidReason != batchsettlement.ErrEip2612AmountMismatch {
		t.Fatalf("verify with a permit of another value = %d %+v", st, v)
	}
	if st := post(t, x402.PathVerify, body(4000), &v); st != 200 || !v.IsValid {
		t.Fatalf("verify with the permit = %d %+v", st, v)
	}
	before, escrow := balance(t, buyer.Address), balance(t, batch.SettlementAddress)
	var s x402.ReferenceSettleResponse
	if st := post(t, x402.PathSettle, body(4000), &s); st != 200 || !s.Success || s.Amount != "4000" {
		t.Fatalf("settle with the permit = %d %+v", st, s)
	}
	if got := new(big.Int).Sub(before, balance(t, buyer.Address)); got.Int64() != 4000 {
		t.Fatalf("buyer paid %s, want 4000", got)
	}
	if got := new(big.Int).Sub(balance(t, batch.SettlementAddress), escrow); got.Int64() != 4000 {
		t.Fatalf("escrow got %s, want 4000", got)
	}
}

// TestBatchPermit2DepositWithoutPermit2: on a chain without Permit2 (and
// so without the Permit2 deposit collector) batch-settlement is served
// but Permit2 deposits are not: SchemeExtra says so (the paywall refuses
// such a route at start) and a Permit2 deposit is refused as the
// published facilitator refuses an unknown payload.
func TestBatchPermit2DepositWithoutPermit2(t *testing.T) {
	c, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond, WithoutPermit2: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f, api, _ := startFacilitator(t, c.Signer().Key, c.RPCURL(), t.TempDir()+"/journal.db", nil)
	if _, ok := f.SchemeExtra(network.CronosTestnet, batchsettlement.Scheme); !ok {
		t.Fatal("batch-settlement not served on a chain without Permit2")
	}
	if extra, ok := f.SchemeExtra(network.CronosTestnet, x402.SchemeBatchSettlementPermit2); ok {
		t.Fatalf("Permit2 deposits served on a chain without Permit2: %v", extra)
	}
	if _, ok := fac.SchemeExtra(network.CronosTestnet, x402.SchemeBatchSettlementPermit2); !ok {
		t.Fatal("Permit2 deposits not served on the devnet that has Permit2")
	}
	buyer := c.Buyers()[0]
	seller := newSeller(t)
	req := permit2ChannelReq(seller)
	req.Extra["receiverAuthorizer"] = c.Signer().Address.Hex()
	cfg := channelOf(buyer, seller, 1)
	cfg.ReceiverAuthorizer = c.Signer().Address
	var v x402.ReferenceVerifyResponse
	b := channelBody(t, permit2DepositPayload(t, buyer, cfg, 100, 10, 1), req)
	if st := postWithURL(t, http.DefaultClient, api+x402.PathVerify, b, &v); st != 200 || v.IsValid || v.InvalidReason != batchsettlement.ErrInvalidPayloadType {
		t.Fatalf("verify = %d %+v", st, v)
	}
}
