package token

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
)

// walletEnv is env plus a SmartWalletFactory and the buyer's wallet
// (salt 0), funded with a thousand tokens.
func walletEnv(t *testing.T) (*env, *SmartWalletFactory, common.Address, common.Address) {
	t.Helper()
	e := newEnv(t, false)
	faddr, tx, fac, err := DeploySmartWalletFactory(e.opts(t, e.relayerKey), e.client)
	if err != nil {
		t.Fatal(err)
	}
	e.mined(t, tx)
	want, err := fac.GetAddress(nil, e.buyer, big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	if got := WalletAddress(faddr, e.buyer, big.NewInt(0)); got != want {
		t.Fatalf("WalletAddress %s, factory's getAddress %s", got, want)
	}
	rc := e.mined(t, e.must(t)(fac.CreateAccount(e.opts(t, e.relayerKey), e.buyer, big.NewInt(0))))
	t.Logf("createAccount gas used %d", rc.GasUsed)
	code, err := e.client.CodeAt(context.Background(), want, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(code) != string(WalletRuntimeCode()) {
		t.Fatal("the factory's wallet code differs from WalletRuntimeCode")
	}
	// A second createAccount returns the wallet and deploys nothing.
	e.mined(t, e.must(t)(fac.CreateAccount(e.opts(t, e.relayerKey), e.buyer, big.NewInt(0))))
	e.mined(t, e.must(t)(e.tok.Mint(e.opts(t, e.minterKey), want, thousand)))
	return e, fac, faddr, want
}

// TestSmartWalletPays: the token checks a contract's signature with
// EIP-1271 (FiatToken v2.2), through both overloads; a signature by another
// key than the owner's is refused with FiatToken's reason.
func TestSmartWalletPays(t *testing.T) {
	e, _, _, wallet := walletEnv(t)
	value := new(big.Int).Mul(big.NewInt(10), oneToken)

	a := e.newAuth(t, value, "wallet bytes")
	a.from = wallet
	// A stranger's signature: refused.
	if r := e.revertReason(t, e.relayer, e.packAuth(t, "transferWithAuthorization", a, e.sign(t, e.strangerKey, a))); r != "FiatTokenV2: invalid signature" {
		t.Fatalf("stranger's signature: revert %q", r)
	}
	// A signature that is not 65 bytes: refused by the wallet.
	if r := e.revertReason(t, e.relayer, e.packAuth(t, "transferWithAuthorization", a, []byte{1, 2, 3})); r != "FiatTokenV2: invalid signature" {
		t.Fatalf("short signature: revert %q", r)
	}
	rc := e.mined(t, e.must(t)(e.tok.TransferWithAuthorization(e.opts(t, e.relayerKey), a.from, a.to, a.value, a.validAfter, a.validBe, a.nonce, e.sign(t, e.buyerKey, a))))
	t.Logf("transferWithAuthorization(bytes) from an EIP-1271 wallet: gas used %d", rc.GasUsed)

	b := e.newAuth(t, value, "wallet vrs")
	b.from = wallet
	v, r, s := splitSig(e.sign(t, e.buyerKey, b))
	e.mined(t, e.must(t)(e.tok.TransferWithAuthorization0(e.opts(t, e.relayerKey), b.from, b.to, b.value, b.validAfter, b.validBe, b.nonce, v, r, s)))

	if got, want := e.balance(t, wallet), new(big.Int).Sub(thousand, new(big.Int).Mul(big.NewInt(2), value)); got.Cmp(want) != 0 {
		t.Fatalf("wallet balance %s, want %s", got, want)
	}
	if got := e.balance(t, e.payee); got.Cmp(new(big.Int).Mul(big.NewInt(2), value)) != 0 {
		t.Fatalf("payee balance %s", got)
	}
	// The EOA path is unchanged: the buyer's own signature for its own
	// address, and not for the wallet's.
	c := e.newAuth(t, value, "eoa")
	e.mined(t, e.must(t)(e.tok.TransferWithAuthorization(e.opts(t, e.relayerKey), c.from, c.to, c.value, c.validAfter, c.validBe, c.nonce, e.sign(t, e.buyerKey, c))))
}

// TestSmartWalletOwner: isValidSignature answers the magic value for the
// owner's signature only, and only the owner can execute.
func TestSmartWalletOwner(t *testing.T) {
	e, _, _, wallet := walletEnv(t)
	w, err := NewSmartWallet(wallet, e.client)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := w.Owner(nil); o != e.buyer {
		t.Fatalf("owner %s", o)
	}
	hash := crypto.Keccak256Hash([]byte("hello"))
	for _, tc := range []struct {
		name string
		sig  []byte
		want [4]byte
	}{
		{"owner", sigOf(t, e, hash, true), [4]byte{0x16, 0x26, 0xba, 0x7e}},
		{"stranger", sigOf(t, e, hash, false), [4]byte{0xff, 0xff, 0xff, 0xff}},
		{"short", []byte{1}, [4]byte{0xff, 0xff, 0xff, 0xff}},
	} {
		got, err := w.IsValidSignature(nil, hash, tc.sig)
		if err != nil || got != tc.want {
			t.Errorf("%s: %x, %v; want %x", tc.name, got, err, tc.want)
		}
	}
	data := e.pack(t, "transfer", e.payee, oneToken)
	if _, err := w.Execute(e.opts(t, e.strangerKey), e.addr, big.NewInt(0), data); err == nil {
		t.Fatal("a stranger executed")
	}
	e.mined(t, e.must(t)(w.Execute(e.opts(t, e.buyerKey), e.addr, big.NewInt(0), data)))
	if got := e.balance(t, e.payee); got.Cmp(oneToken) != 0 {
		t.Fatalf("payee balance %s", got)
	}
}

func sigOf(t *testing.T, e *env, hash common.Hash, owner bool) []byte {
	t.Helper()
	k := e.strangerKey
	if owner {
		k = e.buyerKey
	}
	sig, err := crypto.Sign(hash[:], k)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

// TestNoBytesToken: EIP3009TokenNoBytes (like FiatToken v2.0/v2.1) has no
// bytes overload (a call reverts without a reason) and checks signatures by
// ECDSA alone, with the storage layout GenesisStorage writes.
func TestNoBytesToken(t *testing.T) {
	e := &env{}
	e.minterKey, e.minter = testKey(t, "token test minter")
	e.buyerKey, e.buyer = testKey(t, "token test buyer")
	e.relayerKey, e.relayer = testKey(t, "token test relayer")
	_, e.payee = testKey(t, "token test payee")
	alloc := types.GenesisAlloc{
		e.relayer: {Balance: gasMoney},
		genesisAt: {Code: NoBytesRuntimeCode(), Storage: GenesisStorage(e.minter, map[common.Address]*big.Int{e.buyer: thousand}), Balance: new(big.Int)},
	}
	e.sim = simulated.NewBackend(alloc, preAmsterdam)
	t.Cleanup(func() { e.sim.Close() })
	e.sim.Commit()
	e.client = e.sim.Client()
	var err error
	if e.chainID, err = e.client.ChainID(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e.abi, err = ABI(); err != nil {
		t.Fatal(err)
	}
	e.addr = genesisAt
	if e.tok, err = NewEIP3009Token(e.addr, e.client); err != nil {
		t.Fatal(err)
	}
	a := e.newAuth(t, oneToken, "nobytes")
	_, err = e.client.CallContract(context.Background(), ethereum.CallMsg{From: e.relayer, To: &e.addr, Data: e.packAuth(t, "transferWithAuthorization", a, e.sign(t, e.buyerKey, a))}, nil)
	if err == nil || err.Error() != "execution reverted" {
		t.Fatalf("bytes overload on the token without it: %v", err)
	}
	v, r, s := splitSig(e.sign(t, e.buyerKey, a))
	e.mined(t, e.must(t)(e.tok.TransferWithAuthorization0(&bind.TransactOpts{From: e.relayer, Signer: e.opts(t, e.relayerKey).Signer}, a.from, a.to, a.value, a.validAfter, a.validBe, a.nonce, v, r, s)))
	if got := e.balance(t, e.payee); got.Cmp(oneToken) != 0 {
		t.Fatalf("payee balance %s", got)
	}
}
