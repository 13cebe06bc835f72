package cluster

import (
	"context"
	"io"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/upto"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// approvePermit2 has the buyer approve Permit2 for amount on the chain's
// token (0 revokes it), and waits until it is mined.
func (c *cluster) approvePermit2(buyer devnet.Account, amount *big.Int) {
	c.t.Helper()
	tok, err := token.NewEIP3009Token(c.chain.Token(), c.chain.Client())
	if err != nil {
		c.t.Fatal(err)
	}
	opts, err := bind.NewKeyedTransactorWithChainID(buyer.Key, c.chain.ChainID())
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts.Context = ctx
	tx, err := tok.Approve(opts, devnet.Permit2Address, amount)
	if err != nil {
		c.t.Fatal(err)
	}
	if rc, err := bind.WaitMined(ctx, c.chain.Client(), tx); err != nil || rc.Status != 1 {
		c.t.Fatalf("approve %s: %v %+v", amount, err, rc)
	}
}

// signUpto signs an upto payment of the route's maximum by the buyer.
func (c *cluster) signUpto(buyer devnet.Account, offer x402.PaymentRequiredV2) string {
	c.t.Helper()
	h, err := upto.CreatePayment(buyer.Key, offer.Accepts[0], offer.Resource, permit2.PaymentOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	return h
}

// streamed is an answer read whole, with its trailer.
type streamed struct {
	node    string
	status  int
	body    string
	header  http.Header
	trailer http.Header
	err     error
}

// getStream sends a paid GET path to the instance and reads the whole
// answer and its trailer.
func (in *instance) getStream(path, pay string) streamed {
	out := streamed{node: in.name}
	req, err := http.NewRequest(http.MethodGet, in.base()+path, nil)
	if err != nil {
		out.err = err
		return out
	}
	req.Host = host
	req.Header.Set(x402.HeaderPaymentSignature, pay)
	resp, err := client.Do(req)
	if err != nil {
		out.err = err
		return out
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	out.status, out.body, out.header, out.trailer, out.err = resp.StatusCode, string(b), resp.Header, resp.Trailer, err
	return out
}

// receipt decodes a PAYMENT-RESPONSE value; nil when absent or unreadable.
func receipt(v string) *x402.ReferenceSettleResponse {
	var rs x402.ReferenceSettleResponse
	if v == "" || x402.DecodeBase64JSON(v, &rs) != nil {
		return nil
	}
	return &rs
}

// TestUptoSettleAfterAcrossInstances: one payer streams four settle-after
// answers of an upto route at once, two on each of two instances on one
// PostgreSQL, and revokes Permit2's allowance while they stream: one
// answer went out unpaid (its trailer says so), the three others were
// held (settle before) and refused with 402, whichever instance served
// them; nothing moved. Then, its allowance back, the payer cools off on
// both instances: each answer is settled before it goes out (the receipt
// in the header), and charged what the meter read (100 each).
func TestUptoSettleAfterAcrossInstances(t *testing.T) {
	c := newCluster(t, options{instances: 2})
	const path = "/upto-after/stream"
	buyer := c.chain.Buyers()[7]
	unlimited := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	c.approvePermit2(buyer, unlimited)
	offer := c.offerV2(c.nodes[0], path)
	payee0, buyer0 := c.balance(c.payTo), c.balance(buyer.Address)

	const n = 4
	results := make(chan streamed, n)
	for i := range n {
		pay := c.signUpto(buyer, offer)
		in := c.nodes[i%2]
		go func() { results <- in.getStream(path, pay) }()
	}
	for range n {
		select {
		case <-c.up.streams:
		case <-time.After(time.Minute):
			t.Fatal("the four requests did not all reach the upstream")
		}
	}
	c.approvePermit2(buyer, new(big.Int))
	close(c.up.release)

	unpaid, refused := 0, 0
	for range n {
		a := <-results
		if a.err != nil {
			t.Fatalf("instance %s: %v", a.node, a.err)
		}
		switch a.status {
		case http.StatusOK:
			unpaid++
			rs := receipt(a.trailer.Get(x402.HeaderPaymentResponseV2))
			if a.body != streamFirst+streamRest || rs == nil || rs.Success || rs.ErrorMessage != x402.ReasonPermit2AllowanceRequired {
				t.Errorf("instance %s: the unpaid answer %q, its trailer receipt %+v", a.node, a.body, rs)
			}
		case http.StatusPaymentRequired:
			refused++
			if e := (answer{body: []byte(a.body)}).json().Error; e != x402.ReasonPermit2AllowanceRequired {
				t.Errorf("instance %s: a held answer refused with %q, want the allowance reason", a.node, a.body)
			}
		default:
			t.Errorf("instance %s: %d %q", a.node, a.status, a.body)
		}
	}
	if unpaid != 1 || refused != n-1 {
		t.Errorf("%d answers went out unpaid and %d were refused; want 1 and %d", unpaid, refused, n-1)
	}
	if d := delta(payee0, c.balance(c.payTo)); d != 0 {
		t.Errorf("the payee's balance moved by %d, want 0", d)
	}

	// Cooling off, on both instances: settled before the answer goes out.
	c.approvePermit2(buyer, unlimited)
	for _, in := range c.nodes {
		a := in.getStream(path, c.signUpto(buyer, offer))
		rs := receipt(a.header.Get(x402.HeaderPaymentResponseV2))
		if a.err != nil || a.status != http.StatusOK || a.body != streamFirst+streamRest || rs == nil || !rs.Success || rs.Amount != "100" {
			t.Errorf("instance %s, cooling off: %d %q %v, receipt in the header %+v", in.name, a.status, a.body, a.err, rs)
		}
		if len(a.trailer) != 0 {
			t.Errorf("instance %s, cooling off: a trailer %v", in.name, a.trailer)
		}
	}
	if d := delta(payee0, c.balance(c.payTo)); d != 200 {
		t.Errorf("the payee's balance rose by %d, want 200 (two charges of 100)", d)
	}
	if d := delta(c.balance(buyer.Address), buyer0); d != 200 {
		t.Errorf("the buyer's balance fell by %d, want 200 (two charges of 100)", d)
	}
}
