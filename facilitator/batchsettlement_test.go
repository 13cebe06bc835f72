package facilitator_test

import (
	"encoding/json"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The batch-settlement tests drive the embedded facilitator's /v2/x402
// routes with payloads shaped as @x402/evm 2.27's client sends them,
// against the dev chain's channel contracts.

// channelReq is a batch-settlement way to pay to seller with the
// facilitator's receiver authorizer.
func channelReq(seller common.Address) x402.RequirementsV2 {
	return x402.RequirementsV2{Scheme: batchsettlement.Scheme, Network: x402.CAIP2(devnet.ChainID), Amount: "1000", Asset: devnet.TokenAddress.Hex(),
		PayTo: seller.Hex(), MaxTimeoutSeconds: 3600,
		Extra: map[string]any{"receiverAuthorizer": chain.Signer().Address.Hex(), "withdrawDelay": 900, "name": devnet.TokenName, "version": devnet.TokenVersion}}
}

// channelOf is a buyer's channel to seller.
func channelOf(buyer devnet.Account, seller common.Address, salt byte) batch.ChannelConfig {
	return batch.ChannelConfig{Payer: buyer.Address, PayerAuthorizer: buyer.Address, Receiver: seller, ReceiverAuthorizer: chain.Signer().Address,
		Token: devnet.TokenAddress, WithdrawDelay: 900, Salt: common.Hash{31: salt}}
}

// voucherPayload is a voucher (or refund) payload of cfg at max.
func voucherPayload(t testing.TB, buyer devnet.Account, cfg batch.ChannelConfig, kind string, max int64) map[string]any {
	t.Helper()
	id, err := cfg.ID(chain.ChainID())
	if err != nil {
		t.Fatal(err)
	}
	sig, err := batch.SignVoucher(buyer.Key, chain.ChainID(), id, big.NewInt(max))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"type": kind, "channelConfig": cfg,
		"voucher": map[string]any{"channelId": id.Hex(), "maxClaimableAmount": big.NewInt(max).String(), "signature": hexutil.Encode(sig)}}
}

// depositPayload is a deposit of amount into cfg with a voucher at max.
func depositPayload(t testing.TB, buyer devnet.Account, cfg batch.ChannelConfig, amount, max int64) map[string]any {
	t.Helper()
	p := voucherPayload(t, buyer, cfg, "deposit", max)
	id, _ := cfg.ID(chain.ChainID())
	salt := big.NewInt(time.Now().UnixNano())
	d := batch.ERC3009Deposit{From: buyer.Address, Value: big.NewInt(amount), ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(time.Now().Add(time.Hour).Unix()), Salt: salt, ChannelID: id}
	sig, err := batch.SignERC3009Deposit(buyer.Key, evm.Domain{Name: devnet.TokenName, Version: devnet.TokenVersion, ChainID: chain.ChainID(), VerifyingContract: devnet.TokenAddress}, d)
	if err != nil {
		t.Fatal(err)
	}
	p["deposit"] = map[string]any{"amount": d.Value.String(), "authorization": map[string]any{"erc3009Authorization": map[string]any{
		"validAfter": "0", "validBefore": d.ValidBefore.String(), "salt": common.BigToHash(salt).Hex(), "signature": hexutil.Encode(sig)}}}
	return p
}

// channelBody is the v2 HTTP body of payload under req.
func channelBody(t testing.TB, payload map[string]any, req x402.RequirementsV2) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"x402Version": 2,
		"paymentPayload":      map[string]any{"x402Version": 2, "accepted": req, "payload": payload},
		"paymentRequirements": req})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBatchSupported: /supported lists batch-settlement under the CAIP-2
// id only, with the receiver authorizer (the first signer key).
func TestBatchSupported(t *testing.T) {
	n := 0
	for _, k := range fac.Supported().Kinds {
		if k.Scheme != batchsettlement.Scheme {
			continue
		}
		n++
		extra, _ := k.Extra.(map[string]any)
		if k.X402Version != 2 || k.Network != x402.CAIP2(devnet.ChainID) || extra["receiverAuthorizer"] != chain.Signer().Address.Hex() {
			t.Fatalf("batch-settlement kind %+v", k)
		}
	}
	if n != 1 {
		t.Fatalf("%d batch-settlement kinds, want 1", n)
	}
}

