package cluster

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// chanBuyer is a buyer's payment channel to the cluster's /chan route,
// its payloads signed in Go as the published client signs them.
type chanBuyer struct {
	acct devnet.Account
	acc  x402.RequirementsV2
	cfg  batch.ChannelConfig
	id   common.Hash
}

func (c *cluster) chanBuyer(acct devnet.Account, offer x402.PaymentRequiredV2, salt int64) *chanBuyer {
	c.t.Helper()
	acc := offer.Accepts[0]
	ra, _ := acc.Extra["receiverAuthorizer"].(string)
	cfg := batch.ChannelConfig{Payer: acct.Address, PayerAuthorizer: acct.Address, Receiver: common.HexToAddress(acc.PayTo),
		ReceiverAuthorizer: common.HexToAddress(ra), Token: common.HexToAddress(acc.Asset), WithdrawDelay: 900,
		Salt: common.BigToHash(big.NewInt(salt))}
	id, err := cfg.ID(c.chain.ChainID())
	if err != nil {
		c.t.Fatal(err)
	}
	return &chanBuyer{acct: acct, acc: acc, cfg: cfg, id: id}
}

// header is the PAYMENT-SIGNATURE of a voucher for max, with a deposit of
// deposit when it is not 0.
func (b *chanBuyer) header(c *cluster, max, deposit int64) map[string]string {
	c.t.Helper()
	sig, err := batch.SignVoucher(b.acct.Key, c.chain.ChainID(), b.id, big.NewInt(max))
	if err != nil {
		c.t.Fatal(err)
	}
	p := map[string]any{"type": "voucher", "channelConfig": b.cfg,
		"voucher": map[string]any{"channelId": b.id.Hex(), "maxClaimableAmount": strconv.FormatInt(max, 10), "signature": hexutil.Encode(sig)}}
	if deposit > 0 {
		p["type"] = "deposit"
		salt := new(big.Int).SetBytes(b.cfg.Salt[:])
		d := batch.ERC3009Deposit{From: b.acct.Address, Value: big.NewInt(deposit), ValidAfter: big.NewInt(0),
			ValidBefore: big.NewInt(time.Now().Add(time.Hour).Unix()), Salt: salt, ChannelID: b.id}
		dom := evm.Domain{Name: devnet.TokenName, Version: devnet.TokenVersion, ChainID: c.chain.ChainID(), VerifyingContract: c.chain.Token()}
		dsig, err := batch.SignERC3009Deposit(b.acct.Key, dom, d)
		if err != nil {
			c.t.Fatal(err)
		}
		p["deposit"] = map[string]any{"amount": strconv.FormatInt(deposit, 10), "authorization": map[string]any{"erc3009Authorization": map[string]any{
			"validAfter": "0", "validBefore": d.ValidBefore.String(), "salt": b.cfg.Salt.Hex(), "signature": hexutil.Encode(dsig)}}}
	}
	raw, _ := json.Marshal(p)
	h, err := x402.EncodeBase64JSON(x402.PaymentPayloadV2{X402Version: 2, Accepted: b.acc, Payload: raw})
	if err != nil {
		c.t.Fatal(err)
	}
	return map[string]string{"Payment-Signature": h}
}

// chargedOf is the channel's charged cumulative an answer states: a 200's
// PAYMENT-RESPONSE or a corrective 402's channelState; -1 when none.
func chargedOf(a answer) int64 {
	var cs map[string]any
	switch a.status {
	case http.StatusOK:
		var rs x402.ReferenceSettleResponse
		if x402.DecodeBase64JSON(a.header.Get("Payment-Response"), &rs) == nil {
			cs, _ = rs.Extra["channelState"].(map[string]any)
		}
	case http.StatusPaymentRequired:
		var pr x402.PaymentRequiredV2
		if x402.DecodeBase64JSON(a.header.Get("Payment-Required"), &pr) == nil && len(pr.Accepts) == 1 {
			cs, _ = pr.Accepts[0].Extra["channelState"].(map[string]any)
		}
	}
	s, _ := cs["chargedCumulativeAmount"].(string)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return v
}

