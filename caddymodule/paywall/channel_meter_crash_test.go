//go:build linux

package paywall

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestChannelMeterCrash kills Caddy (SIGKILL) between the two writes of
// a metered channel request (the voucher's reservation of the price is
// written, the upstream runs, the metered charge is not), restarts it on
// the same bbolt store, and checks that nothing the seller is owed is
// lost: the reservation stands (the buyer signed for it) and the claim
// round claims it; the buyer, who never got a receipt, is corrected by a
// 402 to the channel's cumulative and pays on from there.
func TestChannelMeterCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Caddy in child processes")
	}
	chain, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })

	var c *crashCaddy
	killNow := make(chan bool, 4) // one value per upstream request: SIGKILL the child?
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if <-killNow {
			c.kill()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"usage":{"total_tokens":%s}}`, r.URL.Query().Get("tokens"))
	}))
	t.Cleanup(up.Close)

	m := startMeteredChild(t, chain, up, `"journal":`+jsonString(filepath.Join(t.TempDir(), "journal.db"))+`,"redemptions":`+jsonString(filepath.Join(t.TempDir(), "redemptions.db")), "1s")
	c = m.caddy
	cb, seller, pay := m.cb, m.seller, m.pay
	sellerBefore := seller()

	killNow <- false
	if st, rc, _, err := pay("/x?tokens=100", cb.deposit(t, 100000, 10000)); err != nil || st != 200 || rc.snapshot != "200" {
		t.Fatalf("deposit: %d %+v %v", st, rc, err)
	}
	// Killed while the upstream answers: reserved (10200), not metered.
	killNow <- true
	if st, _, _, err := pay("/x?tokens=5", cb.voucher(t, cb.key, 10200)); err == nil {
		t.Fatalf("the request survived the kill: %d", st)
	}
	c.start()
	// The claim round of the restarted Caddy claims the reservation.
	want := new(big.Int).Add(sellerBefore, big.NewInt(10200))
	for deadline := time.Now().Add(30 * time.Second); seller().Cmp(want) != 0 && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
	}
	testutil.AssertDelta(t, "seller after the restart's claim round", sellerBefore, seller(), 10200)
	// The buyer signs from the last receipt it got (200): corrected to
	// 10200, then served from there.
	st, _, pr, err := pay("/x?tokens=5", cb.voucher(t, cb.key, 10200))
	if err != nil || st != 402 || pr.Error != reasonCumulativeMismatch {
		t.Fatalf("voucher from the last receipt: %d %+v %v", st, pr, err)
	}
	if cs, _ := pr.Accepts[0].Extra["channelState"].(map[string]any); cs["chargedCumulativeAmount"] != "10200" {
		t.Fatalf("corrective channelState %+v, want chargedCumulativeAmount 10200", cs)
	}
	killNow <- false
	if st, rc, _, err := pay("/x?tokens=5", cb.voucher(t, cb.key, 20200)); err != nil || st != 200 || rc.charged != "10" || rc.snapshot != "10210" {
		t.Fatalf("voucher after the correction: %d %+v %v", st, rc, err)
	}
}

// meteredChild is a Caddy child process (crashCaddy) with a metered
// channel route (amount 10000, meter json usage.total_tokens 2) to
// channelMeterPayTo, a buyer of devnet buyer 1 with a fresh channel, and
// helpers.
type meteredChild struct {
	caddy  *crashCaddy
	base   string
	cb     *channelBuyer
	seller func() *big.Int
	pay    func(path string, payload map[string]any) (int, channelReceipt, x402.PaymentRequiredV2, error)
}

// startMeteredChild starts it on chain, with the x402 app's store
// settings (journal and redemptions, or storage) and claim_every.
func startMeteredChild(t *testing.T, chain *devnet.Chain, up *httptest.Server, storage, claimEvery string) *meteredChild {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	config := fmt.Sprintf(`{"admin":{"disabled":true},"apps":{
		"x402":{"networks":[{"name":"cronos-testnet","rpc":[%q],"signer_keys":["{env.X402_CRASH_SIGNER}"]}],
			"settle_timeout":60000000000,%s},
		"http":{"servers":{"s":{"listen":["127.0.0.1:%d"],"routes":[{"handle":[
			{"handler":"x402","pay_to":%q,"amount":"10000","scheme":"batch-settlement","claim_every":%q,
				"meter":{"kind":"json","path":"usage.total_tokens","unit_price":"2"}},
			{"handler":"reverse_proxy","upstreams":[{"dial":%q}]}]}]}}}}}`,
		chain.RPCURL(), storage, port, channelMeterPayTo, claimEvery, up.Listener.Addr().String())
	cfgPath := filepath.Join(dir, "caddy.json")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	m := &meteredChild{base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	m.caddy = &crashCaddy{t: t, config: cfgPath, url: m.base}
	m.caddy.start()
	t.Cleanup(m.caddy.kill)
	client := &http.Client{Timeout: 30 * time.Second}
	m.cb = newChannelBuyer(t, &caddytest.Tester{Client: client}, devnet.Buyer1PrivateKey, m.base+"/x?tokens=0", time.Now().UnixNano())
	m.seller = func() *big.Int {
		b, err := chain.BalanceOf(context.Background(), common.HexToAddress(channelMeterPayTo))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	m.pay = func(path string, payload map[string]any) (int, channelReceipt, x402.PaymentRequiredV2, error) {
		req, _ := http.NewRequest(http.MethodGet, m.base+path, nil)
		req.Header.Set(x402.HeaderPaymentSignature, m.cb.header(t, payload))
		resp, err := client.Do(req)
		if err != nil {
			return 0, channelReceipt{}, x402.PaymentRequiredV2{}, err
		}
		defer resp.Body.Close()
		var pr x402.PaymentRequiredV2
		_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr)
		return resp.StatusCode, channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2)), pr, nil
	}
	return m
}

// TestChannelMeterStoreDown: with storage postgres, the database goes
// away while a metered answer is held (after the reservation, before the
// metered charge): the answer goes out without a receipt (the store
// cannot say what it holds, and an untrue receipt would be worse), and
// once the database is back the buyer's next voucher, signed from its
// last receipt, is corrected by a 402 to what the store holds (the
// reservation), then served from there.
func TestChannelMeterStoreDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Caddy in a child process")
	}
	srv := pgtest.Start(t)
	chain, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })
	held, release := make(chan struct{}, 1), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("hold") != "" {
			held <- struct{}{}
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"usage":{"total_tokens":%s}}`, r.URL.Query().Get("tokens"))
	}))
	t.Cleanup(up.Close)
	m := startMeteredChild(t, chain, up, `"storage":{"postgres":`+jsonString(srv.DSN(t))+`}`, "5m")
	if st, rc, _, err := m.pay("/x?tokens=1", m.cb.deposit(t, 50000, 10000)); err != nil || st != 200 || rc.snapshot != "2" {
		t.Fatalf("deposit: %d %+v %v", st, rc, err)
	}
	type answer struct {
		status int
		rc     channelReceipt
		err    error
	}
	a := make(chan answer, 1)
	go func() {
		st, rc, _, err := m.pay("/x?hold=1&tokens=100", m.cb.voucher(t, m.cb.key, 10002))
		a <- answer{st, rc, err}
	}()
	<-held // reserved: the upstream runs
	srv.Stop(t)
	close(release)
	got := <-a
	if got.err != nil || got.status != 200 || got.rc != (channelReceipt{}) {
		t.Fatalf("with the store down: %d %+v %v, want 200 and no receipt", got.status, got.rc, got.err)
	}
	srv.Restart(t)
	var st int
	var pr x402.PaymentRequiredV2
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if st, _, pr, err = m.pay("/x?tokens=1", m.cb.voucher(t, m.cb.key, 10002)); err == nil && st != http.StatusServiceUnavailable {
			break
		}
	}
	if st != 402 || pr.Error != reasonCumulativeMismatch {
		t.Fatalf("the voucher from the last receipt: %d %+v %v", st, pr, err)
	}
	if cs, _ := pr.Accepts[0].Extra["channelState"].(map[string]any); cs["chargedCumulativeAmount"] != "10002" {
		t.Fatalf("corrective channelState %+v, want chargedCumulativeAmount 10002 (the reservation)", cs)
	}
	if st, rc, _, err := m.pay("/x?tokens=1", m.cb.voucher(t, m.cb.key, 20002)); err != nil || st != 200 || rc.charged != "2" || rc.snapshot != "10004" {
		t.Fatalf("the corrected voucher: %d %+v %v", st, rc, err)
	}
}
