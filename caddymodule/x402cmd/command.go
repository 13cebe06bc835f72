package x402cmd

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

// EnvBuyerKey is the environment variable "caddy x402 pay" reads the buyer's
// private key from when --key is not given.
const EnvBuyerKey = "X402_BUYER_KEY"

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "x402",
		Usage: "devnet|pay|receipt|doctor|rotate-key ...",
		Short: "x402 tools: a development chain, a paying client, the access key's rotation",
		Long: `
Tools for x402 payments, beside the x402 app and handlers.

  caddy x402 devnet   runs the in-process development chain (chain ID 338,
                      a devUSDC.e test token, funded TEST-ONLY accounts) in
                      the foreground until interrupted.
  caddy x402 pay URL  fetches URL and, when it answers 402 Payment Required,
                      signs the payment it asks for with the buyer's key
                      and fetches it again with the payment in a
                      PAYMENT-SIGNATURE header (x402 version 2) or an
                      X-PAYMENT header (version 1).
  caddy x402 receipt URL --transaction 0x... | --payer 0x... --payment-id ID
                      fetches a receipt the seller keeps from URL's site
                      and verifies its signature against the site's
                      did:web keys.
  caddy x402 doctor --config FILE | --network NAME --rpc URL
                      checks that the chain has what each configured
                      route's scheme needs (contracts, EIP-1153, the
                      token's EIP-712 domain, signer gas), with the fix of
                      each finding; exits 1 when a route cannot be served.
  caddy x402 rotate-key --config FILE
                      makes a new server key for access cookies and
                      sign-ins in the config's shared storage; running
                      instances pick it up and honour the old one until
                      what it signed expires.
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.AddCommand(devnetCommand(), payCommand(), receiptCommand(), doctorCommand())
			for _, sub := range subcommands {
				cmd.AddCommand(sub())
			}
		},
	})
}

// subcommands are the commands under "caddy x402" that other packages
// add (rotate-key, beside the access code it runs).
var subcommands []func() *cobra.Command

// AddSubcommand adds a command under "caddy x402". Call it from an init:
// the command tree is built when the caddy command runs.
func AddSubcommand(c func() *cobra.Command) { subcommands = append(subcommands, c) }