// TestChannelsAcrossInstances is issue 26's PostgreSQL item: several
// buyers' vouchers spread over three instances on one store, each voucher
// sent to two instances at once: exactly one of the two is served, every
// 200 is a distinct cumulative step of its channel (never overspent);
// the instance that claims is killed (SIGKILL) mid-run and another takes
// the claiming role when its lease runs out; one instance claims at a
// time; the seller ends with exactly price x what was charged, which is
// what was served plus the charges whose answers the kill cut; the gas
// payer's transactions are the deposits and the claim rounds (a claim and
// a settle each), none reverted.
func TestChannelsAcrossInstances(t *testing.T) {
	c := newCluster(t, options{})
	const buyers, steps, deposit = 6, 24, 100 * price
	offer := c.offerV2(c.nodes[0], "/chan/x")
	if offer.Accepts[0].Scheme != "batch-settlement" {
		t.Fatalf("the /chan offer: %+v", offer.Accepts[0])
	}
	seller0 := c.balance(c.payTo)
	block0 := c.head()
	bs := make([]*chanBuyer, buyers)
	for i := range bs {
		bs[i] = c.chanBuyer(c.chain.Buyers()[i], offer, time.Now().UnixNano()+int64(i))
	}

	// Deposits, one per buyer, spread over the instances at once.
	var wg sync.WaitGroup
	served := make([]map[int64]bool, buyers)
	charged := make([]int64, buyers)
	for i, b := range bs {
		served[i] = map[int64]bool{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := c.nodes[i%3].get("/chan/x", b.header(c, price, deposit), 60*time.Second)
			if a.status != http.StatusOK || chargedOf(a) != price {
				t.Errorf("buyer %d's deposit at %s: %v", i, a.node, a)
				return
			}
			served[i][price], charged[i] = true, price
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// The claiming instance.
	leader := func(exclude *instance) *instance {
		deadline := time.Now().Add(30 * time.Second)
		for {
			var found []*instance
			for _, in := range c.nodes {
				if in != exclude && in.logCount("this instance now claims the payment channels") > 0 {
					found = append(found, in)
				}
			}
			if len(found) == 1 {
				return found[0]
			}
			if len(found) > 1 || time.Now().After(deadline) {
				t.Fatalf("%d instances took the claiming role", len(found))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	first := leader(nil)
	// Its first round claims the deposits' charges.
	for deadline := time.Now().Add(30 * time.Second); first.logCount(`"claim round: claimed"`) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("instance %s holds the claiming role and claimed nothing within 30 s", first.name)
		}
	}
	t.Logf("instance %s claims", first.name)

	// Vouchers: each step sent to two live instances at once.
	var alive sync.Map
	for _, in := range c.nodes {
		alive.Store(in.name, in)
	}
	live := func() []*instance {
		var out []*instance
		for _, in := range c.nodes {
			if _, ok := alive.Load(in.name); ok {
				out = append(out, in)
			}
		}
		return out
	}
	var done, doubles, cut atomic.Int64
	killed := make(chan struct{})
	go func() {
		for done.Load() < buyers*steps/2 {
			time.Sleep(10 * time.Millisecond)
		}
		alive.Delete(first.name)
		first.kill()
		close(killed)
	}()
	var mu sync.Mutex
	for i, b := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n < steps+1; {
				max := charged[i] + price
				nodes := live()
				rand.Shuffle(len(nodes), func(x, y int) { nodes[x], nodes[y] = nodes[y], nodes[x] })
				hdr := b.header(c, max, 0)
				answers := make([]answer, 2)
				var two sync.WaitGroup
				for k := range answers {
					two.Add(1)
					go func() {
						defer two.Done()
						answers[k] = nodes[k].get("/chan/x", hdr, 60*time.Second)
					}()
				}
				two.Wait()
				oks := 0
				for _, a := range answers {
					switch {
					case a.status == http.StatusOK:
						oks++
						mu.Lock()
						if served[i][max] {
							t.Errorf("buyer %d: the cumulative step %d served twice", i, max)
						}
						served[i][max] = true
						mu.Unlock()
					case a.status == 0:
						cut.Add(1)
					case a.status != http.StatusPaymentRequired:
						t.Errorf("buyer %d voucher %d at %s: %v", i, max, a.node, a)
						return
					}
					if v := chargedOf(a); v > charged[i] {
						charged[i] = v
					}
				}
				if oks > 1 {
					doubles.Add(1)
				}
				if oks == 1 {
					n++
					done.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	<-killed
	if d := doubles.Load(); d > 0 {
		t.Errorf("%d vouchers were served by both instances they were sent to", d)
	}
	second := leader(first)
	t.Logf("instance %s claims after %s was killed (%d requests cut by the kill)", second.name, first.name, cut.Load())

	// What each channel was charged, as a live instance states it.
	var total, servedTotal int64
	for i, b := range bs {
		a := second.get("/chan/x", b.header(c, price, 0), 30*time.Second)
		f := chargedOf(a)
		if a.status != http.StatusPaymentRequired || f < charged[i] {
			t.Fatalf("buyer %d's channel state: %v", i, a)
		}
		s := int64(len(served[i])) * price
		if f < s || f > s+2*price {
			t.Errorf("buyer %d: charged %d, served %d (the kill may cut at most the two requests in flight)", i, f, s)
		}
		total += f
		servedTotal += s
		charged[i] = f
	}
	t.Logf("served %d, charged %d (the difference: charges whose answers the kill cut)", servedTotal, total)

	// The claiming instance claims it all.
	deadline := time.Now().Add(60 * time.Second)
	for delta(seller0, c.balance(c.payTo)) != total {
		if time.Now().After(deadline) {
			t.Fatalf("the seller received %d, want %d (everything charged)", delta(seller0, c.balance(c.payTo)), total)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.waitIdle(time.Minute)
	rounds := map[string]int{}
	for _, in := range c.nodes {
		rounds[in.name] = in.logCount(`"claim round: claimed"`)
	}
	t.Logf("claim rounds by instance: %v", rounds)
	for _, in := range c.nodes {
		if in != first && in != second && rounds[in.name] > 0 {
			t.Errorf("instance %s claimed without the claiming role", in.name)
		}
	}
	if rounds[first.name] == 0 || rounds[second.name] == 0 {
		t.Errorf("the claiming instances %s (before the kill) and %s (after) claimed %d and %d times", first.name, second.name, rounds[first.name], rounds[second.name])
	}

	// The gas payer's transactions: the deposits and the claim rounds.
	l := c.scan(block0, c.head())
	kinds := map[string]int{}
	for _, s := range l.txs {
		name := "other"
		if tx, _, err := c.chain.Client().TransactionByHash(bg, s.hash); err == nil && tx.To() != nil && *tx.To() == batch.SettlementAddress && len(tx.Data()) >= 4 {
			if m, err := batch.ABI.MethodById(tx.Data()[:4]); err == nil {
				name = m.Name
			}
		}
		kinds[name]++
		if !s.ok {
			t.Errorf("the gas payer's transaction %s (%s) reverted", s.hash, name)
		}
	}
	claims, settles := kinds["claimWithSignature"]+kinds["claim"], kinds["settle"]
	logged := rounds[first.name] + rounds[second.name]
	t.Logf("the gas payer's transactions: %v (%d claim rounds logged)", kinds, logged)
	// A round is a claim and a settle; the killed instance's last round
	// may have sent its claim and not its settle (the next round settles
	// both), nor logged it.
	if kinds["deposit"] != buyers || settles == 0 || claims < settles || claims > settles+1 || len(l.txs) != buyers+claims+settles {
		t.Errorf("the gas payer's transactions %v: want %d deposits and, per claim round, one claim and one settle", kinds, buyers)
	}
	if claims < logged || claims > logged+1 {
		t.Errorf("%d claim transactions for %d logged rounds (one more at most: the killed instance's last)", claims, logged)
	}

	// A graceful stop of the claiming instance: its last round claims what
	// was charged until then, and it gives the role up, so that the last
	// instance claims what it charges next without waiting for the lease.
	var third *instance
	for _, in := range c.nodes {
		if in != first && in != second {
			third = in
		}
	}
	pay := func(in *instance) {
		t.Helper()
		for i, b := range bs {
			a := in.get("/chan/x", b.header(c, charged[i]+price, 0), 30*time.Second)
			if a.status != http.StatusOK {
				t.Fatalf("buyer %d's voucher at %s: %v", i, in.name, a)
			}
			charged[i] += price
			total += price
		}
	}
	pay(third)
	pay(second)
	second.terminate(t)
	if got := delta(seller0, c.balance(c.payTo)); got != total {
		t.Errorf("after the claiming instance's graceful stop the seller received %d, want %d (everything charged)", got, total)
	}
	stopped := time.Now()
	pay(third)
	for third.logCount("this instance now claims") == 0 || delta(seller0, c.balance(c.payTo)) != total {
		if time.Since(stopped) > 30*time.Second {
			t.Fatalf("after the graceful stop: the seller received %d, want %d; instance %s took the role: %v",
				delta(seller0, c.balance(c.payTo)), total, third.name, third.logCount("this instance now claims") > 0)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("instance %s took the role and claimed %v after %s's graceful stop", third.name, time.Since(stopped).Round(100*time.Millisecond), second.name)
}

// terminate stops the instance gracefully (SIGTERM) and waits until it
// has exited.
func (in *instance) terminate(t *testing.T) {
	t.Helper()
	in.mu.Lock()
	cmd, done := in.cmd, in.done
	in.cmd = nil
	in.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		t.Fatalf("instance %s did not stop within 60 s of SIGTERM", in.name)
	}
}
