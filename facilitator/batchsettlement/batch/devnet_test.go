package batch_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/gethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
)

func hexKey(t *testing.T, h string) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.HexToECDSA(strings.TrimPrefix(h, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func bindingConfig(c batch.ChannelConfig) token.X402BatchSettlementChannelConfig {
	return token.X402BatchSettlementChannelConfig{Payer: c.Payer, PayerAuthorizer: c.PayerAuthorizer, Receiver: c.Receiver,
		ReceiverAuthorizer: c.ReceiverAuthorizer, Token: c.Token, WithdrawDelay: new(big.Int).SetUint64(c.WithdrawDelay), Salt: c.Salt}
}

// TestContractsOnDevnet: the three contracts answer at their canonical
// addresses; the contract's own EIP-712 getters equal package batch's
// digests; the collectors point at the settlement contract and Permit2;
// without them, nothing has code there.
func TestContractsOnDevnet(t *testing.T) {
	t.Parallel()
	tc := startChain(t, devnet.Config{})
	chain := tc.c.ChainID()
	info, _ := json.Marshal(tc.c.Info())
	if !tc.c.HasBatchSettlement() || !strings.Contains(string(info), `"batchSettlement":{"address":"0x4020074e9df2ce1dee5a9c1b5c3f541d02a10003","erc3009Collector":"0x4020806089470a89826cb9fb1f4059150b550004","permit2Collector":"0x4020425faf3b746c082c2f942b4e5159887b0005"}`) {
		t.Fatalf("info %s", info)
	}
	s, err := token.NewX402BatchSettlement(batch.SettlementAddress, tc.cl)
	if err != nil {
		t.Fatal(err)
	}
	cfg := batch.ChannelConfig{Payer: common.HexToAddress("0x11"), PayerAuthorizer: common.HexToAddress("0x12"), Receiver: common.HexToAddress("0x13"),
		ReceiverAuthorizer: common.HexToAddress("0x14"), Token: tc.c.Token(), WithdrawDelay: 3600, Salt: common.HexToHash("0xabc")}
	id, _ := cfg.ID(chain)
	if got, err := s.GetChannelId(nil, bindingConfig(cfg)); err != nil || common.Hash(got) != id {
		t.Errorf("getChannelId %x, %v; ours %s", got, err, id)
	}
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
	vd, _ := batch.VoucherDigest(chain, id, max)
	if got, err := s.GetVoucherDigest(nil, id, max); err != nil || common.Hash(got) != vd {
		t.Errorf("getVoucherDigest %x, %v; ours %s", got, err, vd)
	}
	rd, _ := batch.RefundDigest(chain, id, big.NewInt(7), big.NewInt(5))
	if got, err := s.GetRefundDigest(nil, id, big.NewInt(7), big.NewInt(5)); err != nil || common.Hash(got) != rd {
		t.Errorf("getRefundDigest %x, %v; ours %s", got, err, rd)
	}
	claims := []batch.VoucherClaim{
		{Voucher: batch.Voucher{Channel: cfg, MaxClaimableAmount: big.NewInt(10)}, Signature: []byte{1}, TotalClaimed: big.NewInt(9)},
		{Voucher: batch.Voucher{Channel: batch.ChannelConfig{Payer: common.HexToAddress("0x21"), WithdrawDelay: 900}, MaxClaimableAmount: max}, TotalClaimed: max},
	}
	var bc []token.X402BatchSettlementVoucherClaim
	for _, c := range claims {
		bc = append(bc, token.X402BatchSettlementVoucherClaim{Voucher: token.X402BatchSettlementVoucher{Channel: bindingConfig(c.Voucher.Channel), MaxClaimableAmount: c.Voucher.MaxClaimableAmount}, Signature: append([]byte{}, c.Signature...), TotalClaimed: c.TotalClaimed})
	}
	for n := 0; n <= len(claims); n++ { // n = 0: the empty batch's digest is defined too
		cd, _ := batch.ClaimBatchDigest(chain, claims[:n])
		if got, err := s.GetClaimBatchDigest(nil, bc[:n]); err != nil || common.Hash(got) != cd {
			t.Errorf("getClaimBatchDigest of %d rows %x, %v; ours %s", n, got, err, cd)
		}
	}
	dom, err := s.Eip712Domain(nil)
	if err != nil || dom.Name != batch.DomainName || dom.Version != batch.DomainVersion || dom.ChainId.Cmp(chain) != 0 || dom.VerifyingContract != batch.SettlementAddress || dom.Fields != [1]byte{0x0f} {
		t.Errorf("eip712Domain %+v, %v", dom, err)
	}
	for name, f := range map[string]func() (*big.Int, error){
		"MIN": func() (*big.Int, error) { return s.MINWITHDRAWDELAY(nil) }, "MAX": func() (*big.Int, error) { return s.MAXWITHDRAWDELAY(nil) },
	} {
		v, err := f()
		want := int64(batch.MinWithdrawDelay)
		if name == "MAX" {
			want = batch.MaxWithdrawDelay
		}
		if err != nil || v.Int64() != want {
			t.Errorf("%s_WITHDRAW_DELAY %v, %v", name, v, err)
		}
	}
	e3, _ := token.NewERC3009DepositCollector(batch.ERC3009CollectorAddress, tc.cl)
	p2, _ := token.NewPermit2DepositCollector(batch.Permit2CollectorAddress, tc.cl)
	if a, err := e3.X402BatchSettlement(nil); err != nil || a != batch.SettlementAddress {
		t.Errorf("ERC-3009 collector's settlement %s, %v", a, err)
	}
	if a, err := p2.X402BatchSettlement(nil); err != nil || a != batch.SettlementAddress {
		t.Errorf("Permit2 collector's settlement %s, %v", a, err)
	}
	if a, err := p2.PERMIT2(nil); err != nil || a != permit2.Address {
		t.Errorf("Permit2 collector's PERMIT2 %s, %v", a, err)
	}
	if ts, err := p2.DEPOSITWITNESSTYPESTRING(nil); err != nil || ts != batch.DepositWitnessTypeString {
		t.Errorf("DEPOSIT_WITNESS_TYPE_STRING %q, %v", ts, err)
	}

	bare := startChain(t, devnet.Config{WithoutBatchSettlement: true})
	for _, a := range []common.Address{batch.SettlementAddress, batch.ERC3009CollectorAddress, batch.Permit2CollectorAddress} {
		if code, err := bare.cl.CodeAt(bare.ctx(), a, nil); err != nil || len(code) != 0 {
			t.Errorf("WithoutBatchSettlement: %s has %d bytes of code, %v", a, len(code), err)
		}
	}
	if info, _ := json.Marshal(bare.c.Info()); strings.Contains(string(info), "batchSettlement") {
		t.Errorf("WithoutBatchSettlement: info %s", info)
	}
}

// TestChannelLifecycleOnDevnet runs channels through the contracts as the
// facilitator will: deposits through each collector (the published
// client's own EIP-3009 and Permit2 authorizations among them), vouchers of
// three channels claimed in one transaction by the receiver authorizer's
// signature, settle paying the receiver exactly, replays that pay nothing,
// bad signatures and out-of-bounds claims refused, a cooperative refund
// returning deposit minus charged, and a withdrawal possible only after the
// channel's delay. It logs the gas of each operation.
func TestChannelLifecycleOnDevnet(t *testing.T) {
	t.Parallel()
	v := batch.LoadVectors(t)
	tc := startChain(t, devnet.Config{Buyers: 3})
	chain, tok := tc.c.ChainID(), tc.c.Token()
	fac := hexKey(t, batch.AuthorizerKeyHex) // the devnet's signer: gas payer and receiver authorizer
	if crypto.PubkeyToAddress(fac.PublicKey) != tc.c.Signer().Address || v.ReceiverAuthorizer != tc.c.Signer().Address {
		t.Fatal("the vectors' receiver authorizer is not the devnet's signer")
	}
	buyers := tc.c.Buyers()
	b1, b2, b3 := buyers[0].Key, buyers[1].Key, buyers[2].Key
	session, _ := crypto.GenerateKey() // channel C's payer authorizer
	receiver := v.Channels[0].Config.Receiver
	gas := map[string]uint64{}
	deadline := big.NewInt(time.Now().Add(time.Hour).Unix())

	// Channel A: the published client's config (buyer1, its own payer
	// authorizer); B: buyer2 without a payer authorizer; C: buyer3 with a
	// session key as payer authorizer.
	cfgA := v.Deposits.ERC3009.ChannelConfig
	cfgB := batch.ChannelConfig{Payer: buyers[1].Address, Receiver: receiver, ReceiverAuthorizer: v.ReceiverAuthorizer, Token: tok, WithdrawDelay: 900, Salt: common.HexToHash("0xb")}
	cfgC := cfgB
	cfgC.Payer, cfgC.PayerAuthorizer, cfgC.Salt = buyers[2].Address, crypto.PubkeyToAddress(session.PublicKey), common.HexToHash("0xc")
	idA, _ := cfgA.ID(chain)
	idB, _ := cfgB.ID(chain)
	idC, _ := cfgC.ID(chain)
	if idA != v.Deposits.ERC3009.Voucher.ChannelID {
		t.Fatalf("channel A %s, published %s", idA, v.Deposits.ERC3009.Voucher.ChannelID)
	}
	contractBefore := tc.balance(batch.SettlementAddress)
	start := map[common.Address]*big.Int{}
	for _, b := range buyers {
		start[b.Address] = tc.balance(b.Address)
	}

	// 1. Deposits. A: the published EIP-3009 deposit (5000), then the
	// published Permit2 deposit (5000) with buyer1's EIP-2612 permit to
	// Permit2 in the collector data.
	e := v.Deposits.ERC3009.Deposit
	cd, err := batch.ERC3009CollectorData(batch.Num(t, e.Authorization.ERC3009.ValidAfter), batch.Num(t, e.Authorization.ERC3009.ValidBefore), batch.Num(t, e.Authorization.ERC3009.Salt), e.Authorization.ERC3009.Signature)
	if err != nil {
		t.Fatal(err)
	}
	depA, _ := batch.DepositCalldata(cfgA, batch.Num(t, e.Amount), batch.ERC3009CollectorAddress, cd)
	rc := tc.mustSend("ERC-3009 deposit (published client)", fac, batch.SettlementAddress, depA)
	gas["deposit, ERC-3009 collector, new channel"] = rc.GasUsed
	if logs(rc, "ChannelCreated") != 1 || logs(rc, "Deposited") != 1 {
		t.Errorf("first deposit: %d ChannelCreated, %d Deposited", logs(rc, "ChannelCreated"), logs(rc, "Deposited"))
	}
	if got := tc.revert(tc.c.Signer().Address, batch.SettlementAddress, depA); got != "Error(FiatTokenV2: authorization is used or canceled)" {
		t.Errorf("the same EIP-3009 deposit again: %s", got)
	}
	p := v.Deposits.Permit2.Deposit
	pa := p.Authorization.Permit2
	pd, err := batch.Permit2CollectorData(batch.Num(t, pa.Nonce), batch.Num(t, pa.Deadline), pa.Signature, tc.eip2612(b1, batch.Num(t, p.Amount), deadline))
	if err != nil {
		t.Fatal(err)
	}
	depA2, _ := batch.DepositCalldata(cfgA, batch.Num(t, p.Amount), batch.Permit2CollectorAddress, pd)
	rc = tc.mustSend("Permit2 deposit (published client) with EIP-2612", fac, batch.SettlementAddress, depA2)
	gas["deposit, Permit2 collector with EIP-2612 permit, top-up"] = rc.GasUsed
	if logs(rc, "ChannelCreated") != 0 {
		t.Error("a top-up created the channel again")
	}

	// B: Permit2 with our signing, buyer2 approving Permit2 by EIP-2612.
	depB := big.NewInt(10_000)
	p2 := batch.Permit2Deposit{Token: tok, Amount: depB, Nonce: big.NewInt(77), Deadline: deadline, ChannelID: idB}
	sig, err := batch.SignPermit2Deposit(b2, chain, p2)
	if err != nil {
		t.Fatal(err)
	}
	pdB, _ := batch.Permit2CollectorData(p2.Nonce, p2.Deadline, sig, tc.eip2612(b2, depB, deadline))
	callB, _ := batch.DepositCalldata(cfgB, depB, batch.Permit2CollectorAddress, pdB)
	rc = tc.mustSend("Permit2 deposit B", fac, batch.SettlementAddress, callB)
	gas["deposit, Permit2 collector with EIP-2612 permit, new channel"] = rc.GasUsed

	// C: EIP-3009 with our signing.
	depC := big.NewInt(4_000)
	e3 := batch.ERC3009Deposit{From: buyers[2].Address, Value: depC, ValidAfter: new(big.Int), ValidBefore: deadline, Salt: big.NewInt(42), ChannelID: idC}
	tokenDomain := evm.Domain{Name: devnet.TokenName, Version: devnet.TokenVersion, ChainID: chain, VerifyingContract: tok}
	sig, err = batch.SignERC3009Deposit(b3, tokenDomain, e3)
	if err != nil {
		t.Fatal(err)
	}
	cdC, _ := batch.ERC3009CollectorData(e3.ValidAfter, e3.ValidBefore, e3.Salt, sig)
	callC, _ := batch.DepositCalldata(cfgC, depC, batch.ERC3009CollectorAddress, cdC)
	tc.mustSend("ERC-3009 deposit C", fac, batch.SettlementAddress, callC)

	wantDeposited := big.NewInt(5000 + 5000 + 10_000 + 4_000)
	if got := new(big.Int).Sub(tc.balance(batch.SettlementAddress), contractBefore); got.Cmp(wantDeposited) != 0 {
		t.Fatalf("contract received %s, want %s", got, wantDeposited)
	}
	for id, want := range map[common.Hash]int64{idA: 10_000, idB: 10_000, idC: 4_000} {
		if s := tc.state(id); s.Balance.Int64() != want || s.TotalClaimed.Sign() != 0 {
			t.Fatalf("channel %s: balance %s claimed %s, want %d", id, s.Balance, s.TotalClaimed, want)
		}
	}
	if got := tc.balance(buyers[0].Address); new(big.Int).Sub(start[buyers[0].Address], got).Int64() != 10_000 {
		t.Fatalf("buyer1 paid %s", new(big.Int).Sub(start[buyers[0].Address], got))
	}

	// 2. One claim round for three channels: A by the published voucher
	// (ceiling 1000, 700 charged), B by buyer2's voucher (3000, all
	// charged), C by the session key's (2000, 1500 charged).
	vA := v.Deposits.ERC3009.Voucher
	sigB, _ := batch.SignVoucher(b2, chain, idB, big.NewInt(3000))
	sigC, _ := batch.SignVoucher(session, chain, idC, big.NewInt(2000))
	claims := []batch.VoucherClaim{
		{Voucher: batch.Voucher{Channel: cfgA, MaxClaimableAmount: batch.Num(t, vA.MaxClaimableAmount)}, Signature: vA.Signature, TotalClaimed: big.NewInt(700)},
		{Voucher: batch.Voucher{Channel: cfgB, MaxClaimableAmount: big.NewInt(3000)}, Signature: sigB, TotalClaimed: big.NewInt(3000)},
		{Voucher: batch.Voucher{Channel: cfgC, MaxClaimableAmount: big.NewInt(2000)}, Signature: sigC, TotalClaimed: big.NewInt(1500)},
	}
	authSig, err := batch.SignClaimBatch(fac, chain, claims)
	if err != nil {
		t.Fatal(err)
	}
	claimCall, _ := batch.ClaimWithSignatureCalldata(claims, authSig)
	receiverBefore := tc.balance(receiver)
	rc = tc.mustSend("claim of three channels", fac, batch.SettlementAddress, claimCall)
	gas["claimWithSignature, 3 channels"] = rc.GasUsed
	if logs(rc, "Claimed") != 3 {
		t.Errorf("%d Claimed events, want 3", logs(rc, "Claimed"))
	}
	for id, want := range map[common.Hash]int64{idA: 700, idB: 3000, idC: 1500} {
		if s := tc.state(id); s.TotalClaimed.Int64() != want {
			t.Errorf("channel %s claimed %s, want %d", id, s.TotalClaimed, want)
		}
	}
	if r := tc.receiver(receiver, tok); r.TotalClaimed.Int64() != 5200 || r.TotalSettled.Sign() != 0 {
		t.Errorf("receiver state %+v", r)
	}
	if got := tc.balance(receiver); got.Cmp(receiverBefore) != 0 {
		t.Errorf("a claim moved tokens to the receiver: %s -> %s", receiverBefore, got)
	}

	// The same claim again, and an older voucher: nothing changes.
	rc = tc.mustSend("replayed claim", fac, batch.SettlementAddress, claimCall)
	gas["claimWithSignature, 3 channels, replayed (no-op)"] = rc.GasUsed
	old := []batch.VoucherClaim{{Voucher: claims[0].Voucher, Signature: claims[0].Signature, TotalClaimed: big.NewInt(500)}}
	oldSig, _ := batch.SignClaimBatch(fac, chain, old)
	oldCall, _ := batch.ClaimWithSignatureCalldata(old, oldSig)
	rc2 := tc.mustSend("older voucher", fac, batch.SettlementAddress, oldCall)
	if logs(rc, "Claimed")+logs(rc2, "Claimed") != 0 {
		t.Error("a replayed claim claimed again")
	}
	if r := tc.receiver(receiver, tok); r.TotalClaimed.Int64() != 5200 {
		t.Errorf("after replays, receiver claimed %s", r.TotalClaimed)
	}

	// 3. Settle pays the receiver exactly what was claimed; again, nothing.
	settle, _ := batch.SettleCalldata(receiver, tok)
	rc = tc.mustSend("settle", fac, batch.SettlementAddress, settle)
	gas["settle"] = rc.GasUsed
	if got := new(big.Int).Sub(tc.balance(receiver), receiverBefore); got.Int64() != 5200 {
		t.Fatalf("receiver got %s, want 5200", got)
	}
	rc = tc.mustSend("settle again", fac, batch.SettlementAddress, settle)
	if logs(rc, "Settled") != 0 || new(big.Int).Sub(tc.balance(receiver), receiverBefore).Int64() != 5200 {
		t.Error("a second settle paid again")
	}
	if r := tc.receiver(receiver, tok); r.Unsettled().Sign() != 0 || r.TotalSettled.Int64() != 5200 {
		t.Errorf("receiver state after settle %+v", r)
	}

	// 4. Refused: bad signatures, claims beyond ceiling or balance, the
	// wrong sender, a direct collect, a delay out of range.
	wrong, _ := crypto.GenerateKey()
	claimWith := func(cs []batch.VoucherClaim, signer *ecdsa.PrivateKey) []byte {
		s, err := batch.SignClaimBatch(signer, chain, cs)
		if err != nil {
			t.Fatal(err)
		}
		data, err := batch.ClaimWithSignatureCalldata(cs, s)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	row := func(cfg batch.ChannelConfig, id common.Hash, signer *ecdsa.PrivateKey, max, total int64) batch.VoucherClaim {
		s, err := batch.SignVoucher(signer, chain, id, big.NewInt(max))
		if err != nil {
			t.Fatal(err)
		}
		return batch.VoucherClaim{Voucher: batch.Voucher{Channel: cfg, MaxClaimableAmount: big.NewInt(max)}, Signature: s, TotalClaimed: big.NewInt(total)}
	}
	direct, _ := batch.ClaimCalldata([]batch.VoucherClaim{row(cfgB, idB, b2, 4000, 3500)})
	badRefundSig, _ := batch.SignRefund(wrong, chain, idB, big.NewInt(0), big.NewInt(1))
	badRefund, _ := batch.RefundWithSignatureCalldata(cfgB, big.NewInt(1), big.NewInt(0), badRefundSig)
	goodSigWrongNonce, _ := batch.SignRefund(fac, chain, idB, big.NewInt(1), big.NewInt(1))
	wrongNonce, _ := batch.RefundWithSignatureCalldata(cfgB, big.NewInt(1), big.NewInt(1), goodSigWrongNonce)
	shortDelay := cfgB
	shortDelay.WithdrawDelay = 899
	badDelay, _ := batch.DepositCalldata(shortDelay, big.NewInt(1), batch.ERC3009CollectorAddress, nil)
	collectABI, _ := token.ERC3009DepositCollectorMetaData.GetAbi()
	collect, _ := collectABI.Pack("collect", buyers[0].Address, tok, big.NewInt(1), idA, cd)
	signerAddr := tc.c.Signer().Address
	for _, r := range []struct {
		name string
		from common.Address
		to   common.Address
		data []byte
		want string
	}{
		{"claim batch signed by another key", signerAddr, batch.SettlementAddress, func() []byte {
			return claimWith([]batch.VoucherClaim{row(cfgB, idB, b2, 4000, 3500)}, wrong)
		}(), "InvalidSignature"},
		{"voucher signed by another payer", signerAddr, batch.SettlementAddress, claimWith([]batch.VoucherClaim{row(cfgB, idB, b3, 4000, 3500)}, fac), "InvalidSignature"},
		{"voucher signed by the payer, not its authorizer", signerAddr, batch.SettlementAddress, claimWith([]batch.VoucherClaim{row(cfgC, idC, b3, 2500, 2500)}, fac), "InvalidSignature"},
		{"voucher with a malformed signature", signerAddr, batch.SettlementAddress, func() []byte {
			r := row(cfgC, idC, session, 2500, 2500)
			r.Signature = r.Signature[:64]
			return claimWith([]batch.VoucherClaim{r}, fac)
		}(), "ECDSAInvalidSignatureLength"},
		{"claim above the voucher's ceiling", signerAddr, batch.SettlementAddress, claimWith([]batch.VoucherClaim{row(cfgB, idB, b2, 4000, 4001)}, fac), "ClaimExceedsCeiling"},
		{"claim above the channel's balance", signerAddr, batch.SettlementAddress, claimWith([]batch.VoucherClaim{row(cfgB, idB, b2, 20_000, 10_001)}, fac), "ClaimExceedsBalance"},
		{"claim by someone not of the receiver side", buyers[0].Address, batch.SettlementAddress, direct, "NotAuthorizedToClaim"},
		{"empty claim batch", signerAddr, batch.SettlementAddress, claimWith(nil, fac), "EmptyBatch"},
		{"refund signed by another key", signerAddr, batch.SettlementAddress, badRefund, "InvalidSignature"},
		{"refund at a future nonce", signerAddr, batch.SettlementAddress, wrongNonce, "InvalidRefundNonce"},
		{"deposit with a withdraw delay below 15 minutes", signerAddr, batch.SettlementAddress, badDelay, "WithdrawDelayOutOfRange"},
		{"collect called directly", signerAddr, batch.ERC3009CollectorAddress, collect, "OnlyX402BatchSettlement"},
	} {
		if got := tc.revert(r.from, r.to, r.data); got != r.want {
			t.Errorf("%s: %s, want %s", r.name, got, r.want)
		}
	}
	// The receiver side may claim directly (no batch signature).
	rc = tc.mustSend("direct claim by the receiver authorizer", fac, batch.SettlementAddress, direct)
	gas["claim (direct, receiver authorizer), 1 channel"] = rc.GasUsed
	if tc.state(idB).TotalClaimed.Int64() != 3500 {
		t.Fatalf("channel B claimed %s after the direct claim", tc.state(idB).TotalClaimed)
	}

	// 5. Cooperative refund of channel B: buyer2 gets back deposit minus
	// charged (3500); the signature cannot be used twice. Claim and settle
	// ride in one multicall first, as a claim round can.
	round := claimWith([]batch.VoucherClaim{row(cfgC, idC, session, 2000, 2000)}, fac)
	mc, _ := batch.MulticallCalldata([][]byte{round, settle})
	rc = tc.mustSend("multicall claim + settle", fac, batch.SettlementAddress, mc)
	gas["multicall(claimWithSignature 1 channel, settle)"] = rc.GasUsed
	if got := new(big.Int).Sub(tc.balance(receiver), receiverBefore); got.Int64() != 6200 {
		t.Fatalf("receiver got %s after the second round, want 6200 (B's direct claim and C's, 500 each)", got)
	}
	full := big.NewInt(1_000_000) // more than is left: capped to the unclaimed escrow
	refSig, _ := batch.SignRefund(fac, chain, idB, big.NewInt(0), full)
	refund, _ := batch.RefundWithSignatureCalldata(cfgB, full, big.NewInt(0), refSig)
	rc = tc.mustSend("refund B", fac, batch.SettlementAddress, refund)
	gas["refundWithSignature"] = rc.GasUsed
	if got := tc.balance(buyers[1].Address); new(big.Int).Sub(start[buyers[1].Address], got).Int64() != 3500 {
		t.Errorf("buyer2 is out %s after the refund, want 3500 (charged)", new(big.Int).Sub(start[buyers[1].Address], got))
	}
	if s := tc.state(idB); s.Balance.Int64() != 3500 || s.TotalClaimed.Int64() != 3500 || s.RefundNonce.Int64() != 1 {
		t.Errorf("channel B after refund %+v", s)
	}
	if got := tc.revert(signerAddr, batch.SettlementAddress, refund); got != "InvalidRefundNonce" {
		t.Errorf("the refund signature again: %s", got)
	}
	// A direct refund by the receiver authorizer, partial.
	partial, _ := batch.RefundCalldata(cfgC, big.NewInt(500))
	rc = tc.mustSend("refund C partial", fac, batch.SettlementAddress, partial)
	gas["refund (direct, receiver authorizer)"] = rc.GasUsed
	if s := tc.state(idC); s.Balance.Int64() != 3500 || s.Available().Int64() != 1500 || s.RefundNonce.Int64() != 1 {
		t.Errorf("channel C after a partial refund %+v", s)
	}
	if got := tc.revert(buyers[2].Address, batch.SettlementAddress, partial); got != "NotAuthorizedToRefund" {
		t.Errorf("refund by the payer: %s", got)
	}

	// 6. Withdrawal of channel A by buyer1: only after the delay; a claim
	// during the delay still lands and the withdrawal is capped by it.
	avail := tc.state(idA).Available() // 10000 - 700
	initiate, _ := batch.InitiateWithdrawCalldata(cfgA, avail)
	rc = tc.mustSend("initiate withdraw", b1, batch.SettlementAddress, initiate)
	gas["initiateWithdraw"] = rc.GasUsed
	s := tc.state(idA)
	if s.WithdrawRequestedAt == 0 || s.WithdrawAmount.Cmp(avail) != 0 {
		t.Fatalf("channel A after the request %+v", s)
	}
	finalize, _ := batch.FinalizeWithdrawCalldata(cfgA)
	if got := tc.revert(buyers[0].Address, batch.SettlementAddress, finalize); got != "WithdrawDelayNotElapsed" {
		t.Errorf("finalize at once: %s", got)
	}
	if got := tc.revert(signerAddr, batch.SettlementAddress, finalize); got != "NotAuthorizedToFinalizeWithdraw" {
		t.Errorf("finalize by someone else: %s", got)
	}
	if got := tc.revert(buyers[0].Address, batch.SettlementAddress, initiate); got != "WithdrawalAlreadyPending" {
		t.Errorf("a second request: %s", got)
	}
	late := []batch.VoucherClaim{{Voucher: claims[0].Voucher, Signature: claims[0].Signature, TotalClaimed: big.NewInt(1000)}}
	tc.mustSend("claim during the withdraw delay", fac, batch.SettlementAddress, claimWith(late, fac))
	if err := tc.c.AdjustTime(time.Duration(cfgA.WithdrawDelay-60) * time.Second); err != nil {
		t.Fatal(err)
	}
	if got := tc.revert(buyers[0].Address, batch.SettlementAddress, finalize); got != "WithdrawDelayNotElapsed" {
		t.Errorf("finalize a minute before the delay ends: %s", got)
	}
	if err := tc.c.AdjustTime(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	b1Before := tc.balance(buyers[0].Address)
	rc = tc.mustSend("finalize withdraw", b1, batch.SettlementAddress, finalize)
	gas["finalizeWithdraw"] = rc.GasUsed
	if got := new(big.Int).Sub(tc.balance(buyers[0].Address), b1Before); got.Int64() != 9000 {
		t.Errorf("buyer1 withdrew %s, want 9000 (10000 deposited - 1000 claimed)", got)
	}
	if s := tc.state(idA); s.Balance.Int64() != 1000 || s.TotalClaimed.Int64() != 1000 || s.WithdrawRequestedAt != 0 {
		t.Errorf("channel A after the withdrawal %+v", s)
	}
	tc.mustSend("settle after the withdrawal", fac, batch.SettlementAddress, settle)
	if got := new(big.Int).Sub(tc.balance(receiver), receiverBefore); got.Int64() != 6500 {
		t.Errorf("receiver got %s in all, want 6500 (claimed: A 1000, B 3500, C 2000)", got)
	}

	// Money in = money out: what the contract still holds is what is
	// deposited, not refunded, withdrawn or settled.
	held := new(big.Int).Sub(tc.balance(batch.SettlementAddress), contractBefore)
	if want := int64(24_000 - 6_500 /*B refunded*/ - 500 /*C refunded*/ - 9_000 /*A withdrawn*/ - 6_500 /*settled*/); held.Int64() != want {
		t.Errorf("contract holds %s, want %d", held, want)
	}
	var names []string
	for k := range gas {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("gas %-60s %7d", k, gas[k])
	}
}

// TestTransientReentrancyGuard: the contract's reentrancy guard, in
// EIP-1153 transient storage, holds on the devnet. A collector that calls
// back into the settlement contract (settle, itself guarded) during a
// deposit gets ReentrancyGuardReentrantCall, which it passes on; were the
// guard not there, the inner settle would succeed and the collector would
// revert without data.
func TestTransientReentrancyGuard(t *testing.T) {
	t.Parallel()
	tc := startChain(t, devnet.Config{})
	sel := batch.ABI.Methods["settle"].ID
	// PUSH4 sel PUSH1 0xe0 SHL PUSH0 MSTORE; CALL(gas, settlement, 0, 0, 0x44, 0, 0); POP;
	// RETURNDATACOPY(0, 0, RETURNDATASIZE); REVERT(0, RETURNDATASIZE)
	code := append([]byte{0x63}, sel...)
	code = append(code, 0x60, 0xe0, 0x1b, 0x5f, 0x52, 0x5f, 0x5f, 0x60, 0x44, 0x5f, 0x5f, 0x73)
	code = append(code, batch.SettlementAddress.Bytes()...)
	code = append(code, 0x5a, 0xf1, 0x50, 0x3d, 0x5f, 0x5f, 0x3e, 0x3d, 0x5f, 0xfd)
	evil := common.HexToAddress("0x00000000000000000000000000000000000e411c")
	rpcClient, err := rpc.Dial(tc.c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer rpcClient.Close()
	cfg := batch.ChannelConfig{Payer: tc.c.Buyers()[0].Address, Receiver: common.HexToAddress("0xb0b"), ReceiverAuthorizer: tc.c.Signer().Address, Token: tc.c.Token(), WithdrawDelay: 900}
	data, err := batch.DepositCalldata(cfg, big.NewInt(1), evil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = gethclient.New(rpcClient).CallContract(tc.ctx(), ethereum.CallMsg{From: tc.c.Signer().Address, To: &batch.SettlementAddress, Data: data}, nil,
		&map[common.Address]gethclient.OverrideAccount{evil: {Code: code}})
	if got := revertName(err); got != "ReentrancyGuardReentrantCall" {
		t.Fatalf("deposit through a collector that re-enters: %s", got)
	}
	// The same collector called outside a guarded call: settle runs and
	// the collector reverts without data.
	_, err = gethclient.New(rpcClient).CallContract(tc.ctx(), ethereum.CallMsg{To: &evil}, nil, &map[common.Address]gethclient.OverrideAccount{evil: {Code: code}})
	if got := revertName(err); !strings.HasPrefix(got, "revert without data") {
		t.Fatalf("the collector alone: %s", got)
	}
}

// TestSupportsTransientStorage: the devnet runs EIP-1153; a real EVM with
// the Shanghai rules (as Ethermint chains before their Cancun migration)
// refuses the probe; an unreachable node is an error, not a "no".
func TestSupportsTransientStorage(t *testing.T) {
	t.Parallel()
	tc := startChain(t, devnet.Config{})
	if ok, err := batch.SupportsTransientStorage(tc.ctx(), tc.cl); !ok || err != nil {
		t.Fatalf("devnet: %v, %v", ok, err)
	}
	shanghai := *params.MergedTestChainConfig
	shanghai.CancunTime, shanghai.PragueTime, shanghai.OsakaTime = nil, nil, nil
	if ok, err := batch.SupportsTransientStorage(tc.ctx(), evmCaller{&shanghai}); ok || err != nil {
		t.Fatalf("Shanghai EVM: %v, %v", ok, err)
	}
	cancun := *params.MergedTestChainConfig
	if ok, err := batch.SupportsTransientStorage(tc.ctx(), evmCaller{&cancun}); !ok || err != nil {
		t.Fatalf("Cancun EVM: %v, %v", ok, err)
	}
	down, err := ethclient.Dial("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := batch.SupportsTransientStorage(tc.ctx(), down); ok || err == nil || !strings.Contains(err.Error(), "probing EIP-1153") {
		t.Fatalf("unreachable node: %v, %v", ok, err)
	}
}

// evmCaller runs eth_call's creation-code form in go-ethereum's in-memory
// EVM with a chosen fork schedule; a failure is a JSON-RPC error, as a node
// answers it.
type evmCaller struct{ cfg *params.ChainConfig }

func (e evmCaller) CallContract(_ context.Context, msg ethereum.CallMsg, _ *big.Int) ([]byte, error) {
	out, _, _, err := runtime.Create(msg.Data, &runtime.Config{ChainConfig: e.cfg, GasLimit: 1_000_000})
	if err != nil {
		return nil, rpcError{err}
	}
	return out, nil
}

type rpcError struct{ error }

func (rpcError) ErrorCode() int { return 3 }

// TestSmartWalletChannelOnDevnet: a contract wallet (EIP-1271, the devnet's
// SmartWallet of buyer1) deposits through the ERC-3009 collector and pays by
// vouchers its owner signs, in a channel without a payer authorizer: the
// claim checks them through the wallet's isValidSignature. The deposit's
// EIP-3009 nonce is the one ERC3009DepositNonce gives (what the mechanism's
// Spent will ask the token), and a voucher the wallet refuses reverts.
func TestSmartWalletChannelOnDevnet(t *testing.T) {
	t.Parallel()
	tc := startChain(t, devnet.Config{})
	chain, tok := tc.c.ChainID(), tc.c.Token()
	fac, owner, stranger := tc.c.Signer().Key, tc.c.Buyers()[0].Key, tc.c.Buyers()[1].Key
	wallet := tc.c.SmartWallet().Address
	receiver := common.HexToAddress("0x00000000000000000000000000000000000b0b27")
	cfg := batch.ChannelConfig{Payer: wallet, Receiver: receiver, ReceiverAuthorizer: tc.c.Signer().Address, Token: tok, WithdrawDelay: 900, Salt: common.HexToHash("0x1271")}
	id, _ := cfg.ID(chain)
	dep := batch.ERC3009Deposit{From: wallet, Value: big.NewInt(50_000), ValidAfter: new(big.Int), ValidBefore: big.NewInt(time.Now().Add(time.Hour).Unix()), Salt: big.NewInt(9), ChannelID: id}
	sig, err := batch.SignERC3009Deposit(owner, evm.Domain{Name: devnet.TokenName, Version: devnet.TokenVersion, ChainID: chain, VerifyingContract: tok}, dep)
	if err != nil {
		t.Fatal(err)
	}
	cd, _ := batch.ERC3009CollectorData(dep.ValidAfter, dep.ValidBefore, dep.Salt, sig)
	call, _ := batch.DepositCalldata(cfg, dep.Value, batch.ERC3009CollectorAddress, cd)
	walletBefore := tc.balance(wallet)
	tc.mustSend("deposit from a smart wallet", fac, batch.SettlementAddress, call)
	if got := new(big.Int).Sub(walletBefore, tc.balance(wallet)); got.Int64() != 50_000 {
		t.Fatalf("wallet paid %s", got)
	}
	nonce, _ := batch.ERC3009DepositNonce(id, dep.Salt)
	tk, _ := token.NewEIP3009Token(tok, tc.cl)
	if used, err := tk.AuthorizationState(nil, wallet, nonce); err != nil || !used {
		t.Fatalf("authorizationState(wallet, ERC3009DepositNonce) %v, %v", used, err)
	}

	claimOf := func(signer *ecdsa.PrivateKey, max, total int64) []byte {
		vs, err := batch.SignVoucher(signer, chain, id, big.NewInt(max))
		if err != nil {
			t.Fatal(err)
		}
		rows := []batch.VoucherClaim{{Voucher: batch.Voucher{Channel: cfg, MaxClaimableAmount: big.NewInt(max)}, Signature: vs, TotalClaimed: big.NewInt(total)}}
		as, err := batch.SignClaimBatch(fac, chain, rows)
		if err != nil {
			t.Fatal(err)
		}
		data, err := batch.ClaimWithSignatureCalldata(rows, as)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if got := tc.revert(tc.c.Signer().Address, batch.SettlementAddress, claimOf(stranger, 2000, 2000)); got != "InvalidSignature" {
		t.Errorf("a voucher the wallet refuses: %s", got)
	}
	rc := tc.mustSend("claim of a smart wallet's voucher", fac, batch.SettlementAddress, claimOf(owner, 2000, 1500))
	t.Logf("gas claimWithSignature, 1 channel, EIP-1271 payer: %d", rc.GasUsed)
	if s := tc.state(id); s.Balance.Int64() != 50_000 || s.TotalClaimed.Int64() != 1500 {
		t.Errorf("channel %+v", s)
	}
}

// TestClaimGasByRows measures what a claim round costs by its number of
// channels: claimWithSignature of 1, 10 and 100 channels (one payer's
// channels, told apart by their salts), and the same rounds sent again
// (no-ops). It logs gas per transaction and per row, for sizing claim
// rounds; it asserts only that every row was claimed exactly once.
func TestClaimGasByRows(t *testing.T) {
	if testing.Short() {
		t.Skip("deposits 111 channels")
	}
	t.Parallel()
	tc := startChain(t, devnet.Config{BlockTime: 200 * time.Millisecond})
	chain, tok := tc.c.ChainID(), tc.c.Token()
	fac, buyer := tc.c.Signer().Key, tc.c.Buyers()[0]
	receiver := common.HexToAddress("0x00000000000000000000000000000000000b0b29")
	domain := evm.Domain{Name: devnet.TokenName, Version: devnet.TokenVersion, ChainID: chain, VerifyingContract: tok}
	salt := 0
	channels := func(n int) ([]batch.VoucherClaim, []common.Hash) {
		var deposits [][]byte
		var rows []batch.VoucherClaim
		var ids []common.Hash
		for range n {
			salt++
			cfg := batch.ChannelConfig{Payer: buyer.Address, PayerAuthorizer: buyer.Address, Receiver: receiver, ReceiverAuthorizer: tc.c.Signer().Address, Token: tok, WithdrawDelay: 900, Salt: common.BigToHash(big.NewInt(int64(salt)))}
			id, _ := cfg.ID(chain)
			d := batch.ERC3009Deposit{From: buyer.Address, Value: big.NewInt(10_000), ValidAfter: new(big.Int), ValidBefore: big.NewInt(time.Now().Add(time.Hour).Unix()), Salt: big.NewInt(1), ChannelID: id}
			sig, err := batch.SignERC3009Deposit(buyer.Key, domain, d)
			if err != nil {
				t.Fatal(err)
			}
			cd, _ := batch.ERC3009CollectorData(d.ValidAfter, d.ValidBefore, d.Salt, sig)
			call, _ := batch.DepositCalldata(cfg, d.Value, batch.ERC3009CollectorAddress, cd)
			deposits = append(deposits, call)
			vs, _ := batch.SignVoucher(buyer.Key, chain, id, big.NewInt(5_000))
			rows = append(rows, batch.VoucherClaim{Voucher: batch.Voucher{Channel: cfg, MaxClaimableAmount: big.NewInt(5_000)}, Signature: vs, TotalClaimed: big.NewInt(4_000)})
			ids = append(ids, id)
		}
		tc.sendAll("deposits", fac, batch.SettlementAddress, deposits)
		return rows, ids
	}
	total := int64(0)
	for _, n := range []int{1, 10, 100} {
		rows, ids := channels(n)
		as, err := batch.SignClaimBatch(fac, chain, rows)
		if err != nil {
			t.Fatal(err)
		}
		call, err := batch.ClaimWithSignatureCalldata(rows, as)
		if err != nil {
			t.Fatal(err)
		}
		first := tc.mustSend("claim round", fac, batch.SettlementAddress, call)
		again := tc.mustSend("claim round again", fac, batch.SettlementAddress, call)
		total += 4_000 * int64(n)
		if logs(first, "Claimed") != n || logs(again, "Claimed") != 0 {
			t.Fatalf("%d rows: %d Claimed, %d on the replay", n, logs(first, "Claimed"), logs(again, "Claimed"))
		}
		if s := tc.state(ids[n-1]); s.TotalClaimed.Int64() != 4_000 {
			t.Fatalf("%d rows: last channel claimed %s", n, s.TotalClaimed)
		}
		t.Logf("claimWithSignature %3d channels: %8d gas (%6d per row), calldata %6d bytes; replayed %8d gas",
			n, first.GasUsed, first.GasUsed/uint64(n), len(call), again.GasUsed)
	}
	if r := tc.receiver(receiver, tok); r.TotalClaimed.Int64() != total {
		t.Errorf("receiver claimed %s, want %d", r.TotalClaimed, total)
	}
}

// TestDepositRefusals: a deposit the contracts refuse, by the error the
// facilitator will map: a zero payer, no collector, nothing to deposit, a
// collector that pulls nothing (the balance check), an EIP-2612 permit for
// another amount in the Permit2 collector's data, a Permit2 deposit
// without Permit2's allowance.
func TestDepositRefusals(t *testing.T) {
	t.Parallel()
	tc := startChain(t, devnet.Config{})
	chain, tok, buyer := tc.c.ChainID(), tc.c.Token(), tc.c.Buyers()[0]
	from := tc.c.Signer().Address
	cfg := batch.ChannelConfig{Payer: buyer.Address, Receiver: common.HexToAddress("0xb0b"), ReceiverAuthorizer: from, Token: tok, WithdrawDelay: 900}
	id, _ := cfg.ID(chain)
	dep := func(c batch.ChannelConfig, amount int64, collector common.Address, data []byte) []byte {
		out, err := batch.DepositCalldata(c, big.NewInt(amount), collector, data)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	noPayer := cfg
	noPayer.Payer = common.Address{}
	deadline := big.NewInt(time.Now().Add(time.Hour).Unix())
	p2 := batch.Permit2Deposit{Token: tok, Amount: big.NewInt(1000), Nonce: big.NewInt(1), Deadline: deadline, ChannelID: id}
	p2sig, _ := batch.SignPermit2Deposit(buyer.Key, chain, p2)
	withPermit, _ := batch.Permit2CollectorData(p2.Nonce, p2.Deadline, p2sig, tc.eip2612(buyer.Key, big.NewInt(999), deadline))
	noPermit, _ := batch.Permit2CollectorData(p2.Nonce, p2.Deadline, p2sig, nil)
	for _, r := range []struct {
		name string
		data []byte
		want string
	}{
		{"zero payer", dep(noPayer, 1000, batch.ERC3009CollectorAddress, nil), "InvalidChannel"},
		{"zero amount", dep(cfg, 0, batch.ERC3009CollectorAddress, nil), "ZeroDeposit"},
		{"zero collector", dep(cfg, 1000, common.Address{}, nil), "InvalidCollector"},
		{"EIP-2612 permit for another amount", dep(cfg, 1000, batch.Permit2CollectorAddress, withPermit), "Permit2612AmountMismatch"},
		{"Permit2 without allowance", dep(cfg, 1000, batch.Permit2CollectorAddress, noPermit), "Error(TRANSFER_FROM_FAILED)"},
	} {
		if got := tc.revert(from, batch.SettlementAddress, r.data); got != r.want {
			t.Errorf("%s: %s, want %s", r.name, got, r.want)
		}
	}
	// A collector that returns without pulling: the balance check refuses.
	rpcClient, err := rpc.Dial(tc.c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer rpcClient.Close()
	lazy := common.HexToAddress("0x00000000000000000000000000000000000001a2")
	_, err = gethclient.New(rpcClient).CallContract(tc.ctx(), ethereum.CallMsg{From: from, To: &batch.SettlementAddress, Data: dep(cfg, 1000, lazy, nil)}, nil,
		&map[common.Address]gethclient.OverrideAccount{lazy: {Code: []byte{0x00}}}) // STOP
	if got := revertName(err); got != "DepositCollectionFailed" {
		t.Errorf("a collector that pulls nothing: %s", got)
	}
}

// TestChannelClosedAndReopened: a channel refunded in full with nothing
// claimed is closed (ChannelClosed, balance 0); a later deposit opens it
// again (ChannelCreated once more), as the spec tells indexers to expect.
func TestChannelClosedAndReopened(t *testing.T) {
	t.Parallel()
	tc := startChain(t, devnet.Config{})
	chain, tok, buyer, fac := tc.c.ChainID(), tc.c.Token(), tc.c.Buyers()[0], tc.c.Signer().Key
	cfg := batch.ChannelConfig{Payer: buyer.Address, Receiver: common.HexToAddress("0xb0b"), ReceiverAuthorizer: tc.c.Signer().Address, Token: tok, WithdrawDelay: 900}
	id, _ := cfg.ID(chain)
	domain := evm.Domain{Name: devnet.TokenName, Version: devnet.TokenVersion, ChainID: chain, VerifyingContract: tok}
	deposit := func(salt int64) []byte {
		d := batch.ERC3009Deposit{From: buyer.Address, Value: big.NewInt(700), ValidAfter: new(big.Int), ValidBefore: big.NewInt(time.Now().Add(time.Hour).Unix()), Salt: big.NewInt(salt), ChannelID: id}
		sig, err := batch.SignERC3009Deposit(buyer.Key, domain, d)
		if err != nil {
			t.Fatal(err)
		}
		cd, _ := batch.ERC3009CollectorData(d.ValidAfter, d.ValidBefore, d.Salt, sig)
		call, _ := batch.DepositCalldata(cfg, d.Value, batch.ERC3009CollectorAddress, cd)
		return call
	}
	before := tc.balance(buyer.Address)
	if rc := tc.mustSend("deposit", fac, batch.SettlementAddress, deposit(1)); logs(rc, "ChannelCreated") != 1 {
		t.Fatal("no ChannelCreated")
	}
	refund, _ := batch.RefundCalldata(cfg, big.NewInt(700))
	rc := tc.mustSend("full refund", fac, batch.SettlementAddress, refund)
	if logs(rc, "Refunded") != 1 || logs(rc, "ChannelClosed") != 1 {
		t.Fatalf("full refund: %d Refunded, %d ChannelClosed", logs(rc, "Refunded"), logs(rc, "ChannelClosed"))
	}
	if s := tc.state(id); s.Balance.Sign() != 0 || tc.balance(buyer.Address).Cmp(before) != 0 {
		t.Fatalf("after the full refund: %+v, buyer %s (was %s)", s, tc.balance(buyer.Address), before)
	}
	// A refund with nothing left moves nothing but still uses a nonce.
	rc = tc.mustSend("empty refund", fac, batch.SettlementAddress, refund)
	if logs(rc, "Refunded") != 0 || tc.state(id).RefundNonce.Int64() != 2 {
		t.Fatalf("empty refund: %d Refunded, nonce %s", logs(rc, "Refunded"), tc.state(id).RefundNonce)
	}
	if rc := tc.mustSend("deposit again", fac, batch.SettlementAddress, deposit(2)); logs(rc, "ChannelCreated") != 1 {
		t.Fatal("a deposit into a closed channel did not create it again")
	}
}
