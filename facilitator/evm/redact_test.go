package evm

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"go.uber.org/zap"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://evm-t3.cronos.org", "https://evm-t3.cronos.org"},
		{"https://evm-t3.cronos.org/", "https://evm-t3.cronos.org"},
		{"https://user:pass@host.example:8545/v2/abcdef123456?apikey=s3cret", "https://…@host.example:8545/…?…"},
		{"https://mainnet.infura.io/v3/0123456789abcdef", "https://mainnet.infura.io/…"},
		{"http://127.0.0.1:8545?key=x", "http://127.0.0.1:8545?…"},
		{"not a url", "(an RPC URL that does not parse)"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestPoolErrorsRedacted dials an endpoint that refuses connections, with
// credentials in every part of its URL: no error, health problem or
// stat shows them.
func TestPoolErrorsRedacted(t *testing.T) {
	raw := "http://alice:pa55word@127.0.0.1:1/v2/pathtoken9?apikey=querytoken7"
	secrets := []string{"alice", "pa55word", "pathtoken9", "querytoken7"}
	p, err := NewPool("leaky", big.NewInt(338), []string{raw}, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	err = p.CheckChainIDs(context.Background())
	if err == nil {
		t.Fatal("CheckChainIDs with a closed port: no error")
	}
	var out []string
	out = append(out, err.Error(), p.Call(context.Background(), new(string), "eth_chainId").Error())
	for _, h := range p.Health() {
		out = append(out, h.URL, h.Problem)
	}
	for _, s := range p.Stats() {
		out = append(out, s.URL)
		if s.Requests == 0 || s.Errors != s.Requests {
			t.Errorf("stats %+v: want every request failed", s)
		}
	}
	for _, o := range out {
		for _, sec := range secrets {
			if strings.Contains(o, sec) {
				t.Errorf("%q shows %q", o, sec)
			}
		}
	}
	if !strings.Contains(out[0], "127.0.0.1:1") {
		t.Errorf("the error no longer names the endpoint: %s", out[0])
	}
	wrapped := RedactError(errors.New("Post \""+raw+"\": EOF"), raw)
	if strings.Contains(wrapped.Error(), "pa55word") || errors.Unwrap(wrapped) == nil {
		t.Errorf("RedactError: %v", wrapped)
	}
}