// TestBatchDeposit: a deposit verified (with the channel's state) and
// settled through the engine moves the amount from the buyer into the
// channel; the same deposit again moves nothing; a voucher on the channel
// is valid up to its balance; every refusal has the published code.
func TestBatchDeposit(t *testing.T) {
	buyer := newBuyer(t, chain, 100_000)
	seller := newSeller(t)
	req := channelReq(seller)
	cfg := channelOf(buyer, seller, 1)
	dep := depositPayload(t, buyer, cfg, 5000, 1000)

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
	// The same deposit again: refused, nothing more moves.
	if st := post(t, x402.PathSettle, channelBody(t, dep, req), &s); st != 200 || s.Success {
		t.Fatalf("second settle = %d %+v", st, s)
	}
	moved()

	var valid x402.ReferenceVerifyResponse
	if st := post(t, x402.PathVerify, channelBody(t, voucherPayload(t, buyer, cfg, "voucher", 2000), req), &valid); st != 200 || !valid.IsValid || valid.Extra["balance"] != "5000" {
		t.Fatalf("verify voucher = %d %+v", st, valid)
	}
	// A voucher is verified, never settled.
	if st := post(t, x402.PathSettle, channelBody(t, voucherPayload(t, buyer, cfg, "voucher", 2000), req), &s); st != 200 || s.Success || s.ErrorReason != batchsettlement.ErrInvalidPayloadType {
		t.Fatalf("settle voucher = %d %+v", st, s)
	}

	other := newBuyer(t, chain, 10)
	for _, tc := range []struct {
		name    string
		payload map[string]any
		req     func(r *x402.RequirementsV2)
		want    string
	}{
		{"voucher above the balance", voucherPayload(t, buyer, cfg, "voucher", 5001), nil, batchsettlement.ErrCumulativeExceedsBalance},
		{"voucher on no channel", voucherPayload(t, buyer, channelOf(buyer, seller, 2), "voucher", 10), nil, batchsettlement.ErrChannelNotFound},
		{"voucher signed by another", func() map[string]any {
			p := voucherPayload(t, other, cfg, "voucher", 10)
			return p
		}(), nil, batchsettlement.ErrInvalidVoucherSignature},
		{"another receiver", voucherPayload(t, buyer, cfg, "voucher", 10), func(r *x402.RequirementsV2) { r.PayTo = newSeller(t).Hex() }, batchsettlement.ErrReceiverMismatch},
		{"another receiver authorizer", voucherPayload(t, buyer, cfg, "voucher", 10), func(r *x402.RequirementsV2) {
			r.Extra = map[string]any{"receiverAuthorizer": seller.Hex(), "name": devnet.TokenName, "version": devnet.TokenVersion}
		}, batchsettlement.ErrReceiverAuthorizerMismatch},
		{"another withdraw delay", voucherPayload(t, buyer, cfg, "voucher", 10), func(r *x402.RequirementsV2) {
			r.Extra = map[string]any{"receiverAuthorizer": chain.Signer().Address.Hex(), "withdrawDelay": 1000, "name": devnet.TokenName, "version": devnet.TokenVersion}
		}, batchsettlement.ErrWithdrawDelayMismatch},
		{"deposit beyond the payer's balance", depositPayload(t, other, channelOf(other, seller, 3), 5000, 10), nil, batchsettlement.ErrInsufficientBalance},
		{"deposit voucher above balance + deposit", depositPayload(t, buyer, cfg, 100, 5101), nil, batchsettlement.ErrCumulativeExceedsBalance},
		{"claim at verify", map[string]any{"type": "claim", "claims": []any{}}, nil, batchsettlement.ErrInvalidPayloadType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := channelReq(seller)
			if tc.req != nil {
				tc.req(&r)
			}
			var v x402.ReferenceVerifyResponse
			if st := post(t, x402.PathVerify, channelBody(t, tc.payload, r), &v); st != 200 || v.IsValid || v.InvalidReason != tc.want {
				t.Fatalf("verify = %d %+v, want %s", st, v, tc.want)
			}
		})
	}
	moved()
}

// openChannel deposits amount into a new channel of a fresh buyer to
// seller, through the facilitator.
func openChannel(t *testing.T, seller common.Address, amount int64, salt byte) (devnet.Account, batch.ChannelConfig) {
	t.Helper()
	buyer := newBuyer(t, chain, 100_000)
	cfg := channelOf(buyer, seller, salt)
	var s x402.ReferenceSettleResponse
	if st := post(t, x402.PathSettle, channelBody(t, depositPayload(t, buyer, cfg, amount, 1), channelReq(seller)), &s); st != 200 || !s.Success {
		t.Fatalf("deposit = %d %+v", st, s)
	}
	return buyer, cfg
}

