package facilitator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// postRaw posts a verify or settle body and returns the status and the
// answer's bytes.
func postRaw(t *testing.T, url string, b []byte) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X402-Version", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	return resp.StatusCode, data
}

// wantAnswer checks an answer's status and JSON body exactly. A timestamp
// field must be ISO 8601 UTC with milliseconds, and is then compared as
// "T".
func wantAnswer(t *testing.T, what string, status int, got []byte, wantStatus int, want string) {
	t.Helper()
	var g map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: answer %s is not a JSON object: %v", what, got, err)
	}
	if ts, ok := g["timestamp"]; ok {
		s, _ := ts.(string)
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", s); err != nil {
			t.Fatalf("%s: timestamp %q is not ISO 8601 UTC with milliseconds", what, s)
		}
		g["timestamp"] = "T"
	}
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if status != wantStatus || !bytes.Equal(gb, wb) {
		t.Fatalf("%s = %d %s\nwant %d %s", what, status, got, wantStatus, wb)
	}
}

// transferSelector begins the data of a transferWithAuthorization call as
// go-ethereum writes it in JSON-RPC params.
var transferSelector = `"` + hexutil.Encode(crypto.Keccak256([]byte("transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)"))[:4])

// TestNodeErrorIsNoVerdict: the node fails the simulated transfer with an
// internal error (-32000 "header not found", as geth answers behind a load
// balancer for a block it does not have yet). That is no verdict on the
// payment: verify answers 503, not 200 with isValid false; settle answers
// 503 with nothing broadcast, and nothing moves. Likewise when every
// eth_call fails. Once the node answers again, the same payment verifies
// valid and settles once.
//
// FAKE: the node error is answered by the proxy (rpcproxy.FailCalls); the
// development chain cannot produce one on demand. Everything else is
// real: the chain, the token, the facilitator's HTTP API.
func TestNodeErrorIsNoVerdict(t *testing.T) {
	const price = 1500
	ctx := context.Background()
	proxy := newProxy(t)
	key := newSignerKey(t, chain)
	tf := newTestFacilitator(t, key, func(c *facilitator.Config) { c.Networks[0].RPCURLs = []string{proxy.URL()} })
	seller := newSeller(t)
	req := requirements(seller, "1500")
	b := newBuyer(t, chain, price)
	h, p := pay(t, b, req, exact.PaymentOptions{})
	raw := body(h, req)
	payer := b.Address.Hex()
	latest0, pending0, err := chain.NonceAt(ctx, tf.signer)
	if err != nil {
		t.Fatal(err)
	}
	nothingMoved := func(when string) {
		t.Helper()
		latest, pending, err := chain.NonceAt(ctx, tf.signer)
		if err != nil || latest != latest0 || pending != pending0 {
			t.Fatalf("%s: signer nonce %d (pending %d), want %d (%d): %v", when, latest, pending, latest0, pending0, err)
		}
		if got := balance(t, seller); got.Sign() != 0 {
			t.Fatalf("%s: seller balance %s, want 0", when, got)
		}
		if got := balance(t, b.Address); got.Cmp(big.NewInt(price)) != 0 {
			t.Fatalf("%s: buyer balance %s, want %d", when, got, price)
		}
		if authorizationUsed(t, p) {
			t.Fatalf("%s: the authorization is used", when)
		}
	}

	for _, tc := range []struct {
		name   string
		arm    func()
		failed map[string]int // calls the proxy must have failed, by method
		verify string         // the 503 texts
		settle string
	}{
		{
			name: "simulated transfer",
			arm: func() {
				// Verify simulates with eth_call, settle with eth_estimateGas.
				proxy.FailCalls("eth_call", transferSelector, -32000, "header not found")
				proxy.FailCalls("eth_estimateGas", transferSelector, -32000, "header not found")
			},
			failed: map[string]int{"eth_call": 1, "eth_estimateGas": 1},
			verify: "the node of network cronos-testnet could not simulate the transfer; try again shortly",
			settle: "gas estimation failed on network cronos-testnet; nothing was broadcast, try again shortly",
		},
		{
			name:   "every eth_call",
			arm:    func() { proxy.FailMethod("eth_call", -32000, "missing trie node 8f2a0c2c1a9b1f7e (path ) <nil>") },
			failed: map[string]int{"eth_call": 5}, // verify's three reads, settle's two
			verify: "the chain of network cronos-testnet gave an unreadable answer; try again shortly",
			settle: "the chain of network cronos-testnet gave an unreadable answer; nothing was broadcast, try again shortly",
		},
	} {
		before := len(proxy.Failed())
		tc.arm()
		status, got := postRaw(t, tf.url+x402.PathVerify, raw)
		wantAnswer(t, tc.name+": verify", status, got, http.StatusServiceUnavailable,
			`{"isValid":false,"invalidReason":"`+tc.verify+`","payer":"`+payer+`"}`)
		status, got = postRaw(t, tf.url+x402.PathSettle, raw)
		wantAnswer(t, tc.name+": settle", status, got, http.StatusServiceUnavailable,
			`{"x402Version":1,"event":"payment.failed","network":"cronos-testnet","timestamp":"T","error":"`+tc.settle+`",`+
				`"success":false,"transaction":"","payer":"`+payer+`","errorReason":"unexpected_settle_error"}`)
		proxy.ClearFailures()
		failed := map[string]int{}
		for _, c := range proxy.Failed()[before:] {
			failed[c.Method]++
		}
		if len(failed) != len(tc.failed) {
			t.Fatalf("%s: the proxy failed %v, want %v", tc.name, failed, tc.failed)
		}
		for m, n := range tc.failed {
			if failed[m] != n {
				t.Fatalf("%s: the proxy failed %v, want %v", tc.name, failed, tc.failed)
			}
		}
		waitBlocks(t, 2)
		nothingMoved(tc.name)
	}

	// The node answers again: the same payment is valid and settles once.
	status, got := postRaw(t, tf.url+x402.PathVerify, raw)
	wantAnswer(t, "verify after the node recovered", status, got, http.StatusOK,
		`{"isValid":true,"invalidReason":null,"payer":"`+payer+`"}`)
	sStatus, s := tf.settle(t, raw)
	if sStatus != http.StatusOK || !s.Settled() || s.From != payer || s.To != seller.Hex() || s.Value != "1500" || s.BlockNumber == nil {
		t.Fatalf("settle after the node recovered = %d %+v", sStatus, s)
	}
	if status, s2 := tf.settle(t, raw); status != http.StatusOK || s2.Event != x402.EventFailed || s2.Error != x402.ErrTextAlreadyUsed {
		t.Fatalf("second settle of the payment = %d %+v, want %q", status, s2, x402.ErrTextAlreadyUsed)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(price)) != 0 {
		t.Fatalf("seller balance %s, want %d", got, price)
	}
	if got := balance(t, b.Address); got.Sign() != 0 {
		t.Fatalf("buyer balance %s, want 0", got)
	}
	if !authorizationUsed(t, p) {
		t.Fatal("the authorization is not used after the settle")
	}
	if latest, pending, _ := chain.NonceAt(ctx, tf.signer); latest != latest0+1 || pending != latest {
		t.Fatalf("signer nonce %d (pending %d), want %d: one transaction", latest, pending, latest0+1)
	}
	r, err := chain.Client().TransactionReceipt(ctx, common.HexToHash(s.TxHash))
	if err != nil || r.Status != 1 || r.BlockNumber.Uint64() != *s.BlockNumber {
		t.Fatalf("receipt of %s: %+v, %v", s.TxHash, r, err)
	}
}

