package x402cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
)

// doctorChain starts a devnet (every contract, a funded signer) for a
// doctor test.
func doctorChain(t *testing.T) *devnet.Chain {
	t.Helper()
	c, err := devnet.Start(devnet.Config{BlockTime: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// writeDoctorConfig writes a JSON config: the x402 app's cronos-testnet
// (built in, the devnet's token and domain) read through rpc with the
// signer key of $DOCTOR_TEST_SIGNER, netExtra merged into it, and one
// route per handler.
func writeDoctorConfig(t *testing.T, rpc string, netExtra map[string]any, handlers ...map[string]any) string {
	t.Helper()
	nw := map[string]any{"name": "cronos-testnet", "rpc": []string{rpc}, "signer_keys": []string{"{env.DOCTOR_TEST_SIGNER}"}}
	for k, v := range netExtra {
		nw[k] = v
	}
	var routes []any
	for _, h := range handlers {
		h["handler"] = "x402"
		h["pay_to"] = "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e"
		h["amount"] = "1000"
		routes = append(routes, map[string]any{"handle": []any{h}})
	}
	cfg := map[string]any{"apps": map[string]any{
		"x402": map[string]any{"networks": []any{nw}},
		"http": map[string]any{"servers": map[string]any{"s": map[string]any{"listen": []string{":0"}, "routes": routes}}},
	}}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "caddy.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// keyHex is a key as signer_key takes it.
func keyHex(t *testing.T) (string, common.Address) {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return common.Bytes2Hex(crypto.FromECDSA(k)), crypto.PubkeyToAddress(k.PublicKey)
}

// hidingProxy is a FAKE chain fault: a JSON-RPC proxy in front of the
// devnet that answers eth_getCode "0x" for one address, as a chain
// without that contract would (the one fault the devnet cannot have
// without redeploying). Everything else is the devnet's answer.
func hidingProxy(t *testing.T, target string, hide common.Address) string {
	t.Helper()
	type msg struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method,omitempty"`
		Params []json.RawMessage `json:"params,omitempty"`
		// the answer's fields
		JSONRPC string          `json:"jsonrpc,omitempty"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   json.RawMessage `json:"error,omitempty"`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		batch := bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))
		var reqs []msg
		if batch {
			json.Unmarshal(body, &reqs)
		} else {
			var m msg
			json.Unmarshal(body, &m)
			reqs = []msg{m}
		}
		hidden := map[string]bool{}
		for _, m := range reqs {
			if m.Method == "eth_getCode" && len(m.Params) > 0 {
				var a common.Address
				if json.Unmarshal(m.Params[0], &a) == nil && a == hide {
					hidden[string(m.ID)] = true
				}
			}
		}
		resp, err := http.Post(target, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		var answers []msg
		if batch {
			json.Unmarshal(out, &answers)
		} else {
			var m msg
			json.Unmarshal(out, &m)
			answers = []msg{m}
		}
		for i := range answers {
			if hidden[string(answers[i].ID)] {
				answers[i].Result, answers[i].Error = json.RawMessage(`"0x"`), nil
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if batch {
			json.NewEncoder(w).Encode(answers)
		} else {
			json.NewEncoder(w).Encode(answers[0])
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// runDoctor runs the doctor in process: its output and error.
func runDoctor(t *testing.T, o DoctorOptions) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := RunDoctor(context.Background(), o, &out)
	return out.String(), err
}

// assertLines compares output with want line by line; a want line ending
// in "…" matches a line that starts with what comes before it (a gas
// figure that moves with the devnet's base fee).
func assertLines(t *testing.T, got string, want []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	ok := len(lines) == len(want)
	for i := 0; ok && i < len(want); i++ {
		if p, cut := strings.CutSuffix(want[i], "…"); cut {
			ok = strings.HasPrefix(lines[i], p)
		} else {
			ok = lines[i] == want[i]
		}
	}
	if !ok {
		t.Fatalf("output:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// The lines of the devnet's cronos-testnet where everything is there.
var (
	devnetHead = []string{
		"network cronos-testnet (chain 338, token 0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0)",
		"  ok       rpc: chain 338 answers",
	}
	devnetDomainOK = `  ok       eip712 domain: name "Bridged USDC (Stargate)", version "1", chainId 338, verifyingContract 0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0 match the token's DOMAIN_SEPARATOR()`
	offered        = []string{
		"  offered  exact",
		"  offered  exact-permit2: Permit2 0x000000000022D473030F116dDEE9F6B43aC78BA3, x402 exact Permit2 proxy 0x402085c248EeA27D92E8b30b2C58ed07f9E20001",
		"  offered  upto: Permit2 0x000000000022D473030F116dDEE9F6B43aC78BA3, x402 upto Permit2 proxy 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002",
		"  offered  batch-settlement: x402 batch settlement (escrow) 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003, x402 ERC-3009 deposit collector 0x4020806089470a89826cB9fB1f4059150b550004, EIP-1153 transient storage (TSTORE/TLOAD)",
		"  offered  batch-settlement-permit2: x402 batch settlement (escrow) 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003, x402 ERC-3009 deposit collector 0x4020806089470a89826cB9fB1f4059150b550004, Permit2 0x000000000022D473030F116dDEE9F6B43aC78BA3, x402 Permit2 deposit collector 0x4020425FAf3B746C082C2f942b4E5159887B0005, EIP-1153 transient storage (TSTORE/TLOAD)",
	}
	blocked = []string{
		"  missing  exact: blocked by the network's findings above",
		"  missing  exact-permit2: blocked by the network's findings above",
		"  missing  upto: blocked by the network's findings above",
		"  missing  batch-settlement: blocked by the network's findings above",
		"  missing  batch-settlement-permit2: blocked by the network's findings above",
	}
)

// concat joins line lists.
func concat(ls ...[]string) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

// TestDoctorDevnet: on the devnet every scheme is offered, the routes'
// schemes (every kind) can be served, and the signer is named by its
// address with its balance, never its key.
func TestDoctorDevnet(t *testing.T) {
	c := doctorChain(t)
	signer := c.Signer()
	t.Setenv("DOCTOR_TEST_SIGNER", common.Bytes2Hex(crypto.FromECDSA(signer.Key)))
	cfg := writeDoctorConfig(t, c.RPCURL(), nil,
		map[string]any{},
		map[string]any{"scheme": "exact", "asset_transfer": "permit2"},
		map[string]any{"scheme": "upto"},
		map[string]any{"scheme": "batch-settlement", "asset_transfer": "permit2"},
		map[string]any{"scheme": "batch-settlement"})
	out, err := runDoctor(t, DoctorOptions{Config: cfg})
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, out)
	}
	assertLines(t, out, concat(devnetHead, []string{
		devnetDomainOK,
		"  ok       signer " + signer.Address.Hex() + ": balance 1000000000000000000000000 wei, enough for …",
	}, offered, []string{
		"  routes   batch-settlement, batch-settlement-permit2, exact, exact-permit2, upto: every one can be served",
	}))
	if k := common.Bytes2Hex(crypto.FromECDSA(signer.Key)); strings.Contains(out, k) {
		t.Fatal("the output holds the signer's key")
	}
}

// TestDoctorHiddenContract: where the chain (a FAKE proxy in front of the
// devnet) has no code at the x402 upto proxy's address, the doctor names
// the address and the route's scheme that cannot be served, and fails;
// the other schemes stay offered.
func TestDoctorHiddenContract(t *testing.T) {
	c := doctorChain(t)
	t.Setenv("DOCTOR_TEST_SIGNER", common.Bytes2Hex(crypto.FromECDSA(c.Signer().Key)))
	rpc := hidingProxy(t, c.RPCURL(), permit2.UptoProxy.Address())
	cfg := writeDoctorConfig(t, rpc, nil, map[string]any{"scheme": "upto"}, map[string]any{})
	out, err := runDoctor(t, DoctorOptions{Config: cfg})
	if err == nil || err.Error() != "cannot be served: upto on cronos-testnet" {
		t.Fatalf("doctor error %v, want the upto route named\n%s", err, out)
	}
	assertLines(t, out, concat(devnetHead, []string{
		devnetDomainOK,
		"  ok       signer " + c.Signer().Address.Hex() + ": balance …",
	}, offered[:2], []string{
		"  missing  upto: x402 upto Permit2 proxy 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002: no contract at 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002",
		"           fix: deploy x402 upto Permit2 proxy at its canonical address 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002 on this chain (or ask the chain's operators to), or do not serve upto here",
	}, offered[3:], []string{
		"  routes   exact, upto: upto cannot be served",
	}))
}

// TestDoctorDomainMismatch: a configured EIP-712 version that is not the
// token's is named with both values, and no route can be served.
func TestDoctorDomainMismatch(t *testing.T) {
	c := doctorChain(t)
	t.Setenv("DOCTOR_TEST_SIGNER", common.Bytes2Hex(crypto.FromECDSA(c.Signer().Key)))
	cfg := writeDoctorConfig(t, c.RPCURL(), map[string]any{"eip712_version": "2"}, map[string]any{})
	out, err := runDoctor(t, DoctorOptions{Config: cfg})
	if err == nil || err.Error() != "cannot be served: exact on cronos-testnet" {
		t.Fatalf("doctor error %v\n%s", err, out)
	}
	assertLines(t, out, concat(devnetHead, []string{
		`  missing  eip712 version: the token's EIP-712 version is "1", the configuration's "2"`,
		`           fix: set the network's eip712_version to "1" (or leave it empty to read it from the token)`,
		"  ok       signer " + c.Signer().Address.Hex() + ": balance …",
	}, blocked, []string{
		"  routes   exact: exact cannot be served",
	}))
}

// TestDoctorSignerWithoutGas: a signer key whose address holds nothing is
// named by its address (not its key) with the balance one settlement
// needs, and the network's routes cannot be served.
func TestDoctorSignerWithoutGas(t *testing.T) {
	c := doctorChain(t)
	key, addr := keyHex(t)
	t.Setenv("DOCTOR_TEST_SIGNER", key)
	cfg := writeDoctorConfig(t, c.RPCURL(), nil, map[string]any{})
	out, err := runDoctor(t, DoctorOptions{Config: cfg})
	if err == nil || err.Error() != "cannot be served: exact on cronos-testnet" {
		t.Fatalf("doctor error %v\n%s", err, out)
	}
	assertLines(t, out, concat(devnetHead, []string{
		devnetDomainOK,
		"  missing  signer " + addr.Hex() + ": balance 0 wei, under the …",
		"           fix: send the chain's native coin to " + addr.Hex() + ": at least …",
	}, blocked, []string{
		"  routes   exact: exact cannot be served",
	}))
	if strings.Contains(out, key) {
		t.Fatal("the output holds the signer's key")
	}
}

// TestDoctorFlags: bad invocations are refused with what to give.
func TestDoctorFlags(t *testing.T) {
	for _, tc := range []struct {
		o    DoctorOptions
		want string
	}{
		{DoctorOptions{}, "give --config FILE (a Caddyfile or JSON config with an x402 app), or --network NAME with --rpc URL"},
		{DoctorOptions{Config: "x.json", RPC: "http://127.0.0.1:1"}, "give either --config (the config's networks and routes) or --network with --rpc, --signer and --scheme, not both"},
		{DoctorOptions{Network: "base-sepolia", RPC: "http://127.0.0.1:1"}, "network base-sepolia: chain ID must be positive, got 0 (a network that is not built in needs --rpc, --chain-id and --token)"},
		{DoctorOptions{Network: "cronos", Signers: []string{"0x12"}}, `--signer "0x12": not a 0x-prefixed 20-byte hex address (give the signer's address, never its key)`},
	} {
		if _, err := runDoctor(t, tc.o); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestDoctorUnknownScheme: a route's scheme the facilitator does not
// serve is named as such, and fails.
func TestDoctorUnknownScheme(t *testing.T) {
	c := doctorChain(t)
	t.Setenv("DOCTOR_TEST_SIGNER", common.Bytes2Hex(crypto.FromECDSA(c.Signer().Key)))
	cfg := writeDoctorConfig(t, c.RPCURL(), nil, map[string]any{"scheme": "stream"}, map[string]any{})
	out, err := runDoctor(t, DoctorOptions{Config: cfg})
	if err == nil || err.Error() != "cannot be served: stream on cronos-testnet" {
		t.Fatalf("doctor error %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "  routes   exact, stream: stream is no scheme of this facilitator" {
		t.Fatalf("last line %q\n%s", last, out)
	}
}
