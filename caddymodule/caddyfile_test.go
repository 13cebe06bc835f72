package caddymodule

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddytest"
)

var updateAdapt = flag.Bool("update", false, "rewrite the expected JSON of testdata/*.caddytest")

// TestCaddyfileAdapt adapts every testdata/*.caddytest Caddyfile and
// compares the JSON with the expected part, as Caddy's own adapt tests do.
func TestCaddyfileAdapt(t *testing.T) {
	files, err := filepath.Glob("testdata/*.caddytest")
	if err != nil || len(files) == 0 {
		t.Fatalf("no adapt tests found: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.SplitN(string(data), "----------", 2)
			if len(parts) != 2 {
				t.Fatalf("%s has no ---------- line", file)
			}
			caddyfile, expected := strings.TrimSpace(parts[0])+"\n", strings.TrimSpace(parts[1])
			if *updateAdapt {
				out, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := json.Indent(&buf, out, "", "\t"); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(strings.TrimSpace(parts[0])+"\n----------\n"+buf.String()+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !caddytest.CompareAdapt(t, file, caddyfile, "caddyfile", expected) {
				t.Errorf("adapting %s gave other JSON than expected", file)
			}
		})
	}
}

// TestCaddyfileErrors checks that each mistake is refused at adapt time
// with an error that says what is wrong.
func TestCaddyfileErrors(t *testing.T) {
	const payTo = "0x1111111111111111111111111111111111111111"
	site := func(body string) string { return ":8080 {\n" + body + "\n}\n" }
	global := func(opt string) string { return "{\n\tx402 {\n" + opt + "\n\t}\n}\n" + site("respond ok") }
	tests := []struct {
		name, caddyfile, want string
	}{
		{"missing pay_to", site("x402 {\n price 0.01\n}"), "pay_to is required"},
		{"path guard with an argument", site("x402_path_guard strict"), "x402_path_guard takes no arguments and no block"},
		{"path guard with a block", site("x402_path_guard {\n strict\n}"), "x402_path_guard takes no arguments and no block"},
		{"bad address", site("x402 {\n pay_to 0x1234\n price 0.01\n}"), `pay_to "0x1234" is not an address`},
		// 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed with one letter's case changed (EIP-55's example).
		{"bad pay_to checksum", site("x402 {\n pay_to 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD\n price 0.01\n}"),
			`pay_to "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD" has a bad EIP-55 checksum (its mix of upper and lower case is not the address's), and wallets and clients such as viem refuse it: ` +
				"check that it is the address you mean, then write it as 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed (its checksum) or all in lower case"},
		{"address without 0x", site("x402 {\n pay_to 1111111111111111111111111111111111111111\n price 0.01\n}"), "is not an address"},
		{"bad price", site("x402 {\n pay_to " + payTo + "\n price abc\n}"), `price "abc" is not a`},
		{"negative price", site("x402 {\n pay_to " + payTo + "\n price -1\n}"), `price "-1" is not a positive decimal number`},
		{"zero price", site("x402 {\n pay_to " + payTo + "\n price 0\n}"), "must be above zero"},
		{"price and amount", site("x402 {\n pay_to " + payTo + "\n price 0.01\n amount 10000\n}"), "either price (whole tokens) or amount (smallest units), not both"},
		{"no price", site("x402 {\n pay_to " + payTo + "\n}"), "a price is required"},
		{"bad amount", site("x402 {\n pay_to " + payTo + "\n amount 0.5\n}"), `amount "0.5"`},
		{"bad settle", site("x402 {\n pay_to " + payTo + "\n price 1\n settle later\n}"), `settle must be "before" or "after", got "later"`},
		{"unknown option", site("x402 {\n pay_to " + payTo + "\n price 1\n colour blue\n}"), `unrecognized option "colour"`},
		{"unknown network", site("x402 {\n pay_to " + payTo + "\n price 1\n network moon-mainnet\n}"), `network "moon-mainnet" is not configured in the x402 global option (configured: cronos-testnet)`},
		{"mainnet not in app", global("network cronos-testnet") + site("x402 {\n pay_to "+payTo+"\n price 1\n network cronos-mainnet\n}"), `network "cronos-mainnet" is not configured`},
		{"literal signer key", global("network cronos-testnet {\n signer_key 0x4484399f9ff44c15830151ab53cfff61a32dd4037ee9db7b2b7d7373de7e59dd\n}"), "signer_key must be a placeholder, {env.NAME} or {file.PATH}, not the key itself"},
		{"parse-time env key", global("network cronos-testnet {\n signer_key {$HOME}\n}"), "signer_key must be a placeholder"},
		{"custom network incomplete", global("network moon {\n rpc http://127.0.0.1:1\n}"), "network moon is not built in (built in: cronos-testnet, cronos-mainnet), so it needs chain_id, token"},
		{"bad token", global("network moon {\n token 0xzz\n}"), `token "0xzz" is not an address`},
		{"bad smart wallet factory", global("network cronos-testnet {\n smart_wallet_factories 0x12\n}"), `network cronos-testnet: smart_wallet_factories: "0x12" is not an address`},
		{"smart wallet factories without one", global("network cronos-testnet {\n smart_wallet_factories\n}"), `wrong argument count`},
		{"bad smart wallet floor", global("network cronos-testnet {\n smart_wallet_min_amount 0.5\n}"), `network cronos-testnet: smart_wallet_min_amount "0.5" is not a whole number of the token's smallest unit`},
		{"bad chain id", global("network moon {\n chain_id -3\n}"), `chain_id "-3" is not a positive integer`},
		{"bad rpc", global("network cronos-testnet {\n rpc evm-t3.cronos.org\n}"), `rpc "evm-t3.cronos.org" is not a URL`},
		{"network twice", global("network cronos-testnet\nnetwork cronos-testnet"), `network "cronos-testnet" is configured twice`},
		{"bad devnet option", global("devnet {\n port 8545\n}"), `devnet: unrecognized option "port"`},
		{"bad block time", global("devnet {\n block_time fast\n}"), `block_time "fast" is not a positive duration`},
		{"bad devnet chain id", global("devnet {\n chain_id base\n}"), `devnet: chain_id "base" is not a positive integer`},
		{"bad devnet token", global("devnet {\n token 0x12\n}"), `devnet: token "0x12" is not an address`},
		{"facilitator_header shape", site("x402 {\n pay_to " + payTo + "\n price 1\n facilitator https://f.example.com\n facilitator_header Authorization\n}"), "facilitator_header takes a name and a value"},
		{"bad facilitator_dialect", site("x402 {\n pay_to " + payTo + "\n price 1\n facilitator https://f.example.com\n facilitator_dialect v3\n}"), `facilitator_dialect: dialect "v3" is not one of cronos, v1, v2`},
		{"CAIP-2 id of an unconfigured chain", site("x402 {\n pay_to " + payTo + "\n price 1\n network eip155:25\n}"), `network "eip155:25" is not configured`},
		{"bad journal retention", global("journal_retention forever"), `journal_retention "forever" is not a positive duration`},
		{"unknown app option", global("colour blue"), `unrecognized x402 option "colour"`},
		{"bad rate limit", site("x402_facilitator {\n rate_limit verify ten 1m\n}"), `rate_limit verify: "ten" is not a positive number of requests`},
		{"bad rate limit window", site("x402_facilitator {\n rate_limit settle 5 soon\n}"), `"soon" is not a positive duration`},
		{"bad rate limit shape", site("x402_facilitator {\n rate_limit 5\n}"), "rate_limit takes verify|settle|lookup <requests> <window>, or off"},
		{"remote custom network without asset", site("x402 {\n pay_to " + payTo + "\n price 1\n network moon\n facilitator https://f.example.com\n asset nope\n}"), `asset "nope" is not an address`},
		{"bad attempt limit", site("x402 {\n pay_to " + payTo + "\n price 1\n attempt_limit 0 1m\n}"), `attempt_limit: "0" is not a positive number of attempts`},
		{"bad attempt limit shape", site("x402 {\n pay_to " + payTo + "\n price 1\n attempt_limit 5\n}"), "attempt_limit takes <attempts> <window> (such as 60 1m), or off"},
		{"bad refusal cache", site("x402 {\n pay_to " + payTo + "\n price 1\n refusal_cache forever\n}"), `refusal_cache: "forever" is not a positive duration`},
		{"forward_payment_header with an argument", site("x402 {\n pay_to " + payTo + "\n price 1\n forward_payment_header on\n}"), "forward_payment_header takes no argument"},
		{"bad paywall", site("x402 {\n pay_to " + payTo + "\n price 1\n paywall maybe\n}"), `paywall must be "on" or "off", got "maybe"`},
		{"template with paywall off", site("x402 {\n pay_to " + payTo + "\n price 1\n paywall off\n paywall_template page.html\n}"), "paywall_template has no use with paywall off"},
		{"bad scheme", site("x402 {\n pay_to " + payTo + "\n price 1\n scheme batch\n}"), `scheme must be "exact", "upto" or "batch-settlement", got "batch"`},
		{"meter on exact", site("x402 {\n pay_to " + payTo + "\n price 1\n meter json usage.total_tokens 0.000002\n}"), "meter and meter_max_bytes are for scheme upto or batch-settlement"},
		{"meter shape", site("x402 {\n pay_to " + payTo + "\n price 1\n scheme upto\n meter usage.total_tokens 0.1\n}"), "meter takes json <dotted path> <unit price>"},
		{"meter bad path", site("x402 {\n pay_to " + payTo + "\n price 1\n scheme upto\n meter json usage..tokens 0.1\n}"), `meter json path "usage..tokens" is not a dotted path`},
		{"meter bad unit price", site("x402 {\n pay_to " + payTo + "\n price 1\n scheme upto\n meter json usage.tokens -1\n}"), `meter json unit price "-1": want a non-negative decimal number`},
		{"bad meter_max_bytes", site("x402 {\n pay_to " + payTo + "\n price 1\n scheme upto\n meter_max_bytes lots\n}"), `meter_max_bytes "lots": want a positive size`},
		{"gas_sponsoring on exact", site("x402 {\n pay_to " + payTo + "\n price 1\n gas_sponsoring eip2612\n}"), "gas_sponsoring is for scheme upto"},
		{"bad gas_sponsoring", site("x402 {\n pay_to " + payTo + "\n price 1\n scheme upto\n gas_sponsoring erc20\n}"), `gas_sponsoring must be "eip2612" or "off", got "erc20"`},
		{"asset_transfer on upto", site("x402 {\n pay_to " + payTo + "\n price 1\n scheme upto\n asset_transfer permit2\n}"), "asset_transfer is for scheme exact"},
		{"bad asset_transfer", site("x402 {\n pay_to " + payTo + "\n price 1\n asset_transfer approve\n}"), `asset_transfer must be "eip3009" or "permit2", got "approve"`},
		{"upto with access", site("x402 {\n pay_to " + payTo + "\n price 1\n scheme upto\n access 1h\n}"), "access does not go with scheme upto"},
		{"paywall without value", site("x402 {\n pay_to " + payTo + "\n price 1\n paywall\n}"), "wrong argument count"},
		{"bad explorer", site("x402 {\n pay_to " + payTo + "\n price 1\n explorer explorer.cronos.org\n}"), `explorer "explorer.cronos.org" must be an http:// or https:// URL`},
		{"bad network explorer", global("network cronos-testnet {\n explorer ftp://x\n}"), `network cronos-testnet: explorer "ftp://x" must be an http:// or https:// URL`},
		{"bad payment_identifier", site("x402 {\n pay_to " + payTo + "\n price 1\n payment_identifier always\n}"), "payment_identifier takes one of optional, required or off"},
		{"storage without backend", global("storage"), "storage needs a backend: storage postgres <connection string>"},
		{"storage unknown backend", global("storage redis redis://x"), "storage needs a backend: storage postgres <connection string>"},
		{"storage twice", global("storage postgres {env.A}\nstorage postgres {env.B}"), "storage is given twice"},
		{"storage with journal", global("journal /tmp/j.db\nstorage postgres {env.X402_DATABASE_URL}"), "journal and redemptions name the embedded bbolt files of one instance; with storage postgres the journal and the redemption records live in PostgreSQL, so remove them"},
		{"storage with redemptions", global("storage postgres {env.X402_DATABASE_URL}\nredemptions /tmp/r.db"), "with storage postgres the journal and the redemption records live in PostgreSQL"},
		{"storage literal password", global("storage postgres postgres://x402:s3cret@db:5432/x402"), "storage postgres postgres://…@db:5432/… holds a password in the config (which the admin API serves): give it as a placeholder such as {env.X402_DATABASE_URL}"},
		{"storage lease too short", global("storage postgres {env.X402_DATABASE_URL} {\nlease 500ms\n}"), "storage postgres lease 500ms is out of range: give 1s to 10m0s (the default is 5s)"},
		{"storage lease not a duration", global("storage postgres {env.X402_DATABASE_URL} {\nlease long\n}"), `lease "long" is not a positive duration`},
		{"storage unknown option", global("storage postgres {env.X402_DATABASE_URL} {\npool 3\n}"), `unrecognized storage postgres option "pool"; expected lease`},
		{"storage literal keyword password", global(`storage postgres "host=db password=s3cret"`), "holds a password in the config"},
		{"network without a name", site("x402 {\n pay_to " + payTo + "\n price 1\n network\n}"), "network takes one or more network names"},
		{"network line twice", site("x402 {\n pay_to " + payTo + "\n price 1\n network cronos-testnet\n network cronos-testnet\n}"), "network is given twice: list every network in one network line"},
		{"one of several networks unknown", site("x402 {\n pay_to " + payTo + "\n price 1\n network cronos-testnet moon-mainnet\n}"), `network "moon-mainnet" is not configured in the x402 global option`},
		{"asset with several networks", site("x402 {\n pay_to " + payTo + "\n amount 1\n network base-sepolia avalanche-fuji\n facilitator https://f.example.com\n asset 0x036CbD53842c5426634e7929541eC2318f3dCF7e\n}"),
			"asset, decimals, eip712_name and eip712_version describe the token of one network"},
		{"bad amount without placeholder", site("x402 {\n pay_to " + payTo + "\n amount {vars.x\n}"), `amount "{vars.x"`},
		{"remote facilitator not a URL", site("x402 {\n pay_to " + payTo + "\n price 1\n facilitator f.example.com\n}"), "must be an http:// or https:// URL"},
	}
	adapter := caddyconfig.GetAdapter("caddyfile")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := adapter.Adapt([]byte(tt.caddyfile), nil)
			if err == nil {
				t.Fatalf("adapted without error; want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error repeats the database password: %v", err)
			}
			if strings.Contains(err.Error(), "4484399f9ff44c15830151ab53cfff61a32dd4037ee9db7b2b7d7373de7e59dd") {
				t.Errorf("the error repeats the signer key: %v", err)
			}
		})
	}
}

// TestExamplesAdapt adapts every Caddyfile of the repository's examples
// (and Caddyfile.example) as `caddy adapt` does, with the environment
// their header comments export, so that an example that stops parsing
// fails here and not in a reader's hands. .ci/adapt-snapshot compares
// their JSON across changes.
func TestExamplesAdapt(t *testing.T) {
	t.Setenv("RPC_A", "http://127.0.0.1:18545") // examples/networks-devnet.Caddyfile
	t.Setenv("RPC_B", "http://127.0.0.1:18546")
	files, err := filepath.Glob("../examples/*.Caddyfile")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	files = append(files, "../Caddyfile.example", "../examples/cluster/Caddyfile", "../examples/cluster/channels.Caddyfile", "../examples/cluster/balancer.Caddyfile")
	for _, file := range files {
		t.Run(strings.TrimPrefix(file, "../"), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			out, warn, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": file})
			if err != nil || len(warn) > 0 || !json.Valid(out) {
				t.Fatalf("adapting %s: %v, warnings %v", file, err, warn)
			}
		})
	}
}
