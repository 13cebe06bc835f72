package devnet

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func start(t *testing.T, cfg Config) *Chain {
	t.Helper()
	c, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func dial(t *testing.T, c *Chain) *ethclient.Client {
	t.Helper()
	cl, err := ethclient.Dial(c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func waitMined(t *testing.T, cl *ethclient.Client, h common.Hash) *types.Receipt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if r, err := cl.TransactionReceipt(ctx, h); err == nil {
			return r
		}
		select {
		case <-ctx.Done():
			t.Fatalf("tx %s not mined", h)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// signTransfer signs an EIP-3009 TransferWithAuthorization for the devnet
// token with the facilitator's signing code and returns the 65-byte
// r||s||v signature.
func signTransfer(t *testing.T, k *ecdsa.PrivateKey, from, to common.Address, value, validAfter, validBefore *big.Int, nonce [32]byte) []byte {
	t.Helper()
	sig, err := exact.SignAuthorization(k,
		evm.Domain{Name: TokenName, Version: TokenVersion, ChainID: big.NewInt(ChainID), VerifyingContract: TokenAddress},
		x402.Authorization{From: from, To: to, Value: value, ValidAfter: validAfter, ValidBefore: validBefore, Nonce: nonce})
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func TestChainOverJSONRPC(t *testing.T) {
	t.Parallel()
	c := start(t, Config{BlockTime: 200 * time.Millisecond})
	cl := dial(t, c)
	ctx := context.Background()

	id, err := cl.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id.Int64() != 338 || c.ChainID().Int64() != 338 {
		t.Fatalf("chain id %s", id)
	}
	var netVersion string
	if err := cl.Client().CallContext(ctx, &netVersion, "net_version"); err != nil || netVersion != "338" {
		t.Fatalf("net_version %q, %v", netVersion, err)
	}

	tok, err := token.NewEIP3009Token(c.Token(), cl)
	if err != nil {
		t.Fatal(err)
	}
	name, _ := tok.Name(nil)
	symbol, _ := tok.Symbol(nil)
	version, _ := tok.Version(nil)
	decimals, err := tok.Decimals(nil)
	if err != nil || name != TokenName || symbol != TokenSymbol || version != TokenVersion || decimals != TokenDecimals {
		t.Fatalf("token metadata %q %q %q %d %v", name, symbol, version, decimals, err)
	}
	buyers := c.Buyers()
	if len(buyers) != 5 {
		t.Fatalf("%d buyers", len(buyers))
	}
	for _, b := range buyers {
		bal, err := tok.BalanceOf(nil, b.Address)
		if err != nil || bal.Cmp(BuyerTokens) != 0 {
			t.Fatalf("%s token balance %s, %v", b.Name, bal, err)
		}
		gas, err := cl.BalanceAt(ctx, b.Address, nil)
		if err != nil || gas.Cmp(AccountGas) != 0 {
			t.Fatalf("%s gas balance %s, %v", b.Name, gas, err)
		}
	}
	if gas, _ := cl.BalanceAt(ctx, c.Signer().Address, nil); gas.Cmp(SignerGas) != 0 {
		t.Fatalf("signer gas balance %s", gas)
	}
	// Five buyers and buyer1's two smart wallets.
	if supply, _ := tok.TotalSupply(nil); supply.Cmp(new(big.Int).Mul(BuyerTokens, big.NewInt(7))) != 0 {
		t.Fatalf("total supply %s", supply)
	}
	if m, _ := tok.Minter(nil); m != c.Minter().Address {
		t.Fatalf("minter %s", m)
	}

	// Blocks advance by themselves, with timestamps near the wall clock.
	n0, err := cl.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := cl.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n > n0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no block after %d in 5s", n0)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A buyer-signed transferWithAuthorization, sent by the signer.
	buyer, payee := buyers[0], common.HexToAddress("0x00000000000000000000000000000000000b0b01")
	value := big.NewInt(1_234_567)
	var nonce [32]byte
	copy(nonce[:], crypto.Keccak256([]byte(t.Name())))
	validBefore := big.NewInt(time.Now().Add(time.Minute).Unix())
	sig := signTransfer(t, buyer.Key, buyer.Address, payee, value, big.NewInt(0), validBefore, nonce)
	opts, err := bind.NewKeyedTransactorWithChainID(c.Signer().Key, c.ChainID())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := tok.TransferWithAuthorization(opts, buyer.Address, payee, value, big.NewInt(0), validBefore, nonce, sig)
	if err != nil {
		t.Fatal(err)
	}
	r := waitMined(t, cl, tx.Hash())
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatal("transferWithAuthorization failed")
	}
	t.Logf("transferWithAuthorization gas used: %d (block %d)", r.GasUsed, r.BlockNumber)
	if r.GasUsed < 50_000 || r.GasUsed > 90_000 {
		t.Errorf("gas used %d outside 50k..90k", r.GasUsed)
	}
	if got, _ := tok.BalanceOf(nil, buyer.Address); got.Cmp(new(big.Int).Sub(BuyerTokens, value)) != 0 {
		t.Fatalf("buyer balance %s", got)
	}
	if got, _ := c.BalanceOf(ctx, payee); got.Cmp(value) != 0 {
		t.Fatalf("payee balance %s", got)
	}
	if used, _ := tok.AuthorizationState(nil, buyer.Address, nonce); !used {
		t.Fatal("nonce not used")
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if drift := int64(head.Time) - time.Now().Unix(); drift > 2 || drift < -3 {
		t.Fatalf("head timestamp %d is %ds off the wall clock", head.Time, drift)
	}

	// WriteInfo parses back.
	path := filepath.Join(t.TempDir(), "devnet.json")
	if err := c.WriteInfo(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("info file mode %v", st.Mode())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var info Info
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	if info.RPCURL != c.RPCURL() || info.ChainID != 338 || info.Network != "cronos-testnet" ||
		info.Token.Address != TokenAddress || info.Token.Name != TokenName || info.Token.Version != "1" ||
		info.Token.Decimals != 6 || info.BlockTime != "200ms" || len(info.Buyers) != 5 ||
		info.Signer.Address != c.Signer().Address || info.Minter.Address != c.Minter().Address ||
		info.Buyers[0].PrivateKey != Buyer1PrivateKey || info.Buyers[0].Name != "buyer1" {
		t.Fatalf("info read back: %s", data)
	}
	var raw map[string]any
	_ = json.Unmarshal(data, &raw)
	for _, k := range []string{"rpcUrl", "chainId", "network", "token", "blockTime", "signer", "minter", "buyers"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("info has no %q", k)
		}
	}
}

func TestKeysMatchDerivation(t *testing.T) {
	t.Parallel()
	keys := map[string]string{
		"caddy-x402 devnet signer":  SignerPrivateKey,
		"caddy-x402 devnet minter":  MinterPrivateKey,
		"caddy-x402 devnet buyer 1": Buyer1PrivateKey,
		"caddy-x402 devnet buyer 2": Buyer2PrivateKey,
		"caddy-x402 devnet buyer 3": Buyer3PrivateKey,
		"caddy-x402 devnet buyer 4": Buyer4PrivateKey,
		"caddy-x402 devnet buyer 5": Buyer5PrivateKey,
	}
	for seed, want := range keys {
		a, err := deriveAccount("x", seed)
		if err != nil {
			t.Fatal(err)
		}
		if a.PrivateKey != want {
			t.Errorf("%s: %s, want %s", seed, a.PrivateKey, want)
		}
	}
}

func TestMintAndBuyers(t *testing.T) {
	t.Parallel()
	c := start(t, Config{Buyers: 2, BlockTime: time.Hour})
	if len(c.Buyers()) != 2 {
		t.Fatalf("%d buyers", len(c.Buyers()))
	}
	ctx := context.Background()
	to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	amount := big.NewInt(42_000_000)
	if err := c.Mint(ctx, to, amount); err != nil {
		t.Fatal(err)
	}
	if err := c.Mint(ctx, to, amount); err != nil {
		t.Fatal(err)
	}
	if got, err := c.BalanceOf(ctx, to); err != nil || got.Cmp(new(big.Int).Mul(amount, big.NewInt(2))) != 0 {
		t.Fatalf("balance %s, %v", got, err)
	}
	if err := c.Mint(ctx, common.Address{}, amount); err == nil {
		t.Fatal("mint to the zero address succeeded")
	}
	n0, _ := c.Client().BlockNumber(ctx)
	c.Mine()
	if n, _ := c.Client().BlockNumber(ctx); n != n0+1 {
		t.Fatalf("Mine: block %d after %d", n, n0)
	}
}

func TestParallelChainsAndClose(t *testing.T) {
	t.Parallel()
	const n = 3
	chains := make([]*Chain, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			chains[i], errs[i] = Start(Config{BlockTime: 100 * time.Millisecond})
		}()
	}
	wg.Wait()
	urls := map[string]bool{}
	for i, c := range chains {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		urls[c.RPCURL()] = true
		id, err := dial(t, c).ChainID(context.Background())
		if err != nil || id.Int64() != ChainID {
			t.Fatalf("chain %d: id %v, %v", i, id, err)
		}
	}
	if len(urls) != n {
		t.Fatalf("URLs not distinct: %v", urls)
	}
	// Close concurrently with Mine and with itself.
	for _, c := range chains {
		for range 3 {
			wg.Add(2)
			go func() { defer wg.Done(); c.Mine() }()
			go func() { defer wg.Done(); _ = c.Close() }()
		}
	}
	wg.Wait()
	for _, c := range chains {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		c.Mine() // no-op after Close
		cl, err := ethclient.Dial(c.RPCURL())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.ChainID(context.Background()); err == nil {
			t.Fatalf("%s still answers after Close", c.RPCURL())
		}
		cl.Close()
	}
}

func TestListenExplicitPort(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	// While the port is taken, Start fails instead of picking another.
	if c, err := Start(Config{Listen: l.Addr().String()}); err == nil {
		c.Close()
		t.Fatal("Start on a taken port succeeded")
	}
	l.Close()
	c := start(t, Config{Listen: "127.0.0.1:" + strconv.Itoa(port)})
	if want := fmt.Sprintf("http://127.0.0.1:%d", port); c.RPCURL() != want {
		t.Fatalf("RPCURL %s, want %s", c.RPCURL(), want)
	}
	if _, err := dial(t, c).ChainID(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Config{Listen: "nonsense"}); err == nil {
		t.Fatal("bad listen address accepted")
	}
}

// sendValue sends 1 wei from k's account to itself with the given nonce and
// returns the transaction.
func sendValue(t *testing.T, cl *ethclient.Client, k *ecdsa.PrivateKey, nonce uint64, tip int64) *types.Transaction {
	t.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(k.PublicKey)
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(k, types.LatestSignerForChainID(big.NewInt(ChainID)), &types.DynamicFeeTx{
		ChainID:   big.NewInt(ChainID),
		Nonce:     nonce,
		GasTipCap: big.NewInt(tip),
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), big.NewInt(tip)),
		Gas:       21000,
		To:        &from,
		Value:     big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestPauseDropResume(t *testing.T) {
	t.Parallel()
	const blockTime = 200 * time.Millisecond
	c := start(t, Config{Buyers: 1, BlockTime: blockTime})
	cl := dial(t, c)
	ctx := context.Background()
	k := c.Buyers()[0].Key
	from := c.Buyers()[0].Address

	// Make sure the timer seals blocks, then pause it.
	n0, err := cl.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waitBlock := time.Now().Add(10 * time.Second)
	for n, _ := cl.BlockNumber(ctx); n <= n0; n, _ = cl.BlockNumber(ctx) {
		if time.Now().After(waitBlock) {
			t.Fatal("no block sealed by the timer")
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.PauseMining()
	c.PauseMining() // idempotent
	paused, err := cl.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// A transaction sent while paused waits in the pool.
	latest, pending, err := c.NonceAt(ctx, from)
	if err != nil || latest != 0 || pending != 0 {
		t.Fatalf("nonces %d %d, %v", latest, pending, err)
	}
	tx := sendValue(t, cl, k, 0, 1e9)
	time.Sleep(3 * blockTime)
	if n, err := cl.BlockNumber(ctx); err != nil || n != paused {
		t.Fatalf("block %d after pausing at %d, %v", n, paused, err)
	}
	if _, isPending, err := cl.TransactionByHash(ctx, tx.Hash()); err != nil || !isPending {
		t.Fatalf("tx before drop: pending %v, %v", isPending, err)
	}
	if latest, pending, err = c.NonceAt(ctx, from); err != nil || latest != 0 || pending != 1 {
		t.Fatalf("nonces before drop %d %d, %v", latest, pending, err)
	}

	// Dropping empties the pool: the tx is unknown and the nonce free again.
	if n := c.DropPending(); n != 1 {
		t.Fatalf("dropped %d, want 1", n)
	}
	if _, _, err := cl.TransactionByHash(ctx, tx.Hash()); err != ethereum.NotFound {
		t.Fatalf("dropped tx: %v, want not found", err)
	}
	var raw json.RawMessage
	if err := cl.Client().CallContext(ctx, &raw, "eth_getTransactionByHash", tx.Hash()); err != nil || string(raw) != "null" {
		t.Fatalf("eth_getTransactionByHash %s, %v", raw, err)
	}
	if latest, pending, err = c.NonceAt(ctx, from); err != nil || latest != 0 || pending != 0 {
		t.Fatalf("nonces after drop %d %d, %v", latest, pending, err)
	}
	if n := c.DropPending(); n != 0 {
		t.Fatalf("dropped %d from an empty pool", n)
	}

	// A different transaction with the same nonce is accepted, and mined
	// once the timer runs again.
	tx2 := sendValue(t, cl, k, 0, 2e9)
	if tx2.Hash() == tx.Hash() {
		t.Fatal("replacement has the dropped tx's hash")
	}
	time.Sleep(2 * blockTime)
	if n, err := cl.BlockNumber(ctx); err != nil || n != paused {
		t.Fatalf("block %d while paused at %d, %v", n, paused, err)
	}
	c.ResumeMining()
	c.ResumeMining() // idempotent
	if r := waitMined(t, cl, tx2.Hash()); r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("replacement status %d", r.Status)
	}
	if _, err := cl.TransactionReceipt(ctx, tx.Hash()); err != ethereum.NotFound {
		t.Fatalf("dropped tx receipt: %v", err)
	}
	if latest, pending, err = c.NonceAt(ctx, from); err != nil || latest != 1 || pending != 1 {
		t.Fatalf("nonces after mining %d %d, %v", latest, pending, err)
	}
}

func TestMineWhilePaused(t *testing.T) {
	t.Parallel()
	c := start(t, Config{Buyers: 1, BlockTime: 100 * time.Millisecond})
	cl := dial(t, c)
	ctx := context.Background()
	c.PauseMining()
	n0, err := cl.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx := sendValue(t, cl, c.Buyers()[0].Key, 0, 1e9)
	c.Mine()
	if r := waitMined(t, cl, tx.Hash()); r.BlockNumber.Uint64() != n0+1 {
		t.Fatalf("mined in block %s, want %d", r.BlockNumber, n0+1)
	}
	time.Sleep(300 * time.Millisecond)
	if n, err := cl.BlockNumber(ctx); err != nil || n != n0+1 {
		t.Fatalf("block %d, want %d, %v", n, n0+1, err)
	}
}

// TestSmartWallets: the factory, buyer1's deployed wallet and the address
// of its undeployed one are where Info says, with their tokens; the
// factory deploys the second wallet at its address.
func TestSmartWallets(t *testing.T) {
	t.Parallel()
	c := start(t, Config{BlockTime: 200 * time.Millisecond})
	cl := dial(t, c)
	ctx := context.Background()
	fac, err := token.NewSmartWalletFactory(FactoryAddress, cl)
	if err != nil {
		t.Fatal(err)
	}
	owner := c.Buyers()[0]
	for i, w := range []SmartWallet{c.SmartWallet(), c.UndeployedWallet()} {
		if w != c.Info().SmartWallets[i] || w.Owner != owner.Address || w.Factory != FactoryAddress {
			t.Fatalf("wallet %d: %+v, info %+v", i, w, c.Info().SmartWallets)
		}
		addr, err := fac.GetAddress(nil, owner.Address, big.NewInt(w.Salt))
		if err != nil || addr != w.Address {
			t.Fatalf("wallet %d: factory's address %s (%v), devnet's %s", i, addr, err, w.Address)
		}
		code, err := cl.CodeAt(ctx, w.Address, nil)
		if err != nil || (len(code) > 0) != w.Deployed {
			t.Fatalf("wallet %d: %d bytes of code (%v), deployed %v", i, len(code), err, w.Deployed)
		}
		if bal, err := c.BalanceOf(ctx, w.Address); err != nil || bal.Cmp(BuyerTokens) != 0 {
			t.Fatalf("wallet %d: balance %s, %v", i, bal, err)
		}
	}
	sw, err := token.NewSmartWallet(c.SmartWallet().Address, cl)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := sw.Owner(nil); err != nil || o != owner.Address {
		t.Fatalf("owner %s, %v", o, err)
	}
	opts, err := bind.NewKeyedTransactorWithChainID(c.Signer().Key, c.ChainID())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := fac.CreateAccount(opts, owner.Address, big.NewInt(UndeployedWalletSalt))
	if err != nil {
		t.Fatal(err)
	}
	if r := waitMined(t, cl, tx.Hash()); r.Status != types.ReceiptStatusSuccessful {
		t.Fatal("createAccount failed")
	}
	if code, _ := cl.CodeAt(ctx, c.UndeployedWallet().Address, nil); string(code) != string(token.WalletRuntimeCode()) {
		t.Fatalf("deployed wallet has %d bytes of code", len(code))
	}
}

// TestTokenWithoutBytesOverload: the option places a token without the
// bytes overload; everything else is as usual.
func TestTokenWithoutBytesOverload(t *testing.T) {
	t.Parallel()
	c := start(t, Config{BlockTime: 200 * time.Millisecond, TokenWithoutBytesOverload: true})
	code, err := c.Client().CodeAt(context.Background(), c.Token(), nil)
	if err != nil || string(code) != string(token.NoBytesRuntimeCode()) {
		t.Fatalf("token code: %d bytes, %v", len(code), err)
	}
	if bal, err := c.BalanceOf(context.Background(), c.Buyers()[0].Address); err != nil || bal.Cmp(BuyerTokens) != 0 {
		t.Fatalf("buyer balance %s, %v", bal, err)
	}
}

// TestSendValueThenSend: an account SendValue funded sends at once. The
// transaction pool takes in a block's state on a goroutine; before Commit
// waited for it, a send right after the funding block was refused as
// unfunded about one time in ten (TestSignerWithoutGas's flake).
func TestSendValueThenSend(t *testing.T) {
	t.Parallel()
	c := start(t, Config{BlockTime: time.Hour})
	ctx := context.Background()
	cl := c.Client()
	for i := range 30 {
		k, _ := crypto.GenerateKey()
		a := crypto.PubkeyToAddress(k.PublicKey)
		if err := c.SendValue(ctx, c.Minter().Key, a, big.NewInt(1e18)); err != nil {
			t.Fatal(err)
		}
		head, err := cl.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := types.SignNewTx(k, types.LatestSignerForChainID(c.ChainID()), &types.DynamicFeeTx{
			ChainID: c.ChainID(), GasTipCap: big.NewInt(1), GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), big.NewInt(1)), Gas: 21000, To: &a,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send %d right after funding: %v", i, err)
		}
	}
}
