package cluster

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestAccessAcrossInstances: access holds on every instance of the shared
// store. A buyer pays on A (the instances made the server key at one
// start, racing); A's access cookie is honoured by B; a sign-in with A's
// challenge is served by C (the nonce key and the grant are shared); the
// same header at B is a replay (the used nonce is shared); one payment
// moved money.
func TestAccessAcrossInstances(t *testing.T) {
	c := newCluster(t, options{})
	a, b, cc := c.nodes[0], c.nodes[1], c.nodes[2]
	const path = "/access/day"
	buyer := c.chain.Buyers()[2]
	payee0 := c.balance(c.payTo)

	got := a.pay(c.sign(buyer, c.requirements(a, path), path), 0)
	if got.status != http.StatusOK || got.header.Get("X-Payment-Access-Until") == "" {
		t.Fatalf("A, paid: %v", got)
	}
	cookie := ""
	for _, sc := range got.header.Values("Set-Cookie") {
		if strings.HasPrefix(sc, "x402_access_") {
			cookie, _, _ = strings.Cut(sc, ";")
		}
	}
	if cookie == "" {
		t.Fatalf("A set no access cookie: %v", got.header["Set-Cookie"])
	}
	if got := b.get(path, map[string]string{"Cookie": cookie}, 0); got.status != http.StatusOK || got.header.Get("X-Payment-Access-Until") == "" {
		t.Fatalf("B, A's cookie: %v", got)
	}

	// A's challenge, signed, sent to C; then the same header to B.
	ch := a.get(path, nil, 0)
	var pr struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if err := x402.DecodeBase64JSON(ch.header.Get("Payment-Required"), &pr); err != nil {
		t.Fatal(err)
	}
	var decl x402.SIWxDeclaration
	if err := json.Unmarshal(pr.Extensions[x402.ExtSignInWithX], &decl); err != nil {
		t.Fatalf("A's sign-in-with-x: %v", err)
	}
	_, header, err := x402.SignSIWx(decl.Info, decl.SupportedChains[0], buyer.Key)
	if err != nil {
		t.Fatal(err)
	}
	if got := cc.get(path, map[string]string{x402.HeaderSignInWithX: header}, 0); got.status != http.StatusOK {
		t.Fatalf("C, a sign-in with A's challenge: %v", got)
	}
	got = b.get(path, map[string]string{x402.HeaderSignInWithX: header}, 0)
	if j := got.json(); got.status != http.StatusPaymentRequired || j.Error != "Nonce validation failed (possible replay attack)" {
		t.Fatalf("B, the same sign-in again: %v", got)
	}
	if d := delta(payee0, c.balance(c.payTo)); d != price {
		t.Errorf("payee's balance rose by %d, want %d (one payment)", d, price)
	}
	if runs := c.up.runs(path); runs != 3 {
		t.Errorf("the upstream ran %d times, want 3 (paid, cookie, sign-in)", runs)
	}
}
