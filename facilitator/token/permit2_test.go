package token

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
)

// p2env is a chain with id 338 (the devnet's, so payloads signed by the
// published client for the devnet settle here) carrying the token, Permit2
// and both proxies at their canonical addresses, placed by genesis
// allocation as the devnet places them. The buyer and the facilitator are
// the devnet's buyer1 and signer.
type p2env struct {
	sim     *simulated.Backend
	client  simulated.Client
	chainID *big.Int

	tok     *EIP3009Token
	permit2 *Permit2
	exact   *X402ExactPermit2Proxy
	upto    *X402UptoPermit2Proxy
	errs    []abi.Error // every custom error of the three contracts

	buyerKey, facKey, strangerKey *ecdsa.PrivateKey
	buyer, fac, stranger, payee   common.Address
}

var (
	uptoAddr  = permit2.UptoProxyAddress
	exactAddr = permit2.ExactProxyAddress
)

func newP2Env(t *testing.T) *p2env {
	t.Helper()
	e := &p2env{chainID: big.NewInt(338)}
	e.buyerKey, e.buyer = testKey(t, "caddy-x402 devnet buyer 1")
	e.facKey, e.fac = testKey(t, "caddy-x402 devnet signer")
	e.strangerKey, e.stranger = testKey(t, "permit2 test stranger")
	e.payee = common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")
	minter := common.HexToAddress("0x01")

	alloc := types.GenesisAlloc{
		e.buyer:    {Balance: gasMoney},
		e.fac:      {Balance: gasMoney},
		e.stranger: {Balance: gasMoney},
		genesisAt: {
			Code:    RuntimeCode(),
			Storage: GenesisStorage(minter, map[common.Address]*big.Int{e.buyer: thousand}),
			Balance: new(big.Int),
		},
		permit2.Address: {Code: Permit2RuntimeCode(), Balance: new(big.Int)},
	}
	for addr, kind := range map[common.Address]ProxyKind{uptoAddr: UptoProxy, exactAddr: ExactProxy} {
		g, err := ProxyGenesisFor(kind, permit2.Address)
		if err != nil {
			t.Fatal(err)
		}
		alloc[addr] = types.Account{Code: g.Code, Storage: g.Storage, Balance: new(big.Int)}
	}
	e.sim = simulated.NewBackend(alloc, func(n *node.Config, ec *ethconfig.Config) {
		preAmsterdam(n, ec)
		ec.Genesis.Config.ChainID = e.chainID
		ec.NetworkId = 338
	})
	t.Cleanup(func() { e.sim.Close() })
	e.sim.Commit()
	e.client = e.sim.Client()
	if id, err := e.client.ChainID(context.Background()); err != nil || id.Cmp(e.chainID) != 0 {
		t.Fatalf("chain id %v %v", id, err)
	}
	var err error
	if e.tok, err = NewEIP3009Token(genesisAt, e.client); err != nil {
		t.Fatal(err)
	}
	if e.permit2, err = NewPermit2(permit2.Address, e.client); err != nil {
		t.Fatal(err)
	}
	if e.exact, err = NewX402ExactPermit2Proxy(exactAddr, e.client); err != nil {
		t.Fatal(err)
	}
	if e.upto, err = NewX402UptoPermit2Proxy(uptoAddr, e.client); err != nil {
		t.Fatal(err)
	}
	for _, md := range []*bind.MetaData{Permit2MetaData, X402ExactPermit2ProxyMetaData, X402UptoPermit2ProxyMetaData} {
		a, err := md.GetAbi()
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range a.Errors {
			e.errs = append(e.errs, x)
		}
	}
	return e
}

func (e *p2env) opts(t *testing.T, k *ecdsa.PrivateKey) *bind.TransactOpts {
	t.Helper()
	o, err := bind.NewKeyedTransactorWithChainID(k, e.chainID)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// mined returns a function that seals a block and requires the
// transaction sent to have succeeded in it: e.mined(t)(binding call).
func (e *p2env) mined(t *testing.T) func(*types.Transaction, error) *types.Receipt {
	return func(tx *types.Transaction, err error) *types.Receipt {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		e.sim.Commit()
		r, err := e.client.TransactionReceipt(context.Background(), tx.Hash())
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("tx %s failed", tx.Hash())
		}
		return r
	}
}

