package cluster

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// chargedAmountOf is the chargedAmount a 200's PAYMENT-RESPONSE states
// (what the request cost); -1 when none.
func chargedAmountOf(a answer) int64 {
	var rs x402.ReferenceSettleResponse
	if a.status != http.StatusOK || x402.DecodeBase64JSON(a.header.Get("Payment-Response"), &rs) != nil {
		return -1
	}
	s, _ := rs.Extra["chargedAmount"].(string)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return v
}

// TestChannelClaimFenceAcrossInstances: a claim round on one instance
// while a metered channel request is held on another never takes more
// than the receipts state (issue 32's finding 5, across instances). The
// held request's reservation is in the store, its give-back not made yet;
// the claiming instance cannot see it (its held charges are its own), so
// its claim takes the reservation. The claim's fence (FenceClaim), written
// before the claim is sent, makes the give-back that comes while the claim
// is on its way (the chain's mining paused) leave the price, and the
// receipt says so. Before the fence, the give-back went through (a receipt
// of 100), the claim landed at the reservation and the seller was paid
// 900 more than the receipts stated.
func TestChannelClaimFenceAcrossInstances(t *testing.T) {
	c := newCluster(t, options{instances: 2})
	const metered = 100 // 50 tokens at 2 (the upstream's stream)
	offer := c.offerV2(c.nodes[0], "/chan-meter/now")
	b := c.chanBuyer(c.chain.Buyers()[0], offer, time.Now().UnixNano())
	seller0 := c.balance(c.payTo)

	var leader, other *instance
	for deadline := time.Now().Add(30 * time.Second); leader == nil; time.Sleep(100 * time.Millisecond) {
		for i, in := range c.nodes {
			if in.logCount("this instance now claims the payment channels") > 0 {
				leader, other = in, c.nodes[1-i]
			}
		}
		if leader == nil && time.Now().After(deadline) {
			t.Fatal("no instance took the claiming role within 30 s")
		}
	}
	t.Logf("instance %s claims; the requests go to %s", leader.name, other.name)

	waitSeller := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); delta(seller0, c.balance(c.payTo)) != want; time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the seller received %d, want %d (the receipts' chargedAmount)", delta(seller0, c.balance(c.payTo)), want)
			}
		}
	}
	// The deposit, metered: 100, claimed and paid to the seller by the
	// leader's rounds.
	a := other.get("/chan-meter/now", b.header(c, price, 10*price), 60*time.Second)
	if a.status != http.StatusOK || chargedAmountOf(a) != metered || chargedOf(a) != metered {
		t.Fatalf("deposit: %v", a)
	}
	waitSeller(metered)

	// A request held on the other instance: its reservation (100 + the
	// price) is in the store.
	held := make(chan answer, 1)
	go func() { held <- other.get("/chan-meter/held", b.header(c, metered+price, 0), 90*time.Second) }()
	select {
	case name := <-c.up.streams:
		if name != other.name {
			t.Fatalf("the held stream went through %s, want %s", name, other.name)
		}
	case a := <-held:
		t.Fatalf("the held request was answered before its stream began: %v", a)
	}
	// The leader's next round reads the reservation and sends its claim,
	// which stays on its way while the chain mines nothing.
	c.chain.PauseMining()
	resumed := false
	defer func() {
		if !resumed {
			c.chain.ResumeMining()
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if latest, pending := c.nonces(); pending > latest {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no claim was sent within 30 s of the reservation")
		}
	}
	// The held answer ends (50 tokens: 100) while the claim is on its way:
	// its give-back meets the fence, so the price stands and the receipt
	// says so.
	close(c.up.release)
	a = <-held
	if a.status != http.StatusOK || chargedAmountOf(a) != price || chargedOf(a) != metered+price {
		t.Fatalf("the held request, answered while the claim was on its way: %d chargedAmount %d, charged cumulative %d; want 200, %d, %d",
			a.status, chargedAmountOf(a), chargedOf(a), price, metered+price)
	}
	c.chain.ResumeMining()
	resumed = true
	// The seller is paid exactly what the receipts state: 100 + the price.
	waitSeller(metered + price)
	time.Sleep(5 * time.Second) // two more claim rounds: nothing more is claimed
	if got := delta(seller0, c.balance(c.payTo)); got != metered+price {
		t.Fatalf("the seller received %d after further rounds, want %d", got, metered+price)
	}
	if n := leader.logCount("a metered channel charge could not be lowered") + other.logCount("a metered channel charge could not be lowered"); n != 1 {
		t.Errorf("%d give-backs refused in the logs, want 1 (the held request's)", n)
	}
}