// claimRow is a claim row of cfg's voucher at max, claiming total.
func claimRow(t testing.TB, buyer devnet.Account, cfg batch.ChannelConfig, max, total int64) map[string]any {
	p := voucherPayload(t, buyer, cfg, "voucher", max)
	v := p["voucher"].(map[string]any)
	return map[string]any{"voucher": map[string]any{"channel": cfg, "maxClaimableAmount": v["maxClaimableAmount"]}, "signature": v["signature"], "totalClaimed": big.NewInt(total).String()}
}

// TestBatchClaimSettleRefund: two channels claimed in one transaction,
// settled to the seller in one transfer, one refunded: balances before and
// after; a replayed claim, settle and refund are refused before any
// broadcast and move nothing.
func TestBatchClaimSettleRefund(t *testing.T) {
	seller := newSeller(t)
	req := channelReq(seller)
	b1, c1 := openChannel(t, seller, 5000, 1)
	b2, c2 := openChannel(t, seller, 3000, 2)
	escrow := balance(t, batch.SettlementAddress)

	claim := map[string]any{"type": "claim", "claims": []any{claimRow(t, b1, c1, 1500, 1200), claimRow(t, b2, c2, 700, 700)}}
	var s x402.ReferenceSettleResponse
	if st := postKeyed(t, x402.PathSettle, channelBody(t, claim, req), &s); st != 200 || !s.Success || s.Transaction == "" || s.Amount != "1900" {
		t.Fatalf("claim = %d %+v", st, s)
	}
	if got := balance(t, batch.SettlementAddress); got.Cmp(escrow) != 0 {
		t.Fatalf("a claim moved tokens: escrow %s -> %s", escrow, got)
	}
	if st := postKeyed(t, x402.PathSettle, channelBody(t, claim, req), &s); st != 200 || s.Success || s.ErrorReason != batchsettlement.ErrNothingToClaim || s.Transaction != "" {
		t.Fatalf("claim again = %d %+v", st, s)
	}
	settle := map[string]any{"type": "settle", "receiver": seller.Hex(), "token": devnet.TokenAddress.Hex()}
	if st := postKeyed(t, x402.PathSettle, channelBody(t, settle, req), &s); st != 200 || !s.Success || s.Amount != "1900" {
		t.Fatalf("settle = %d %+v", st, s)
	}
	if got := balance(t, seller); got.Int64() != 1900 {
		t.Fatalf("seller holds %s, want 1900", got)
	}
	if st := postKeyed(t, x402.PathSettle, channelBody(t, settle, req), &s); st != 200 || s.Success || s.ErrorReason != batchsettlement.ErrNothingToSettle {
		t.Fatalf("settle again = %d %+v", st, s)
	}

	// Refund channel 1 after claiming 1500 in the same transaction: 3500
	// of the 5000 go back.
	before := balance(t, b1.Address)
	refund := voucherPayload(t, b1, c1, "refund", 1500)
	refund["amount"], refund["refundNonce"] = "100000", "0"
	refund["claims"] = []any{claimRow(t, b1, c1, 1500, 1500)}
	if st := postKeyed(t, x402.PathSettle, channelBody(t, refund, req), &s); st != 200 || !s.Success || s.Amount != "3500" {
		t.Fatalf("refund = %d %+v", st, s)
	}
	if cs, _ := s.Extra["channelState"].(map[string]any); cs["balance"] != "1500" || cs["totalClaimed"] != "1500" || cs["refundNonce"] != "1" {
		t.Fatalf("refund extra = %v", s.Extra)
	}
	if got := new(big.Int).Sub(balance(t, b1.Address), before); got.Int64() != 3500 {
		t.Fatalf("buyer got %s back, want 3500", got)
	}
	if st := postKeyed(t, x402.PathSettle, channelBody(t, refund, req), &s); st != 200 || s.Success || s.ErrorReason != batchsettlement.ErrRefundNoBalance {
		t.Fatalf("refund again = %d %+v", st, s)
	}
	if got := new(big.Int).Sub(balance(t, b1.Address), before); got.Int64() != 3500 {
		t.Fatalf("buyer got %s back after a replay, want 3500", got)
	}
	// A refund of a channel whose receiver authorizer is not ours, with
	// no signature given: refused.
	foreign := c2
	foreign.ReceiverAuthorizer = seller
	r2 := voucherPayload(t, b2, c2, "refund", 700)
	r2["channelConfig"], r2["amount"], r2["refundNonce"], r2["claims"] = foreign, "1", "0", []any{}
	if st := postKeyed(t, x402.PathSettle, channelBody(t, r2, req), &s); st != 200 || s.Success {
		t.Fatalf("foreign refund = %d %+v", st, s)
	}
}

