package x402cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	x402network "github.com/caddy-x402/caddy-x402/facilitator/network"
)

// DoctorOptions are the flags of "caddy x402 doctor".
type DoctorOptions struct {
	// Config and Adapter name a config whose x402 app networks and routes
	// are checked (as caddy run reads them).
	Config, Adapter string
	// RPC and Network check one chain instead: a built-in network's
	// constants (or ChainID and Token), read through RPC.
	RPC, Network string
	ChainID      int64
	Token        string
	// EIP712Name and EIP712Version are the configured domain to check
	// (default: the built-in network's, else read from the token).
	EIP712Name, EIP712Version string
	// Signers are signer addresses whose gas is checked with --rpc (never
	// keys).
	Signers []string
	// Schemes are the schemes the chain must serve with --rpc (default
	// exact): the doctor fails when one cannot be.
	Schemes []string
	// JSON prints the findings as JSON.
	JSON bool
	// Timeout bounds the checks of one network.
	Timeout time.Duration
}

// doctorCommand is "caddy x402 doctor".
func doctorCommand() *cobra.Command {
	var o DoctorOptions
	cmd := &cobra.Command{
		Use:   "doctor (--config FILE [--adapter NAME] | --network NAME [--rpc URL])",
		Short: "Check that a chain has what the configured x402 routes need, before serving them",
		Long: `
Checks, per network and scheme, what the chain must have for the x402
facilitator to serve it, as the facilitator itself checks at start: the
token's code and its EIP-712 domain (name, version, chainId,
verifyingContract against the token's eip712Domain(), name(), version()
and DOMAIN_SEPARATOR()); each signer key's gas (missing under one
settlement's, a warning under 100); Permit2 and the x402 exact and upto
Permit2 proxies at their canonical addresses; the batch-settlement
contracts (the escrow and both deposit collectors) and EIP-1153 transient
storage (an eth_call of TSTORE/TLOAD).

With --config (and --adapter, as for caddy run) it reads the x402 app's
networks, resolving rpc and signer_key placeholders from this environment
(keys are never printed: their addresses are), and the schemes the x402
routes take on each network. With --network NAME (a built-in network, or
any with --chain-id and --token) and --rpc URL it checks one chain; give
--signer ADDRESS to check gas and --scheme for the schemes you mean to
serve (default exact).

It prints what each scheme is offered or missing, with the one fix for
each finding, and exits with status 1 when a route's scheme (or a --scheme)
cannot be served; warnings (low gas) do not fail.
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return RunDoctor(commandContext(cmd), o, os.Stdout)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Config, "config", "c", "", "the config file whose x402 networks and routes are checked")
	f.StringVarP(&o.Adapter, "adapter", "a", "", "the config adapter to use (as for caddy run)")
	f.StringVar(&o.RPC, "rpc", "", "check one chain through this JSON-RPC URL (with --network)")
	f.StringVar(&o.Network, "network", "", "the network to check without --config: a built-in name (cronos-testnet, cronos-mainnet, cronos) or any with --chain-id and --token")
	f.Int64Var(&o.ChainID, "chain-id", 0, "the chain ID (default: the built-in network's)")
	f.StringVar(&o.Token, "token", "", "the token's address (default: the built-in network's)")
	f.StringVar(&o.EIP712Name, "eip712-name", "", "the token's EIP-712 domain name to check (default: the built-in network's, else read from the token)")
	f.StringVar(&o.EIP712Version, "eip712-version", "", "the token's EIP-712 domain version to check (default: the built-in network's, else read from the token)")
	f.StringArrayVar(&o.Signers, "signer", nil, "a signer address whose gas balance is checked (repeatable)")
	f.StringArrayVar(&o.Schemes, "scheme", nil, "a scheme the chain must serve (repeatable; default exact): exact, exact-permit2, upto, batch-settlement, batch-settlement-permit2")
	f.BoolVar(&o.JSON, "json", false, "print the findings as JSON")
	f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "how long the checks of one network may take")
	return cmd
}

// RunDoctor is "caddy x402 doctor": it checks each target network and
// prints the findings to out. The error says which routes cannot be
// served (exit status 1).
func RunDoctor(ctx context.Context, o DoctorOptions, out io.Writer) error {
	targets, err := doctorTargets(o)
	if err != nil {
		return err
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	reports := make([]*networkReport, 0, len(targets))
	for _, t := range targets {
		reports = append(reports, checkNetwork(ctx, t, o.Timeout))
	}
	if o.JSON {
		err = printDoctorJSON(out, reports)
	} else {
		err = printDoctor(out, reports)
	}
	if err != nil {
		return err
	}
	var unserved []string
	for _, r := range reports {
		for _, s := range r.Required {
			if !r.served(s) {
				unserved = append(unserved, s+" on "+r.Network)
			}
		}
	}
	if len(unserved) > 0 {
		return fmt.Errorf("cannot be served: %s", strings.Join(unserved, ", "))
	}
	return nil
}

// doctorTargets are the networks to check: the config's, or the one of
// --network and --rpc.
func doctorTargets(o DoctorOptions) ([]doctorTarget, error) {
	if o.Config != "" || o.Adapter != "" {
		if o.RPC != "" || o.Network != "" || len(o.Signers) > 0 || len(o.Schemes) > 0 {
			return nil, errors.New("give either --config (the config's networks and routes) or --network with --rpc, --signer and --scheme, not both")
		}
		return configTargets(o.Config, o.Adapter)
	}
	if o.Network == "" {
		return nil, errors.New("give --config FILE (a Caddyfile or JSON config with an x402 app), or --network NAME with --rpc URL")
	}
	nc, builtin := x402network.Builtin(o.Network)
	if !builtin {
		nc = x402network.Config{Name: o.Network}
	}
	if o.RPC != "" {
		nc.RPCURLs = []string{o.RPC}
	}
	if o.ChainID != 0 {
		nc.ChainID = o.ChainID
	}
	if o.Token != "" {
		nc.Token = o.Token
	}
	if o.EIP712Name != "" {
		nc.EIP712Name = o.EIP712Name
	}
	if o.EIP712Version != "" {
		nc.EIP712Version = o.EIP712Version
	}
	if err := nc.Validate(); err != nil {
		return nil, fmt.Errorf("%w (a network that is not built in needs --rpc, --chain-id and --token)", err)
	}
	t := doctorTarget{Config: nc, Flags: true}
	for _, s := range o.Signers {
		a, err := parseAddress(s)
		if err != nil {
			return nil, fmt.Errorf("--signer %q: %w (give the signer's address, never its key)", s, err)
		}
		t.Signers = append(t.Signers, a)
	}
	t.Required = o.Schemes
	if len(t.Required) == 0 {
		t.Required = []string{"exact"}
	}
	return []doctorTarget{t}, nil
}