func (e *p2env) balance(t *testing.T, a common.Address) *big.Int {
	t.Helper()
	b, err := e.tok.BalanceOf(nil, a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// approvePermit2 lets Permit2 move all of the buyer's tokens, as the x402
// clients' approval transaction does.
func (e *p2env) approvePermit2(t *testing.T) {
	t.Helper()
	e.mined(t)(e.tok.Approve(e.opts(t, e.buyerKey), permit2.Address, abi.MaxUint256))
}

func (e *p2env) now(t *testing.T) int64 {
	t.Helper()
	h, err := e.client.HeaderByNumber(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return int64(h.Time)
}

// revert runs an eth_call and names its revert: "Name(args)" for a custom
// error of Permit2 or a proxy, the string of an Error(string), "" when the
// call succeeds.
func (e *p2env) revert(t *testing.T, from, to common.Address, data []byte) string {
	t.Helper()
	_, err := e.client.CallContract(context.Background(), ethereum.CallMsg{From: from, To: &to, Data: data}, nil)
	if err == nil {
		return ""
	}
	var de rpc.DataError
	if !errors.As(err, &de) {
		t.Fatalf("call error without data: %v", err)
	}
	s, _ := de.ErrorData().(string)
	raw, err := hexutil.Decode(s)
	if err != nil {
		t.Fatalf("error data %v: %v", de.ErrorData(), err)
	}
	if reason, err := abi.UnpackRevert(raw); err == nil {
		return reason
	}
	for _, x := range e.errs {
		if len(raw) >= 4 && string(raw[:4]) == string(x.ID[:4]) {
			args, err := x.Inputs.Unpack(raw[4:])
			if err != nil {
				t.Fatal(err)
			}
			parts := make([]string, len(args))
			for i, a := range args {
				parts[i] = fmt.Sprint(a)
			}
			return x.Name + "(" + strings.Join(parts, ",") + ")"
		}
	}
	return fmt.Sprintf("unknown revert %x", raw)
}

// payment is one signed Permit2 payment through a proxy.
type payment struct {
	proxy permit2.Proxy
	a     permit2.Authorization
	sig   []byte
}

// newPayment returns a payment by the buyer to the payee of max tokens,
// valid from now on for an hour, edited by edit before it is signed.
func (e *p2env) newPayment(t *testing.T, proxy permit2.Proxy, max *big.Int, nonce int64, edit func(*permit2.Authorization)) payment {
	t.Helper()
	a := permit2.Authorization{
		From: e.buyer, Token: genesisAt, Amount: max, Spender: proxy.Address(),
		Nonce: big.NewInt(nonce), Deadline: big.NewInt(e.now(t) + 3600),
		To: e.payee, ValidAfter: new(big.Int),
	}
	if proxy == permit2.UptoProxy {
		a.Facilitator = e.fac
	}
	if edit != nil {
		edit(&a)
	}
	sig, err := permit2.Sign(e.buyerKey, proxy, e.chainID, a)
	if err != nil {
		t.Fatal(err)
	}
	return payment{proxy, a, sig}
}

func (p payment) permit() ISignatureTransferPermitTransferFrom {
	return ISignatureTransferPermitTransferFrom{
		Permitted: ISignatureTransferTokenPermissions{Token: p.a.Token, Amount: p.a.Amount},
		Nonce:     p.a.Nonce,
		Deadline:  p.a.Deadline,
	}
}

func (p payment) uptoWitness() X402UptoPermit2ProxyWitness {
	return X402UptoPermit2ProxyWitness{To: p.a.To, Facilitator: p.a.Facilitator, ValidAfter: p.a.ValidAfter}
}

func (p payment) exactWitness() X402ExactPermit2ProxyWitness {
	return X402ExactPermit2ProxyWitness{To: p.a.To, ValidAfter: p.a.ValidAfter}
}

// settleData is the calldata of the proxy's settle for p (amount is
// ignored by the exact proxy).
func (p payment) settleData(t *testing.T, amount *big.Int) []byte {
	t.Helper()
	var data []byte
	var err error
	if p.proxy == permit2.UptoProxy {
		a, _ := X402UptoPermit2ProxyMetaData.GetAbi()
		data, err = a.Pack("settle", p.permit(), amount, p.a.From, p.uptoWitness(), p.sig)
	} else {
		a, _ := X402ExactPermit2ProxyMetaData.GetAbi()
		data, err = a.Pack("settle", p.permit(), p.a.From, p.exactWitness(), p.sig)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPermit2Contracts: the contracts at their canonical addresses answer
// what the published ones answer.
func TestPermit2Contracts(t *testing.T) {
	e := newP2Env(t)
	sep, err := e.permit2.DOMAINSEPARATOR(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := permit2.DomainSeparator(e.chainID)
	if err != nil {
		t.Fatal(err)
	}
	if common.Hash(sep) != want {
		t.Fatalf("DOMAIN_SEPARATOR %x, want %s", sep, want)
	}
	for _, c := range []struct {
		name                 string
		permit2              func(*bind.CallOpts) (common.Address, error)
		typeString           func(*bind.CallOpts) (string, error)
		typeHash             func(*bind.CallOpts) ([32]byte, error)
		wantString, wantType string
	}{
		{"exact", e.exact.PERMIT2, e.exact.WITNESSTYPESTRING, e.exact.WITNESSTYPEHASH, permit2.ExactWitnessTypeString, "Witness(address to,uint256 validAfter)"},
		{"upto", e.upto.PERMIT2, e.upto.WITNESSTYPESTRING, e.upto.WITNESSTYPEHASH, permit2.UptoWitnessTypeString, "Witness(address to,address facilitator,uint256 validAfter)"},
	} {
		p2, err := c.permit2(nil)
		if err != nil || p2 != permit2.Address {
			t.Errorf("%s: PERMIT2 %s %v", c.name, p2, err)
		}
		s, err := c.typeString(nil)
		if err != nil || s != c.wantString {
			t.Errorf("%s: WITNESS_TYPE_STRING %q %v", c.name, s, err)
		}
		h, err := c.typeHash(nil)
		if err != nil || common.Hash(h) != crypto.Keccak256Hash([]byte(c.wantType)) {
			t.Errorf("%s: WITNESS_TYPEHASH %x %v", c.name, h, err)
		}
	}
}

// TestProxyGenesis: the code and storage ProxyGenesisFor places are what a
// deployment with the same constructor argument leaves.
func TestProxyGenesis(t *testing.T) {
	e := newP2Env(t)
	for _, kind := range []ProxyKind{ExactProxy, UptoProxy} {
		var addr common.Address
		var tx *types.Transaction
		var err error
		if kind == ExactProxy {
			addr, tx, _, err = DeployX402ExactPermit2Proxy(e.opts(t, e.strangerKey), e.client, permit2.Address)
		} else {
			addr, tx, _, err = DeployX402UptoPermit2Proxy(e.opts(t, e.strangerKey), e.client, permit2.Address)
		}
		e.mined(t)(tx, err)
		g, err := ProxyGenesisFor(kind, permit2.Address)
		if err != nil {
			t.Fatal(err)
		}
		code, err := e.client.CodeAt(context.Background(), addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		if common.Bytes2Hex(code) != common.Bytes2Hex(g.Code) {
			t.Fatalf("%s: deployed code differs from ProxyGenesisFor's", kind)
		}
		slot0, err := e.client.StorageAt(context.Background(), addr, common.Hash{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Storage) != 1 || common.BytesToHash(slot0) != g.Storage[common.Hash{}] || g.Storage[common.Hash{}] != common.BigToHash(big.NewInt(1)) {
			t.Fatalf("%s: storage %v, deployed slot 0 %x", kind, g.Storage, slot0)
		}
		if _, err := ProxyGenesisFor(kind, common.Address{}); err == nil || !strings.Contains(err.Error(), "execution reverted") {
			t.Fatalf("%s with Permit2 0: %v", kind, err)
		}
	}
	if _, err := ProxyGenesisFor("x402Other", permit2.Address); err == nil || err.Error() != `token: unknown proxy "x402Other"` {
		t.Fatalf("unknown proxy: %v", err)
	}
}

// TestUptoSettle: the facilitator named in the witness settles less than
// the maximum; the payee gets exactly that, the nonce is used, and the
// same payment sent again is refused.
func TestUptoSettle(t *testing.T) {
	e := newP2Env(t)
	e.approvePermit2(t)
	max := big.NewInt(2_000_000)
	charge := big.NewInt(1_250_000)
	p := e.newPayment(t, permit2.UptoProxy, max, 0x1_05, nil) // word 1, bit 5
	rc := e.mined(t)(e.upto.Settle(e.opts(t, e.facKey), p.permit(), charge, e.buyer, p.uptoWitness(), p.sig))
	t.Logf("upto settle: gas used %d", rc.GasUsed)
	if got := e.balance(t, e.payee); got.Cmp(charge) != 0 {
		t.Fatalf("payee %s, want %s", got, charge)
	}
	if got := e.balance(t, e.buyer); got.Cmp(new(big.Int).Sub(thousand, charge)) != 0 {
		t.Fatalf("buyer %s", got)
	}
	// Logs: the token's Transfer, then the proxy's Settled.
	if len(rc.Logs) != 2 || rc.Logs[0].Address != genesisAt || rc.Logs[1].Address != uptoAddr {
		t.Fatalf("logs %+v", rc.Logs)
	}
	if _, err := e.upto.ParseSettled(*rc.Logs[1]); err != nil {
		t.Fatal(err)
	}
	bitmap, err := e.permit2.NonceBitmap(nil, e.buyer, big.NewInt(1))
	if err != nil || bitmap.Cmp(big.NewInt(1<<5)) != 0 {
		t.Fatalf("nonceBitmap(buyer, 1) = %v %v, want bit 5", bitmap, err)
	}
	if r := e.revert(t, e.fac, uptoAddr, p.settleData(t, big.NewInt(1))); r != "InvalidNonce()" {
		t.Fatalf("the same payment again: %q", r)
	}
}

// TestExactSettle: anyone may submit an exact payment; the whole permitted
// amount moves.
func TestExactSettle(t *testing.T) {
	e := newP2Env(t)
	e.approvePermit2(t)
	price := big.NewInt(1_500_000)
	p := e.newPayment(t, permit2.ExactProxy, price, 7, nil)
	rc := e.mined(t)(e.exact.Settle(e.opts(t, e.strangerKey), p.permit(), e.buyer, p.exactWitness(), p.sig))
	t.Logf("exact settle: gas used %d", rc.GasUsed)
	if got := e.balance(t, e.payee); got.Cmp(price) != 0 {
		t.Fatalf("payee %s, want %s", got, price)
	}
	if r := e.revert(t, e.stranger, exactAddr, p.settleData(t, nil)); r != "InvalidNonce()" {
		t.Fatalf("the same payment again: %q", r)
	}
}

// TestPermit2Refusals: what the proxies and Permit2 refuse, with their
// errors, checked by eth_call after nothing has moved.
func TestPermit2Refusals(t *testing.T) {
	e := newP2Env(t)
	e.approvePermit2(t)
	// Nonce 9 is used by a settled payment; the buyer invalidates nonces
	// 0x200..0x2ff (word 2) without using them.
	used := e.newPayment(t, permit2.UptoProxy, big.NewInt(10), 9, nil)
	e.mined(t)(e.upto.Settle(e.opts(t, e.facKey), used.permit(), big.NewInt(10), e.buyer, used.uptoWitness(), used.sig))
	e.mined(t)(e.permit2.InvalidateUnorderedNonces(e.opts(t, e.buyerKey), big.NewInt(2), abi.MaxUint256))
	now := e.now(t)
	max := big.NewInt(1_000_000)
	other := common.HexToAddress("0x0000000000000000000000000000000000000bad")

	cases := []struct {
		name   string
		proxy  permit2.Proxy
		edit   func(*permit2.Authorization) // before signing
		tamper func(*payment)               // after signing
		amount *big.Int                     // upto's settle amount; nil: max
		from   *common.Address              // nil: the facilitator
		want   string
	}{
		{name: "upto: above the maximum", proxy: permit2.UptoProxy, amount: big.NewInt(1_000_001), want: "AmountExceedsPermitted()"},
		{name: "upto: not the witness's facilitator", proxy: permit2.UptoProxy, from: &e.stranger, want: "UnauthorizedFacilitator()"},
		{name: "upto: the buyer as caller", proxy: permit2.UptoProxy, from: &e.buyer, want: "UnauthorizedFacilitator()"},
		{name: "upto: zero", proxy: permit2.UptoProxy, amount: new(big.Int), want: "InvalidAmount()"},
		{name: "exact: zero permitted", proxy: permit2.ExactProxy, edit: func(a *permit2.Authorization) { a.Amount = new(big.Int) }, want: "InvalidAmount()"},
		{name: "upto: nonce used", proxy: permit2.UptoProxy, edit: func(a *permit2.Authorization) { a.Nonce = big.NewInt(9) }, want: "InvalidNonce()"},
		{name: "exact: nonce used by an upto payment", proxy: permit2.ExactProxy, edit: func(a *permit2.Authorization) { a.Nonce = big.NewInt(9) }, want: "InvalidNonce()"},
		{name: "upto: nonce invalidated", proxy: permit2.UptoProxy, edit: func(a *permit2.Authorization) { a.Nonce = big.NewInt(0x2_42) }, want: "InvalidNonce()"},
		{name: "upto: deadline passed", proxy: permit2.UptoProxy, edit: func(a *permit2.Authorization) { a.Deadline = big.NewInt(now - 1) }, want: fmt.Sprintf("SignatureExpired(%d)", now-1)},
		{name: "exact: deadline passed", proxy: permit2.ExactProxy, edit: func(a *permit2.Authorization) { a.Deadline = big.NewInt(now - 1) }, want: fmt.Sprintf("SignatureExpired(%d)", now-1)},
		{name: "upto: validAfter ahead", proxy: permit2.UptoProxy, edit: func(a *permit2.Authorization) { a.ValidAfter = big.NewInt(now + 600) }, want: "PaymentTooEarly()"},
		{name: "exact: validAfter ahead", proxy: permit2.ExactProxy, edit: func(a *permit2.Authorization) { a.ValidAfter = big.NewInt(now + 600) }, want: "PaymentTooEarly()"},
		{name: "upto: payee changed after signing", proxy: permit2.UptoProxy, tamper: func(p *payment) { p.a.To = other }, want: "InvalidSigner()"},
		{name: "exact: payee changed after signing", proxy: permit2.ExactProxy, tamper: func(p *payment) { p.a.To = other }, want: "InvalidSigner()"},
		{name: "upto: facilitator changed after signing", proxy: permit2.UptoProxy, tamper: func(p *payment) { p.a.Facilitator = e.stranger }, from: &e.stranger, want: "InvalidSigner()"},
		{name: "upto: maximum raised after signing", proxy: permit2.UptoProxy, tamper: func(p *payment) { p.a.Amount = big.NewInt(2_000_000) }, want: "InvalidSigner()"},
		{name: "upto: signed for the exact proxy", proxy: permit2.UptoProxy, edit: func(a *permit2.Authorization) { a.Spender = exactAddr }, want: "InvalidSigner()"},
		{name: "upto: signed by another key", proxy: permit2.UptoProxy, tamper: func(p *payment) {
			p.sig, _ = permit2.Sign(e.strangerKey, p.proxy, e.chainID, p.a)
		}, want: "InvalidSigner()"},
		{name: "upto: signature of 66 bytes", proxy: permit2.UptoProxy, tamper: func(p *payment) { p.sig = append(p.sig, 0) }, want: "InvalidSignatureLength()"},
		{name: "upto: v of 29", proxy: permit2.UptoProxy, tamper: func(p *payment) { p.sig[64] = 29 }, want: "InvalidSignature()"},
		{name: "upto: no owner", proxy: permit2.UptoProxy, tamper: func(p *payment) { p.a.From = common.Address{} }, want: "InvalidOwner()"},
		{name: "exact: no payee", proxy: permit2.ExactProxy, edit: func(a *permit2.Authorization) { a.To = common.Address{} }, want: "InvalidDestination()"},
		{name: "upto: more than the balance", proxy: permit2.UptoProxy, edit: func(a *permit2.Authorization) { a.Amount = new(big.Int).Add(thousand, big.NewInt(1)) }, amount: new(big.Int).Add(thousand, big.NewInt(1)), want: "TRANSFER_FROM_FAILED"},
		{name: "exact: token without code", proxy: permit2.ExactProxy, edit: func(a *permit2.Authorization) { a.Token = other }, want: ""},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := e.newPayment(t, c.proxy, max, int64(0x100+i), c.edit)
			if c.tamper != nil {
				c.tamper(&p)
			}
			amount := c.amount
			if amount == nil {
				amount = p.a.Amount
			}
			from := e.fac
			if c.from != nil {
				from = *c.from
			}
			if got := e.revert(t, from, p.proxy.Address(), p.settleData(t, amount)); got != c.want {
				t.Fatalf("revert %q, want %q", got, c.want)
			}
		})
	}
	// "token without code" passes, as with solmate's SafeTransferLib in
	// Permit2: a facilitator must check the asset itself.

	// Without an allowance to Permit2, the transfer fails.
	e.mined(t)(e.tok.Approve(e.opts(t, e.buyerKey), permit2.Address, new(big.Int)))
	p := e.newPayment(t, permit2.UptoProxy, max, 0x400, nil)
	if got := e.revert(t, e.fac, uptoAddr, p.settleData(t, max)); got != "TRANSFER_FROM_FAILED" {
		t.Fatalf("without allowance: %q", got)
	}
	if got := e.balance(t, e.payee); got.Cmp(big.NewInt(10)) != 0 {
		t.Fatalf("payee %s: only the first payment moved money", got)
	}
}

// TestPermit2Direct: Permit2's permitTransferFrom without a witness, with
// an EIP-2098 compact (64-byte) signature; and the validity window's edges:
// a deadline equal to the block time is valid, as is a validAfter equal
// to it.
func TestPermit2Direct(t *testing.T) {
	e := newP2Env(t)
	e.approvePermit2(t)
	deadline := big.NewInt(e.now(t) + 3600)
	td := apitypesPermitTransferFrom(e.chainID, genesisAt, big.NewInt(500), e.stranger, big.NewInt(77), deadline)
	digest, err := hashTyped(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(digest[:], e.buyerKey)
	if err != nil {
		t.Fatal(err)
	}
	// EIP-2098: r ‖ (v-27)<<255 | s.
	compact := common.CopyBytes(sig[:64])
	compact[32] |= sig[64] << 7
	permit := ISignatureTransferPermitTransferFrom{Permitted: ISignatureTransferTokenPermissions{Token: genesisAt, Amount: big.NewInt(500)}, Nonce: big.NewInt(77), Deadline: deadline}
	details := ISignatureTransferSignatureTransferDetails{To: e.payee, RequestedAmount: big.NewInt(400)}
	a, _ := Permit2MetaData.GetAbi()
	over, _ := a.Pack("permitTransferFrom", permit, ISignatureTransferSignatureTransferDetails{To: e.payee, RequestedAmount: big.NewInt(501)}, e.buyer, compact)
	if got := e.revert(t, e.stranger, permit2.Address, over); got != "InvalidAmount(500)" {
		t.Fatalf("above the permitted amount: %q", got)
	}
	// Another spender than the one signed for.
	data, _ := a.Pack("permitTransferFrom", permit, details, e.buyer, compact)
	if got := e.revert(t, e.fac, permit2.Address, data); got != "InvalidSigner()" {
		t.Fatalf("other spender: %q", got)
	}
	e.mined(t)(e.permit2.PermitTransferFrom(e.opts(t, e.strangerKey), permit, details, e.buyer, compact))
	if got := e.balance(t, e.payee); got.Cmp(big.NewInt(400)) != 0 {
		t.Fatalf("payee %s", got)
	}

	// The edges of the window: a block sealed with the chain ahead of the
	// wall clock comes exactly one second after its parent.
	if err := e.sim.AdjustTime(100 * time.Second); err != nil {
		t.Fatal(err)
	}
	next := e.now(t) + 1
	p := e.newPayment(t, permit2.UptoProxy, big.NewInt(5), 78, func(a *permit2.Authorization) {
		a.Deadline, a.ValidAfter = big.NewInt(next), big.NewInt(next)
	})
	opts := e.opts(t, e.facKey)
	opts.GasLimit = 300_000 // no estimate, which runs at another time
	rc := e.mined(t)(e.upto.Settle(opts, p.permit(), big.NewInt(5), e.buyer, p.uptoWitness(), p.sig))
	if h, _ := e.client.HeaderByNumber(context.Background(), rc.BlockNumber); h.Time != uint64(next) {
		t.Fatalf("block time %d, not %d", h.Time, next)
	}
}

// x402ClientPayloads is testdata/x402-client-signatures.json, written by
// testdata/x402-client-signatures.mjs with the published x402 client.
type x402ClientPayloads struct {
	ChainID int64 `json:"chainId"`
	Upto    struct {
		Payload clientPayload `json:"payload"`
		EIP2612 struct {
			From      common.Address `json:"from"`
			Spender   common.Address `json:"spender"`
			Amount    string         `json:"amount"`
			Deadline  string         `json:"deadline"`
			Signature hexutil.Bytes  `json:"signature"`
		} `json:"eip2612"`
	} `json:"upto"`
	Exact struct {
		Payload clientPayload `json:"payload"`
	} `json:"exact"`
}

type clientPayload struct {
	Signature hexutil.Bytes `json:"signature"`
	Auth      struct {
		From      common.Address `json:"from"`
		Permitted struct {
			Token  common.Address `json:"token"`
			Amount string         `json:"amount"`
		} `json:"permitted"`
		Spender  common.Address `json:"spender"`
		Nonce    string         `json:"nonce"`
		Deadline string         `json:"deadline"`
		Witness  struct {
			To          common.Address `json:"to"`
			Facilitator common.Address `json:"facilitator"`
			ValidAfter  string         `json:"validAfter"`
		} `json:"witness"`
	} `json:"permit2Authorization"`
}

func num(t *testing.T, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("bad number %q", s)
	}
	return v
}

func (c clientPayload) payment(t *testing.T, proxy permit2.Proxy) payment {
	a := c.Auth
	return payment{proxy: proxy, sig: c.Signature, a: permit2.Authorization{
		From: a.From, Token: a.Permitted.Token, Amount: num(t, a.Permitted.Amount), Spender: a.Spender,
		Nonce: num(t, a.Nonce), Deadline: num(t, a.Deadline),
		To: a.Witness.To, Facilitator: a.Witness.Facilitator, ValidAfter: num(t, a.Witness.ValidAfter),
	}}
}

// TestPublishedClientPayloads: payloads signed by @x402/evm 2.27's
// UptoEvmScheme and ExactEvmScheme settle through our proxies and Permit2.
// The upto one goes with the client's eip2612GasSponsoring permit through
// settleWithPermit, by a buyer who never approved Permit2.
func TestPublishedClientPayloads(t *testing.T) {
	raw, err := os.ReadFile("testdata/x402-client-signatures.json")
	if err != nil {
		t.Fatal(err)
	}
	var f x402ClientPayloads
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	e := newP2Env(t)
	if f.ChainID != e.chainID.Int64() {
		t.Fatalf("payloads for chain %d", f.ChainID)
	}
	up := f.Upto.Payload.payment(t, permit2.UptoProxy)
	if up.a.From != e.buyer || up.a.Facilitator != e.fac || up.a.Spender != uptoAddr || f.Upto.EIP2612.Spender != permit2.Address {
		t.Fatalf("upto payload for another buyer, facilitator or spender: %+v", up.a)
	}
	if allowance, _ := e.tok.Allowance(nil, e.buyer, permit2.Address); allowance.Sign() != 0 {
		t.Fatal("buyer has an allowance already")
	}
	sig := f.Upto.EIP2612.Signature
	permit2612 := X402BasePermit2ProxyEIP2612Permit{
		Value: num(t, f.Upto.EIP2612.Amount), Deadline: num(t, f.Upto.EIP2612.Deadline),
		R: [32]byte(sig[:32]), S: [32]byte(sig[32:64]), V: sig[64],
	}
	charge := big.NewInt(1_234_567)
	rc := e.mined(t)(e.upto.SettleWithPermit(e.opts(t, e.facKey), permit2612, up.permit(), charge, e.buyer, up.uptoWitness(), up.sig))
	t.Logf("upto settleWithPermit: gas used %d", rc.GasUsed)
	if got := e.balance(t, up.a.To); got.Cmp(charge) != 0 {
		t.Fatalf("payee %s, want %s", got, charge)
	}
	// The permit approved the maximum; the transfer used the charge.
	left := new(big.Int).Sub(up.a.Amount, charge)
	if got, _ := e.tok.Allowance(nil, e.buyer, permit2.Address); got.Cmp(left) != 0 {
		t.Fatalf("allowance left %s, want %s", got, left)
	}
	if n, _ := e.tok.Nonces(nil, e.buyer); n.Cmp(big.NewInt(1)) != 0 {
		t.Fatalf("nonces %s", n)
	}
	if _, err := e.upto.ParseSettledWithPermit(*rc.Logs[len(rc.Logs)-1]); err != nil {
		t.Fatalf("last log: %v", err)
	}

	ex := f.Exact.Payload.payment(t, permit2.ExactProxy)
	e.approvePermit2(t)
	before := e.balance(t, ex.a.To)
	e.mined(t)(e.exact.Settle(e.opts(t, e.strangerKey), ex.permit(), ex.a.From, ex.exactWitness(), ex.sig))
	if got := new(big.Int).Sub(e.balance(t, ex.a.To), before); got.Cmp(ex.a.Amount) != 0 {
		t.Fatalf("exact moved %s, want %s", got, ex.a.Amount)
	}
}

// TestSettleWithPermit: a permit that fails (here, used already) does not
// stop a settle whose allowance exists, and is logged; a permit for another
// amount than the permitted one is refused.
func TestSettleWithPermit(t *testing.T) {
	e := newP2Env(t)
	max := big.NewInt(3_000_000)
	deadline := big.NewInt(e.now(t) + 3600)
	permit2612 := e.sign2612(t, e.buyerKey, e.buyer, permit2.Address, max, big.NewInt(0), deadline)

	p := e.newPayment(t, permit2.ExactProxy, max, 1, nil)
	a, _ := X402ExactPermit2ProxyMetaData.GetAbi()
	wrong := permit2612
	wrong.Value = big.NewInt(2_999_999)
	data, _ := a.Pack("settleWithPermit", wrong, p.permit(), e.buyer, p.exactWitness(), p.sig)
	if got := e.revert(t, e.stranger, exactAddr, data); got != "Permit2612AmountMismatch()" {
		t.Fatalf("permit for another amount: %q", got)
	}
	e.mined(t)(e.exact.SettleWithPermit(e.opts(t, e.strangerKey), permit2612, p.permit(), e.buyer, p.exactWitness(), p.sig))
	if got := e.balance(t, e.payee); got.Cmp(max) != 0 {
		t.Fatalf("payee %s", got)
	}

	// The same permit again (its nonce is used) with an allowance in place.
	e.approvePermit2(t)
	q := e.newPayment(t, permit2.UptoProxy, max, 2, nil)
	rc := e.mined(t)(e.upto.SettleWithPermit(e.opts(t, e.facKey), permit2612, q.permit(), big.NewInt(1), e.buyer, q.uptoWitness(), q.sig))
	var reason string
	for _, l := range rc.Logs {
		if ev, err := e.upto.ParseEIP2612PermitFailedWithReason(*l); err == nil {
			if ev.Token != genesisAt || ev.Owner != e.buyer {
				t.Fatalf("event %+v", ev)
			}
			reason = ev.Reason
		}
	}
	if reason != "EIP2612: invalid signature" {
		t.Fatalf("failed permit logged %q", reason)
	}
	if got := e.balance(t, e.payee); got.Cmp(new(big.Int).Add(max, big.NewInt(1))) != 0 {
		t.Fatalf("payee %s", got)
	}
}

// TestReentrancyGuardFromGenesis: a proxy placed with ProxyGenesisFor's
// storage settles twice in a row (the guard is reset after each call).
func TestReentrancyGuardFromGenesis(t *testing.T) {
	e := newP2Env(t)
	e.approvePermit2(t)
	for i := int64(0); i < 2; i++ {
		p := e.newPayment(t, permit2.UptoProxy, big.NewInt(10), 300+i, nil)
		e.mined(t)(e.upto.Settle(e.opts(t, e.facKey), p.permit(), big.NewInt(10), e.buyer, p.uptoWitness(), p.sig))
	}
	v, err := e.client.StorageAt(context.Background(), uptoAddr, common.Hash{}, nil)
	if err != nil || common.BytesToHash(v) != common.BigToHash(big.NewInt(1)) {
		t.Fatalf("guard %x %v", v, err)
	}
}
