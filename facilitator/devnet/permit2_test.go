package devnet

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
)

// TestPermit2OnDevnet: Permit2 and both proxies answer at their canonical
// addresses over JSON-RPC; a buyer who never sent a transaction approves
// Permit2 by an EIP-2612 signature, and the facilitator (the devnet's
// signer) settles an upto payment below its maximum.
func TestPermit2OnDevnet(t *testing.T) {
	t.Parallel()
	c := start(t, Config{BlockTime: 200 * time.Millisecond})
	cl := dial(t, c)
	ctx := context.Background()

	info := c.Info()
	if !c.HasPermit2() || info.Permit2 == nil || info.Permit2.Address != permit2.Address ||
		info.Permit2.ExactProxy != permit2.ExactProxyAddress || info.Permit2.UptoProxy != permit2.UptoProxyAddress {
		t.Fatalf("info %+v", info.Permit2)
	}
	data, _ := json.Marshal(info)
	if !strings.Contains(string(data), `"permit2":{"address":"0x000000000022d473030f116ddee9f6b43ac78ba3","exactProxy":"0x402085c248eea27d92e8b30b2c58ed07f9e20001","uptoProxy":"0x4020a4f3b7b90cca423b9fabcc0ce57c6c240002"}`) {
		t.Fatalf("info JSON %s", data)
	}
	p2, err := token.NewPermit2(Permit2Address, cl)
	if err != nil {
		t.Fatal(err)
	}
	sep, err := p2.DOMAINSEPARATOR(nil)
	want, _ := permit2.DomainSeparator(big.NewInt(ChainID))
	if err != nil || common.Hash(sep) != want {
		t.Fatalf("DOMAIN_SEPARATOR %x, %v", sep, err)
	}
	for _, addr := range []common.Address{ExactPermit2ProxyAddress, UptoPermit2ProxyAddress} {
		px, err := token.NewX402ExactPermit2Proxy(addr, cl) // PERMIT2() is common to both
		if err != nil {
			t.Fatal(err)
		}
		if got, err := px.PERMIT2(nil); err != nil || got != Permit2Address {
			t.Fatalf("%s: PERMIT2 %s, %v", addr, got, err)
		}
	}

	buyer, fac := c.Buyers()[1], c.Signer()
	payee := common.HexToAddress("0x00000000000000000000000000000000000b0b02")
	tok, err := token.NewEIP3009Token(c.Token(), cl)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := bind.NewKeyedTransactorWithChainID(fac.Key, c.ChainID())
	if err != nil {
		t.Fatal(err)
	}

	// EIP-2612: the buyer's signature, the facilitator's transaction.
	max, charge := big.NewInt(5_000_000), big.NewInt(3_141_592)
	deadline := big.NewInt(time.Now().Add(time.Hour).Unix())
	digest, _, err := apitypes.TypedDataAndHash(apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"Permit":       {{Name: "owner", Type: "address"}, {Name: "spender", Type: "address"}, {Name: "value", Type: "uint256"}, {Name: "nonce", Type: "uint256"}, {Name: "deadline", Type: "uint256"}},
		},
		PrimaryType: "Permit",
		Domain:      apitypes.TypedDataDomain{Name: TokenName, Version: TokenVersion, ChainId: math.NewHexOrDecimal256(ChainID), VerifyingContract: TokenAddress.Hex()},
		Message:     apitypes.TypedDataMessage{"owner": buyer.Address.Hex(), "spender": Permit2Address.Hex(), "value": max, "nonce": new(big.Int), "deadline": deadline},
	})
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(digest, buyer.Key)
	if err != nil {
		t.Fatal(err)
	}
	var r, s [32]byte
	copy(r[:], sig[:32])
	copy(s[:], sig[32:64])
	tx, err := tok.Permit0(opts, buyer.Address, Permit2Address, max, deadline, sig[64]+27, r, s)
	if err != nil {
		t.Fatal(err)
	}
	if rc := waitMined(t, cl, tx.Hash()); rc.Status != types.ReceiptStatusSuccessful {
		t.Fatal("permit failed")
	}
	if a, _ := tok.Allowance(nil, buyer.Address, Permit2Address); a.Cmp(max) != 0 {
		t.Fatalf("Permit2's allowance %s", a)
	}

	// The upto payment, signed with package evm's helper.
	a := permit2.Authorization{
		From: buyer.Address, Token: c.Token(), Amount: max, Spender: UptoPermit2ProxyAddress,
		Nonce: big.NewInt(42), Deadline: deadline, To: payee, Facilitator: fac.Address, ValidAfter: new(big.Int),
	}
	psig, err := permit2.Sign(buyer.Key, permit2.UptoProxy, c.ChainID(), a)
	if err != nil {
		t.Fatal(err)
	}
	upto, err := token.NewX402UptoPermit2Proxy(UptoPermit2ProxyAddress, cl)
	if err != nil {
		t.Fatal(err)
	}
	permit := token.ISignatureTransferPermitTransferFrom{
		Permitted: token.ISignatureTransferTokenPermissions{Token: a.Token, Amount: a.Amount}, Nonce: a.Nonce, Deadline: a.Deadline,
	}
	witness := token.X402UptoPermit2ProxyWitness{To: a.To, Facilitator: a.Facilitator, ValidAfter: a.ValidAfter}
	tx, err = upto.Settle(opts, permit, charge, buyer.Address, witness, psig)
	if err != nil {
		t.Fatal(err)
	}
	rc := waitMined(t, cl, tx.Hash())
	if rc.Status != types.ReceiptStatusSuccessful {
		t.Fatal("upto settle failed")
	}
	t.Logf("upto settle on the devnet: gas used %d", rc.GasUsed)
	if got, _ := c.BalanceOf(ctx, payee); got.Cmp(charge) != 0 {
		t.Fatalf("payee %s, want %s", got, charge)
	}
	if got, _ := c.BalanceOf(ctx, buyer.Address); got.Cmp(new(big.Int).Sub(BuyerTokens, charge)) != 0 {
		t.Fatalf("buyer %s", got)
	}
	// Sent again, it is refused.
	uptoABI, _ := token.X402UptoPermit2ProxyMetaData.GetAbi()
	call, _ := uptoABI.Pack("settle", permit, big.NewInt(1), buyer.Address, witness, psig)
	if _, err := cl.CallContract(ctx, ethereum.CallMsg{From: fac.Address, To: &UptoPermit2ProxyAddress, Data: call}, nil); err == nil {
		t.Fatal("the same payment settled twice")
	}
}