// TestNonceGapFilled: the node refuses one transaction in the middle of a
// send batch ("txpool is full") and takes the ones after it. The refused
// caller gets 503 with nothing broadcast and its authorization never moves
// money; the others settle; the refused nonce is filled by a zero-value
// transfer from the signer to itself, so that the transactions above it
// are mined (no nonce gap); and the signer goes on settling at once, the
// refused payment as well. The engine's log shows one fill and no answer
// taken for lost (every batched send was, while batch answers had nowhere
// to be decoded).
//
// FAKE: the refusal is answered by the proxy (rpcproxy.FailInBatch), which
// keeps the transaction from the node; the development chain's pool cannot
// be made to refuse one chosen transaction. The rest is real, and the
// batch is made deterministic with the proxy's Hold: the first broadcast
// waits in the proxy until every other settle has queued behind it, so
// they go out in one JSON-RPC batch.
//
// "fill refused": the node refuses the fill as well (FAKE, as above), so
// the transactions above the gap wait. The watcher, finding them unmined
// with no transaction of its own at the signer's next nonce, has the send
// loop fill the gap: they are mined, nothing stays stuck. (The code before
// left them waiting until another settle happened to take the nonce.)
func TestNonceGapFilled(t *testing.T) {
	for _, tc := range []struct {
		name        string
		fillRefused bool
	}{{"fill taken", false}, {"fill refused", true}} {
		t.Run(tc.name, func(t *testing.T) { testNonceGapFilled(t, tc.fillRefused) })
	}
}

