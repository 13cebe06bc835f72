package x402cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// devnetCommand is "caddy x402 devnet".
func devnetCommand() *cobra.Command {
	var (
		listen    string
		blockTime time.Duration
		out       string
		buyers    int
		chain     devnet.Config
		token     string
	)
	cmd := &cobra.Command{
		Use:   "devnet [--listen 127.0.0.1:0] [--block-time 1s] [--out devnet.json] [--buyers 5] [--chain-id 338] [--network cronos-testnet] [--token 0x...]",
		Short: "Run the development chain in the foreground",
		Long: `
Runs the in-process development chain on its own, until SIGINT or SIGTERM.

The chain is a go-ethereum simulated backend with Cronos testnet's chain ID
(338) and devUSDC.e token address, serving JSON-RPC over HTTP at --listen.
Its genesis funds a facilitator signer, the token's minter and --buyers
buyers (1,000 tokens each).

--chain-id, --network and --token run it as another chain: for example
--chain-id 84532 --network base-sepolia, so that the x402 v1 reference
clients, which know no Cronos network, can pay on it.

--out writes the chain's facts as JSON (RPC URL, chain ID, token, and every
account with its private key), file mode 0600.

TEST ONLY: the account keys are public constants. Never send anything of
value to their addresses on a real network.
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token != "" {
				if !x402.IsAddress(token) {
					return fmt.Errorf("--token %q is not an address: want 0x followed by 40 hex digits", token)
				}
				chain.Token = common.HexToAddress(token)
			}
			return runDevnet(cmd.Context(), listen, blockTime, out, buyers, chain)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:0", "host:port of the JSON-RPC server (port 0, the default: a free port, printed at start)")
	f.DurationVar(&blockTime, "block-time", devnet.DefaultBlockTime, "interval between blocks")
	f.StringVar(&out, "out", "", "write the chain's JSON info (with TEST-ONLY keys) to this file")
	f.IntVar(&buyers, "buyers", devnet.DefaultBuyers, "number of funded buyer accounts")
	f.Int64Var(&chain.ChainID, "chain-id", devnet.ChainID, "chain ID to run under")
	f.StringVar(&chain.Network, "network", devnet.Network, "x402 network name the chain stands for")
	f.StringVar(&token, "token", devnet.TokenAddress.Hex(), "address to deploy the token at")
	return cmd
}

func runDevnet(ctx context.Context, listen string, blockTime time.Duration, out string, buyers int, cfg devnet.Config) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if buyers < 1 {
		return fmt.Errorf("--buyers must be at least 1")
	}
	if blockTime <= 0 {
		return fmt.Errorf("--block-time must be positive")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	if cfg.ChainID <= 0 {
		return fmt.Errorf("--chain-id must be positive")
	}
	cfg.Listen, cfg.BlockTime, cfg.Buyers = listen, blockTime, buyers
	chain, err := devnet.Start(cfg)
	if err != nil {
		return err
	}
	defer chain.Close()

	if out != "" {
		if err := chain.WriteInfo(out); err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
	}
	info := chain.Info()
	w := os.Stderr
	fmt.Fprintf(w, "x402 devnet running (TEST-ONLY keys: never use them on a real network)\n")
	fmt.Fprintf(w, "  RPC URL:    %s\n", info.RPCURL)
	fmt.Fprintf(w, "  chain ID:   %d (network %s)\n", info.ChainID, info.Network)
	fmt.Fprintf(w, "  token:      %s %s (%d decimals, EIP-712 %q version %q)\n",
		info.Token.Address.Hex(), info.Token.Symbol, info.Token.Decimals, info.Token.Name, info.Token.Version)
	fmt.Fprintf(w, "  block time: %s\n", info.BlockTime)
	fmt.Fprintf(w, "  signer:     %s (facilitator gas payer)\n", info.Signer.Address.Hex())
	fmt.Fprintf(w, "  buyers:     %d, each with %s %s\n", len(info.Buyers),
		x402.FormatAmount(devnet.BuyerTokens, devnet.TokenDecimals), info.Token.Symbol)
	if len(info.Buyers) > 0 {
		b := info.Buyers[0]
		fmt.Fprintf(w, "  %s:     %s\n", b.Name, b.Address.Hex())
		fmt.Fprintf(w, "  %s key: %s (TEST-ONLY)\n", b.Name, b.PrivateKey)
	}
	if out != "" {
		fmt.Fprintf(w, "  info file:  %s (all accounts and TEST-ONLY keys)\n", out)
	}
	fmt.Fprintf(w, "Press Ctrl-C to stop.\n")

	<-ctx.Done()
	fmt.Fprintf(w, "x402 devnet stopping\n")
	return chain.Close()
}