// TestBatchSameTwiceConcurrent: one deposit settled by 10 callers at once
// moves once; one claim sent by 10 callers at once claims once.
func TestBatchSameTwiceConcurrent(t *testing.T) {
	seller := newSeller(t)
	req := channelReq(seller)
	buyer := newBuyer(t, chain, 100_000)
	cfg := channelOf(buyer, seller, 7)
	body := channelBody(t, depositPayload(t, buyer, cfg, 4000, 1), req)
	escrow, before := balance(t, batch.SettlementAddress), balance(t, buyer.Address)
	run := func(body []byte) (ok int, answers []x402.ReferenceSettleResponse) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var s x402.ReferenceSettleResponse
				postKeyed(t, x402.PathSettle, body, &s)
				mu.Lock()
				defer mu.Unlock()
				answers = append(answers, s)
				if s.Success {
					ok++
				}
			}()
		}
		wg.Wait()
		return ok, answers
	}
	if ok, answers := run(body); ok != 1 {
		t.Fatalf("%d deposits settled, want 1: %+v", ok, answers)
	}
	if got := new(big.Int).Sub(balance(t, batch.SettlementAddress), escrow); got.Int64() != 4000 {
		t.Fatalf("escrow got %s, want 4000", got)
	}
	if got := new(big.Int).Sub(before, balance(t, buyer.Address)); got.Int64() != 4000 {
		t.Fatalf("buyer paid %s, want 4000", got)
	}
	claim := channelBody(t, map[string]any{"type": "claim", "claims": []any{claimRow(t, buyer, cfg, 900, 900)}}, req)
	if ok, answers := run(claim); ok != 1 {
		t.Fatalf("%d claims settled, want 1: %+v", ok, answers)
	}
	var s x402.ReferenceSettleResponse
	if st := postKeyed(t, x402.PathSettle, channelBody(t, map[string]any{"type": "settle", "receiver": seller.Hex(), "token": devnet.TokenAddress.Hex()}, req), &s); st != 200 || !s.Success || s.Amount != "900" {
		t.Fatalf("settle = %d %+v", st, s)
	}
	if got := balance(t, seller); got.Int64() != 900 {
		t.Fatalf("seller holds %s, want 900", got)
	}
}

// TestBatchEnrichedRefundVerify: an enriched refund is verified against the
// requirements (as published: verifyVoucher), though its settle, asked by
// the seller's channel manager with an empty extra, is not.
func TestBatchEnrichedRefundVerify(t *testing.T) {
	seller := newSeller(t)
	b1, c1 := openChannel(t, seller, 2000, 9)
	refund := voucherPayload(t, b1, c1, "refund", 1)
	refund["amount"], refund["refundNonce"], refund["claims"] = "10", "0", []any{}
	var v x402.ReferenceVerifyResponse
	if st := post(t, x402.PathVerify, channelBody(t, refund, channelReq(seller)), &v); st != 200 || !v.IsValid {
		t.Fatalf("verify = %d %+v", st, v)
	}
	other := channelReq(newSeller(t))
	if st := post(t, x402.PathVerify, channelBody(t, refund, other), &v); st != 200 || v.IsValid || v.InvalidReason != batchsettlement.ErrReceiverMismatch {
		t.Fatalf("verify for another receiver = %d %+v", st, v)
	}
	bare := channelReq(seller)
	bare.Extra = map[string]any{}
	before := balance(t, b1.Address)
	var s x402.ReferenceSettleResponse
	if st := postKeyed(t, x402.PathSettle, channelBody(t, refund, bare), &s); st != 200 || !s.Success || s.Amount != "10" {
		t.Fatalf("settle with an empty extra = %d %+v", st, s)
	}
	if got := new(big.Int).Sub(balance(t, b1.Address), before); got.Int64() != 10 {
		t.Fatalf("buyer got %s back, want 10", got)
	}
}
