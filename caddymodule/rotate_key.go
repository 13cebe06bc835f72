package caddymodule

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
)

func init() { x402cmd.AddSubcommand(rotateKeyCommand) }

// rotateKeyCommand is "caddy x402 rotate-key".
func rotateKeyCommand() *cobra.Command {
	var configFile, adapter string
	cmd := &cobra.Command{
		Use:   "rotate-key [--config FILE] [--adapter NAME]",
		Short: "Rotate the server key of access cookies and sign-ins in the shared storage",
		Long: `
Makes a new server key for access windows (the key that signs access
cookies and Sign-In-With-X challenges) in the storage the config's
instances share: PostgreSQL with the x402 app's storage postgres, else
Caddy's storage (the config's storage module, or the data directory).
Run it with the config the instances run (--config, --adapter as for caddy
run; the placeholders in storage postgres are resolved from this
environment); it needs no running instance and no admin API.

Every running instance reads the key within 10 seconds (and at once when it
meets a cookie or a challenge signed with it), signs with the new key from
then on, and honours the old one until what it signed expires: cookies for
the route's access window, challenges for their 5 minutes (plus 20 seconds
for the instances to learn of the new key). After that the old key is
forgotten. Older keys that the config's longest access window no longer
needs are removed from the storage.
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return runRotateKey(ctx, configFile, adapter, os.Stdout)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&configFile, "config", "c", "", "the config file of the running instances (default: ./Caddyfile if present)")
	f.StringVarP(&adapter, "adapter", "a", "", "the config adapter to use")
	return cmd
}

// runRotateKey rotates the server key in the config's storage and says
// what it did.
func runRotateKey(ctx context.Context, configFile, adapter string, out io.Writer) error {
	raw, _, _, err := caddycmd.LoadConfig(configFile, adapter)
	if err != nil {
		return err
	}
	var cfg struct {
		StorageRaw json.RawMessage `json:"storage,omitempty"`
		Apps       struct {
			X402 struct {
				Storage *app.StorageConfig `json:"storage,omitempty"`
			} `json:"x402"`
		} `json:"apps"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return fmt.Errorf("reading the config: %w", err)
		}
	}
	window, routes := longestAccess(raw)

	var src access.KeySource
	if sc := cfg.Apps.X402.Storage; sc != nil && sc.Postgres != "" {
		s, err := sc.OpenSecrets(ctx)
		if err != nil {
			return err
		}
		defer s.Close()
		src = access.PostgresKeys(s, s.Where())
	} else {
		cctx, err := caddy.ProvisionContext(&caddy.Config{StorageRaw: cfg.StorageRaw})
		if err != nil {
			return fmt.Errorf("opening Caddy's storage: %w", err)
		}
		src = access.StorageKeys(cctx.Storage())
	}

	return access.RotateKey(ctx, src, window, routes, out)
}

// longestAccess is the longest access window of the config's x402
// handlers and how many have one. The JSON is walked whole: handlers sit
// in routes, subroutes and handle blocks at any depth.
func longestAccess(raw []byte) (time.Duration, int) {
	var root any
	if len(raw) == 0 || json.Unmarshal(raw, &root) != nil {
		return 0, 0
	}
	var longest time.Duration
	n := 0
	x402cmd.EachX402Handler(root, func(h map[string]any) {
		if a, ok := h["access"]; ok {
			b, _ := json.Marshal(a)
			var d caddy.Duration
			if json.Unmarshal(b, &d) == nil && d > 0 {
				n++
				longest = max(longest, time.Duration(d))
			}
		}
	})
	return longest, n
}