func testNonceGapFilled(t *testing.T, fillRefused bool) {
	const burst, price = 6, 100
	const refusedText = "cannot send the transaction on network cronos-testnet; nothing was broadcast, try again shortly"
	ctx := context.Background()
	proxy := newProxy(t)
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	core, logs := observer.New(zap.WarnLevel)
	tf := newTestFacilitator(t, key, func(c *facilitator.Config) {
		c.Networks[0].RPCURLs = []string{proxy.URL()}
		c.SettleTimeout = 15 * time.Second
		c.Logger = zap.New(core)
	})
	seller := newSeller(t)
	req := requirements(seller, "100")
	b := newBuyer(t, chain, (burst+1)*price)
	start, err := chain.Client().PendingNonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}
	fromBlock := chainHead(t)

	// Rounds of a burst until the refusal has fired (the first, unless the
	// machine is so slow that no send batch held three transactions).
	var (
		pays     []*x402.Payment
		bodies   [][]byte
		answers  []x402.SettleResponse
		codes    []int
		refusedI = -1
		refused  *types.Transaction
	)
	proxy.FailInBatch("eth_sendRawTransaction", 1, -32000, "txpool is full")
	// A fill is the one transaction whose raw bytes hold the signer's
	// address (its recipient).
	fillMark := strings.ToLower(signer.Hex()[2:])
	if fillRefused {
		proxy.FailCalls("eth_sendRawTransaction", fillMark, -32000, "txpool is full")
	}
	for round := 0; refused == nil; round++ {
		if round == 3 {
			t.Fatal("no send batch held three transactions in three rounds; the refusal never fired")
		}
		first := len(pays)
		for range burst {
			h, p := pay(t, b, req, exact.PaymentOptions{})
			pays, bodies = append(pays, p), append(bodies, body(h, req))
		}
		answers = append(answers, make([]x402.SettleResponse, burst)...)
		codes = append(codes, make([]int, burst)...)
		estimates := proxy.Calls("eth_estimateGas")
		proxy.Hold("eth_sendRawTransaction")
		var wg sync.WaitGroup
		for i := first; i < len(pays); i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = postWithURL(t, http.DefaultClient, tf.url+x402.PathSettle, bodies[i], &answers[i])
			}()
		}
		// Every settle has run its checks and the first broadcast waits
		// in the proxy; the others reach the send queue behind it.
		deadline := time.Now().Add(10 * time.Second)
		for proxy.Calls("eth_estimateGas") < estimates+burst || proxy.Calls("eth_sendRawTransaction") == 0 {
			if time.Now().After(deadline) {
				proxy.Release()
				t.Fatal("the burst did not reach the node")
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		proxy.Release()
		if fillRefused {
			// Once the fill after the refusal has been refused too, the
			// node takes transactions again.
			go func() {
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(proxy.Failed()) < 2; {
					time.Sleep(time.Millisecond)
				}
				proxy.ClearFailures()
			}()
		}
		wg.Wait()
		if f := proxy.Failed(); len(f) > 0 {
			want := 1
			if fillRefused {
				want = 2
			}
			if len(f) != want || f[0].Method != "eth_sendRawTransaction" || f[want-1].Method != "eth_sendRawTransaction" ||
				fillRefused && !strings.Contains(string(f[1].Params), fillMark) {
				t.Fatalf("the proxy failed %+v, want the batch's second transaction and, with the fill refused, the fill", f)
			}
			var params []hexutil.Bytes
			refused = new(types.Transaction)
			if err := json.Unmarshal(f[0].Params, &params); err != nil || len(params) != 1 || refused.UnmarshalBinary(params[0]) != nil {
				t.Fatalf("the refused call's params %s: %v", f[0].Params, err)
			}
		}
		t.Logf("round %d: refusal fired: %v", round, refused != nil)
	}

	// The answers: the refused transaction's payment 503, the rest settled.
	for i, p := range pays {
		calldata, err := exact.TransferCalldata(&p.Authorization, p.Signature)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(calldata, refused.Data()) {
			refusedI = i
			wantFailed(t, codes[i], answers[i], http.StatusServiceUnavailable, refusedText)
			if answers[i].TxHash != "" {
				t.Fatalf("the refused settle answered a txHash %s", answers[i].TxHash)
			}
			continue
		}
		if codes[i] != http.StatusOK || !answers[i].Settled() {
			t.Fatalf("settle %d = %d %+v, want payment.settled", i, codes[i], answers[i])
		}
	}
	if refusedI < 0 {
		t.Fatalf("no payment has the refused transaction's calldata %x", refused.Data())
	}
	settled := len(pays) - 1
	waitBlocks(t, 3)
	for i, p := range pays {
		if used := authorizationUsed(t, p); used != (i != refusedI) {
			t.Fatalf("payment %d: authorization used = %v (refused is %d)", i, used, refusedI)
		}
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(int64(settled*price))) != 0 {
		t.Fatalf("seller balance %s, want %d", got, settled*price)
	}
	res, err := tf.f.SettlementByAuthorization("cronos-testnet", pays[refusedI].Authorization.From.Hex(), hexNonce(pays[refusedI]))
	if err != nil || res.Event != x402.EventFailed || res.TxHash != "" || res.Error != x402.ErrTextNotBroadcast {
		t.Fatalf("the refused settlement's record: %+v, %v", res, err)
	}

	// The chain: every nonce from start on is mined once, the refused one
	// by a zero-value transfer to the signer, the others by the settled
	// payments; the refused transaction itself is nowhere.
	//
	// With the fill refused too, one more outcome is right: a settle of
	// the burst that reached the send loop only after the refusal (a
	// straggler on a slow machine, seen under the race detector) is signed
	// on the node's pending nonce, which is the gap, and fills it itself;
	// the watcher then finds no gap to fill.
	byNonce := signerTxs(t, signer, fromBlock)
	fills := uint64(1)
	if at := byNonce[refused.Nonce()]; fillRefused && at != nil && at.To() != nil && *at.To() == chain.Token() {
		fills = 0
		t.Logf("a later settle of the burst took the refused nonce %d; the watcher had no gap to fill", refused.Nonce())
	}
	latest, pending, err := chain.NonceAt(ctx, signer)
	if err != nil || latest != start+uint64(settled)+fills || pending != latest {
		t.Fatalf("signer nonce %d (pending %d), want %d: %d settlements and %d fill (%v)", latest, pending, start+uint64(settled)+fills, settled, fills, err)
	}
	hashes := map[common.Hash]bool{}
	for i, a := range answers {
		if i != refusedI {
			hashes[common.HexToHash(a.TxHash)] = true
		}
	}
	for n := start; n < latest; n++ {
		tx := byNonce[n]
		if tx == nil {
			t.Fatalf("no mined transaction of the signer has nonce %d", n)
		}
		r, err := chain.Client().TransactionReceipt(ctx, tx.Hash())
		if err != nil || r.Status != 1 {
			t.Fatalf("receipt of nonce %d: %+v %v", n, r, err)
		}
		if n == refused.Nonce() && fills == 1 {
			if *tx.To() != signer || tx.Value().Sign() != 0 || len(tx.Data()) != 0 || tx.Hash() == refused.Hash() {
				t.Fatalf("nonce %d is mined by %s to %s, value %s, data %x; want a zero-value transfer to the signer", n, tx.Hash().Hex(), tx.To().Hex(), tx.Value(), tx.Data())
			}
			continue
		}
		if *tx.To() != chain.Token() || !hashes[tx.Hash()] {
			t.Fatalf("nonce %d is mined by %s, which no settle answered", n, tx.Hash().Hex())
		}
	}
	if _, _, err := chain.Client().TransactionByHash(ctx, refused.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("the refused transaction %s: %v, want not found", refused.Hash().Hex(), err)
	}
	// The engine knew what the node said of each transaction: one fill, and
	// no answer taken for lost (the node answered every call).
	atRefusal, byWatcher := 1, 0
	if fillRefused {
		atRefusal, byWatcher = 0, int(fills)
		if n := logs.FilterMessageSnippet("could not fill a nonce gap").Len(); n != 1 {
			t.Fatalf("%d refused fills logged, want 1", n)
		}
	}
	if n := logs.FilterMessageSnippet("filled the nonce of a refused settlement").Len(); n != atRefusal {
		t.Fatalf("%d fills at the refusal logged, want %d", n, atRefusal)
	}
	if n := logs.FilterMessageSnippet("filled a nonce gap below the signer's waiting transactions").Len(); n != byWatcher {
		t.Fatalf("%d fills by the watcher logged, want %d", n, byWatcher)
	}
	if lost := logs.FilterMessageSnippet("its answer was lost"); lost.Len() != 0 {
		t.Fatalf("%d broadcasts taken for answers lost, none was: %+v", lost.Len(), lost.All()[0].Context)
	}

	// The signer goes on at once: the refused payment, tried again, and a
	// new one settle.
	h, p := pay(t, b, req, exact.PaymentOptions{})
	for _, again := range [][]byte{bodies[refusedI], body(h, req)} {
		t0 := time.Now()
		if status, s := tf.settle(t, again); status != http.StatusOK || !s.Settled() || time.Since(t0) > 5*time.Second {
			t.Fatalf("settle after the fill = %d %+v after %s", status, s, time.Since(t0))
		}
	}
	if !authorizationUsed(t, pays[refusedI]) || !authorizationUsed(t, p) {
		t.Fatal("the settles after the fill did not use their authorizations")
	}
	if got, want := balance(t, seller), big.NewInt(int64((settled+2)*price)); got.Cmp(want) != 0 {
		t.Fatalf("seller balance %s, want %s", got, want)
	}
	if latest, pending, _ := chain.NonceAt(ctx, signer); latest != start+uint64(settled)+fills+2 || pending != latest {
		t.Fatalf("signer nonce %d (pending %d), want %d", latest, pending, start+uint64(settled)+fills+2)
	}
	if hl := tf.health(t); !hl.CanSettle || hl.PendingSettlements != 0 {
		t.Fatalf("health = %+v", hl)
	}
}

// signerTxs returns the mined transactions sent by signer in the blocks
// after fromBlock, by nonce.
func signerTxs(t *testing.T, signer common.Address, fromBlock uint64) map[uint64]*types.Transaction {
	t.Helper()
	ctx := context.Background()
	txSigner := types.LatestSignerForChainID(chain.ChainID())
	out := map[uint64]*types.Transaction{}
	for n := fromBlock + 1; n <= chainHead(t); n++ {
		blk, err := chain.Client().BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			if from, err := types.Sender(txSigner, tx); err == nil && from == signer {
				if out[tx.Nonce()] != nil {
					t.Fatalf("two mined transactions of the signer with nonce %d", tx.Nonce())
				}
				out[tx.Nonce()] = tx
			}
		}
	}
	return out
}