// TestWithoutPermit2: nothing at the canonical addresses; the info file
// says nothing of Permit2.
func TestWithoutPermit2(t *testing.T) {
	t.Parallel()
	c := start(t, Config{BlockTime: 200 * time.Millisecond, WithoutPermit2: true})
	for _, addr := range []common.Address{Permit2Address, ExactPermit2ProxyAddress, UptoPermit2ProxyAddress} {
		code, err := c.Client().CodeAt(context.Background(), addr, nil)
		if err != nil || len(code) != 0 {
			t.Fatalf("%s: %d bytes of code, %v", addr, len(code), err)
		}
	}
	data, _ := json.Marshal(c.Info())
	if c.HasPermit2() || c.Info().Permit2 != nil || strings.Contains(string(data), "permit2") {
		t.Fatalf("info %s", data)
	}
}

// TestWithoutPermit2BatchSettlement: on a chain without Permit2, the
// batch-settlement contract and its ERC-3009 collector are there, the
// Permit2 collector is not.
func TestWithoutPermit2BatchSettlement(t *testing.T) {
	t.Parallel()
	c := start(t, Config{BlockTime: 200 * time.Millisecond, WithoutPermit2: true})
	for addr, want := range map[common.Address]bool{BatchSettlementAddress: true, ERC3009CollectorAddress: true, Permit2CollectorAddress: false} {
		code, err := c.Client().CodeAt(context.Background(), addr, nil)
		if err != nil || (len(code) > 0) != want {
			t.Errorf("%s: %d bytes of code, %v", addr, len(code), err)
		}
	}
	if info := c.Info(); !c.HasBatchSettlement() || info.BatchSettlement == nil || info.BatchSettlement.Permit2Collector != nil {
		t.Fatalf("info %+v", info.BatchSettlement)
	}
}
