package x402cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	x402network "github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// doctorTarget is one network to check, with the schemes that must be
// served on it.
type doctorTarget struct {
	Config x402network.Config
	// Signers are the signer addresses whose gas is checked: the
	// config's keys' addresses, or --signer.
	Signers []common.Address
	// Flags: the network comes from --network and --rpc, whose signers
	// are optional (--signer: without, gas is not checked), where a
	// config's network without a signer key cannot settle.
	Flags bool
	// Required are the schemes (mechanism names) routes take on it.
	Required []string
	// Remote counts routes on it that a remote facilitator serves (not
	// checked here).
	Remote int
}

// parseAddress parses a 0x address.
func parseAddress(s string) (common.Address, error) {
	if !x402.IsAddress(s) {
		return common.Address{}, errors.New("not a 0x-prefixed 20-byte hex address")
	}
	return common.HexToAddress(s), nil
}

// configTargets reads a config's x402 app networks, as the app resolves
// them (placeholders from this environment), and the schemes its x402
// routes take on each.
func configTargets(file, adapter string) ([]doctorTarget, error) {
	raw, _, _, err := caddycmd.LoadConfig(file, adapter)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return nil, errors.New("no config: give --config FILE (a Caddyfile or JSON config with an x402 app)")
	}
	var cfg struct {
		Apps struct {
			X402 *app.App `json:"x402"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("reading the config's x402 app: %w", err)
	}
	a := cfg.Apps.X402
	if a == nil {
		a = &app.App{} // the handlers' default: cronos-testnet
	}
	nets, err := a.ResolveNetworks()
	if err != nil {
		return nil, err
	}
	targets := make([]doctorTarget, len(nets))
	for i, nc := range nets {
		targets[i] = doctorTarget{Config: nc}
		for _, k := range nc.SignerKeys {
			targets[i].Signers = append(targets[i].Signers, crypto.PubkeyToAddress(k.PublicKey))
		}
	}
	routes, err := configRoutes(raw)
	if err != nil {
		return nil, err
	}
	for _, r := range routes {
		t := findTarget(targets, r.network)
		if t == nil {
			return nil, fmt.Errorf("an x402 route takes network %q, which is not a network of the x402 app (%s)", r.network, strings.Join(targetNames(targets), ", "))
		}
		if r.remote {
			t.Remote++
			continue
		}
		if !contains(t.Required, r.scheme) {
			t.Required = append(t.Required, r.scheme)
		}
	}
	for i := range targets {
		sort.Strings(targets[i].Required)
	}
	return targets, nil
}

// route is one scheme an x402 route takes on one network.
type route struct {
	network, scheme string
	remote          bool // a remote facilitator serves it
}

// configRoutes walks the config's JSON for x402 handlers (in routes,
// subroutes and handle blocks at any depth): each network of each, with
// the facilitator's name of its scheme (exact, exact-permit2, upto,
// batch-settlement, batch-settlement-permit2).
func configRoutes(raw []byte) ([]route, error) {
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	var out []route
	EachX402Handler(root, func(h map[string]any) { out = append(out, handlerRoutes(h)...) })
	return out, nil
}

// handlerRoutes are one x402 handler's networks and scheme.
func handlerRoutes(h map[string]any) []route {
	str := func(k string) string { s, _ := h[k].(string); return s }
	scheme := str("scheme")
	if scheme == "" {
		scheme = x402.SchemeExact
	}
	if str("asset_transfer") == "permit2" {
		switch scheme {
		case x402.SchemeExact:
			scheme = x402.SchemeExactPermit2
		case x402.SchemeBatchSettlement:
			scheme = x402.SchemeBatchSettlementPermit2
		}
	}
	var nets []string
	if l, ok := h["networks"].([]any); ok {
		for _, n := range l {
			if s, ok := n.(string); ok {
				nets = append(nets, s)
			}
		}
	}
	if len(nets) == 0 && str("network") != "" {
		nets = []string{str("network")}
	}
	if len(nets) == 0 {
		nets = []string{x402network.CronosTestnet} // the paywall's default
	}
	out := make([]route, len(nets))
	for i, n := range nets {
		out[i] = route{network: n, scheme: scheme, remote: str("facilitator") != ""}
	}
	return out
}

// findTarget is the target a network name or alias (or eip155:<id>)
// names.
func findTarget(ts []doctorTarget, name string) *doctorTarget {
	for i := range ts {
		c := &ts[i].Config
		if strings.EqualFold(c.Name, name) || strings.EqualFold(x402.CAIP2(c.ChainID), name) {
			return &ts[i]
		}
		for _, a := range c.Aliases {
			if strings.EqualFold(a, name) {
				return &ts[i]
			}
		}
	}
	return nil
}

// targetNames are the targets' network names.
func targetNames(ts []doctorTarget) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Config.Name
	}
	return out
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
