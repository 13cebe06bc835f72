package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	x402network "github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	_ "github.com/caddy-x402/caddy-x402/facilitator/schemes" // the payment schemes the embedded facilitator serves
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/bolt"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func init() {
	caddy.RegisterModule(App{})
}

// Interface guards.
var (
	_ caddy.App          = (*App)(nil)
	_ caddy.Provisioner  = (*App)(nil)
	_ caddy.Validator    = (*App)(nil)
	_ caddy.CleanerUpper = (*App)(nil)
	_ caddy.Destructor   = (*sharedFacilitator)(nil)
	_ caddy.Destructor   = (*sharedDevnet)(nil)
	_ caddy.Destructor   = (*sharedJournal)(nil)
)

// pool holds the facilitators and development chains of the running configs.
// A reload whose x402 app is configured the same way gets the same
// Facilitator back (and the same devnet), so settlements in flight are not
// cut off and nonce counters carry on.
var pool = caddy.NewUsagePool()

// App is the x402 app: the networks this Caddy instance can take payments
// on, the signer keys that pay the gas of settlements, and one embedded
// facilitator shared by every x402 and x402_facilitator handler of the
// config. It survives config reloads when its configuration is unchanged.
//
// When a handler needs the app and none is configured, it is created with
// its defaults: the built-in cronos-testnet network, with no signer key (so
// it can verify, and settling needs a key or a remote facilitator).
type App struct {
	// Networks are the networks served. A built-in name (cronos-testnet,
	// cronos-mainnet or its alias cronos) starts from the built-in
	// constants and changes what is set; any other name must give chain_id,
	// rpc and token. Empty means cronos-testnet with its public RPC.
	Networks []*NetworkConfig `json:"networks,omitempty"`

	// Devnet, when set, starts an in-process development chain (chain ID
	// 338, the devUSDC.e token at its testnet address, funded test buyers)
	// and points cronos-testnet at it, with the chain's own signer key
	// unless cronos-testnet has signer keys configured. Everything then
	// works offline with no key to set. For development and tests only:
	// the chain's keys are public.
	Devnet *DevnetConfig `json:"devnet,omitempty"`

	// SettleTimeout bounds how long a settlement waits for its transaction
	// to be in a block before it is answered as pending. Default 30s.
	SettleTimeout caddy.Duration `json:"settle_timeout,omitempty"`

	// Journal is the path of the settlement journal (a bbolt file) that
	// records every settlement before its transaction is broadcast, so that
	// settlements pending at a crash are reconciled with the chain at the
	// next start. Default: x402/journal.db in Caddy's data directory; with
	// devnet, a journal in memory (the development chain does not outlive
	// the process either).
	Journal string `json:"journal,omitempty"`

	// JournalRetention is how long settled and failed settlements stay in
	// the journal; older ones are compacted away hourly, pending ones
	// never. A compacted settlement is still answered (to the paywall and
	// GET /v2/x402/settlements/...) from the chain. Default 720h (30
	// days); negative keeps every record.
	JournalRetention caddy.Duration `json:"journal_retention,omitempty"`

	// Redemptions is the path of the paywall's redemption store (a bbolt
	// file): which route each authorization pays for and whether its
	// answer was delivered, so that a buyer whose payment moved money gets
	// the resource exactly once, across retries and restarts. Default:
	// x402/redemptions.db in Caddy's data directory; with devnet, a store
	// in memory.
	Redemptions string `json:"redemptions,omitempty"`

	// Storage, when set, keeps the journal, the redemption records, the
	// payment ids and the coordination of signer keys in a shared database
	// instead of Journal and Redemptions (which it excludes), so that
	// several instances run the same config as one.
	Storage *StorageConfig `json:"storage,omitempty"`

	// SharePorts lets this Caddy start on an address another process
	// already listens on (Caddy's listeners share ports, and the two then
	// take turns answering). Without it such a start is refused, naming
	// the address and the process.
	SharePorts bool `json:"share_ports,omitempty"`

	// ReceiptKeys are the keys that sign offers and receipts (the x402
	// offer-receipt extension, a route's offer_receipt), as placeholders
	// only: {env.NAME} or {file./path/to/key}, secp256k1 in hex. The first
	// signs; the others are retired keys, still published in
	// /.well-known/did.json so that what they signed stays verifiable
	// (receipts.go).
	ReceiptKeys []string `json:"receipt_keys,omitempty"`

	// ReceiptDID is the did:web identifier the receipt keys are published
	// under (the JWS kid's DID). Default: the did:web of each request's
	// host and port.
	ReceiptDID string `json:"receipt_did,omitempty"`

	receiptKeys []*offerreceipt.Key // ReceiptKeys resolved, at Provision

	ctx    caddy.Context
	fac    *facilitator.Facilitator
	nets   []string // this config's network names
	redeem *Deliveries
	chain  *devnet.Chain
	keys   []string // pool keys held, released in Cleanup
	logger *zap.Logger
	// atStart are the checks handlers asked to run once every app of the
	// config is provisioned (OnStart), by name.
	atStart map[string]func()
}

// NetworkConfig configures one network of the x402 app.
type NetworkConfig struct {
	// Name is the network string of payment requirements, such as
	// "cronos-testnet".
	Name string `json:"name"`

	// Aliases are other names buyers and handlers may use for the network.
	Aliases []string `json:"aliases,omitempty"`

	// RPC lists the network's JSON-RPC endpoints, tried in order. Built-in
	// networks default to their public RPC.
	RPC []string `json:"rpc,omitempty"`

	// SignerKeys are the private keys that pay the gas of settlements, as
	// placeholders only: {env.NAME} or {file./path/to/key}. They are
	// resolved at provision time, so no key appears in the config that the
	// admin API serves. Several keys spread the settlements.
	SignerKeys []string `json:"signer_keys,omitempty"`

	// ChainID is the EVM chain ID; required for a network that is not
	// built in.
	ChainID int64 `json:"chain_id,omitempty"`

	// Token is the EIP-3009 token contract (the requirements' asset);
	// required for a network that is not built in.
	Token string `json:"token,omitempty"`

	// Decimals is the token's number of decimals. Default: the built-in
	// network's, else read from the token's decimals() at start.
	Decimals *uint8 `json:"decimals,omitempty"`

	// EIP712Name is the token's EIP-712 domain name. When empty for a
	// network that is not built in, it is read from the token on chain.
	EIP712Name string `json:"eip712_name,omitempty"`

	// EIP712Version is the token's EIP-712 domain version. When empty, the
	// built-in value or else the token's version() on chain is used.
	EIP712Version string `json:"eip712_version,omitempty"`

	// SkipOnchainVerify makes verify answer from the signature and the
	// validity window alone, without RPC calls. Settle still checks on chain.
	SkipOnchainVerify bool `json:"skip_onchain_verify,omitempty"`

	// SmartWalletFactories are the ERC-6492 wallet factories (0x
	// addresses) through which the facilitator deploys a smart-contract
	// wallet that signed before it existed, paying the gas, and settles
	// its payment in the same transaction. Default none: such payments
	// are refused (payments from deployed wallets, EIP-1271, need no
	// factory).
	SmartWalletFactories []string `json:"smart_wallet_factories,omitempty"`

	// SmartWalletMinAmount is the smallest payment, in the token's
	// smallest unit, for which the facilitator pays a wallet's deployment
	// (ERC-6492). Default 0.01 token (10000 for 6 decimals); 0 means any
	// amount.
	SmartWalletMinAmount string `json:"smart_wallet_min_amount,omitempty"`

	// Explorer is the base URL of the network's block explorer, such as
	// https://explorer.cronos.org/testnet. The payment page links a
	// settled transaction as Explorer/tx/<hash>.
	Explorer string `json:"explorer,omitempty"`
}

// DevnetConfig configures the in-process development chain.
type DevnetConfig struct {
	// Listen is the host:port of the chain's JSON-RPC server. Default: a
	// free loopback port.
	Listen string `json:"listen,omitempty"`

	// BlockTime is the interval between blocks. Default 1s.
	BlockTime caddy.Duration `json:"block_time,omitempty"`

	// Buyers is the number of funded test buyer accounts. Default 5.
	Buyers int `json:"buyers,omitempty"`

	// InfoFile, when set, is where the chain's facts (RPC URL, token, and
	// the public test accounts with their keys) are written as JSON.
	InfoFile string `json:"info_file,omitempty"`

	// ChainID is the chain id the devnet runs under. Default 338.
	ChainID int64 `json:"chain_id,omitempty"`

	// Network is the x402 network name the devnet stands for, such as
	// base-sepolia (with chain_id 84532) so that the x402 v1 reference
	// clients can pay on it. Default cronos-testnet.
	Network string `json:"network,omitempty"`

	// Token is the address the devnet's token is deployed at. Default
	// devUSDC.e's address on Cronos testnet.
	Token string `json:"token,omitempty"`
}

// defaultNetwork is the network served when none is configured: the
// devnet's, or cronos-testnet.
func (a *App) defaultNetwork() string {
	if a.Devnet != nil {
		return a.Devnet.network()
	}
	return x402network.CronosTestnet
}

// network is the devnet's network name.
func (d *DevnetConfig) network() string {
	if d == nil || d.Network == "" {
		return devnet.Network
	}
	return d.Network
}

// chainID is the devnet's chain id.
func (d *DevnetConfig) chainID() int64 {
	if d == nil || d.ChainID == 0 {
		return devnet.ChainID
	}
	return d.ChainID
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "x402",
		New: func() caddy.Module { return new(App) },
	}
}

// checkKeyPlaceholder refuses a signer key written out in the config.
func checkKeyPlaceholder(network, v string) error {
	if httpx.KeyPlaceholder.MatchString(strings.TrimSpace(v)) {
		return nil
	}
	return fmt.Errorf("network %s: signer_key must be a placeholder, {env.NAME} or {file.PATH}, "+
		"not the key itself: a key written in the config would be served by the admin API (GET /config/); "+
		"for example: signer_key {env.X402_SIGNER_KEY}", network)
}

// Validate checks the configuration without dialling anything.
func (a *App) Validate() error { return a.validate() }

func (a *App) validate() error {
	if a.Storage != nil {
		if err := a.Storage.validate(a); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for i, n := range a.Networks {
		if n == nil || n.Name == "" {
			return fmt.Errorf("network %d has no name", i+1)
		}
		for _, name := range append([]string{n.Name}, n.Aliases...) {
			if seen[strings.ToLower(name)] {
				return fmt.Errorf("network %q is configured twice", name)
			}
			seen[strings.ToLower(name)] = true
		}
		if n.Token != "" && !x402.IsAddress(n.Token) {
			return fmt.Errorf("network %s: token %q is not a 0x-prefixed 20-byte hex address", n.Name, n.Token)
		}
		if _, builtin := x402network.Builtin(n.Name); !builtin {
			var missing []string
			if n.ChainID <= 0 {
				missing = append(missing, "chain_id")
			}
			if len(n.RPC) == 0 {
				missing = append(missing, "rpc")
			}
			if n.Token == "" {
				missing = append(missing, "token")
			}
			if len(missing) > 0 {
				return fmt.Errorf("network %s is not built in (built in: %s), so it needs %s",
					n.Name, strings.Join(x402network.BuiltinNames(), ", "), strings.Join(missing, ", "))
			}
		}
		for _, k := range n.SignerKeys {
			if err := checkKeyPlaceholder(n.Name, k); err != nil {
				return err
			}
		}
		if err := CheckExplorer(n.Explorer); err != nil {
			return fmt.Errorf("network %s: %w", n.Name, err)
		}
	}
	if a.Devnet != nil && a.Devnet.BlockTime < 0 {
		return fmt.Errorf("devnet: block_time must not be negative")
	}
	return a.validateReceipts()
}

// Provision resolves the signer keys and gets the shared facilitator (and
// devnet) from the usage pool, creating them if this configuration is new.
func (a *App) Provision(ctx caddy.Context) error {
	a.logger, a.ctx = ctx.Logger(), ctx
	if err := a.validate(); err != nil {
		return err
	}
	// share_ports is no part of the facilitator's identity: the shared
	// facilitator is kept across a reload that changes only it.
	keyed := *a
	keyed.SharePorts = false
	keyed.ReceiptKeys, keyed.ReceiptDID = nil, "" // nor are the receipt keys
	cfgJSON, err := json.Marshal(&keyed)
	if err != nil {
		return err
	}

	if a.Devnet != nil {
		if err := a.provisionDevnet(); err != nil {
			return err
		}
	}

	nets, keyPrint, err := a.networkConfigs()
	if err != nil {
		return err
	}
	if err := a.provisionReceipts(caddy.NewReplacer()); err != nil {
		return err
	}
	a.nets = nil
	for _, n := range nets {
		a.nets = append(a.nets, n.Name)
	}
	var shared *postgres.Store
	var sharedID string
	if a.Storage != nil {
		if shared, sharedID, err = a.provisionPostgres(); err != nil {
			return err
		}
	}
	if err := a.provisionRedemptions(shared, sharedID); err != nil {
		return err
	}

	// The journal is pooled on its own, and shared by the facilitators of
	// consecutive configs: their settlement engines are one (signers.go).
	// A signer key that runs with another journal refuses the config before
	// this one's journal is opened.
	chainURL := ""
	if a.chain != nil {
		chainURL = a.chain.RPCURL()
	}
	claims := engineClaims(nets, chainURL)
	journalID, err := a.journalID()
	if err != nil {
		return err
	}
	if shared != nil {
		journalID = sharedID
	}
	if clash := signersOnOtherJournal(journalID, claims); len(clash) > 0 {
		return fmt.Errorf("starting the x402 facilitator: %w", journalClashError(journalID, clash))
	}
	var journal store.Journal
	if shared != nil {
		journal = shared.Journal()
	} else if journal, err = a.provisionJournal(journalID); err != nil {
		return err
	}

	// The facilitator is pooled by its whole config: the app's JSON, the
	// devnet, the journal and the resolved keys (hashed, so that changing
	// the key behind a placeholder counts).
	h := sha256.New()
	h.Write(cfgJSON)
	h.Write([]byte(chainURL))
	h.Write([]byte(journalID))
	h.Write(keyPrint)
	key := "facilitator:" + hex.EncodeToString(h.Sum(nil))

	logger := a.logger
	val, loaded, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		if clash := claimSigners(journalID, claims); len(clash) > 0 {
			return nil, journalClashError(journalID, clash)
		}
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		f, err := facilitator.New(dctx, facilitator.Config{
			Networks:         nets,
			Logger:           logger.Named("facilitator"),
			SettleTimeout:    time.Duration(a.SettleTimeout),
			Journal:          journal,
			JournalRetention: time.Duration(a.JournalRetention),
		})
		if err != nil {
			releaseSigners(claims)
			return nil, err
		}
		return &sharedFacilitator{f: f, claims: claims}, nil
	})
	if err != nil {
		return fmt.Errorf("starting the x402 facilitator: %w", err)
	}
	a.keys = append(a.keys, key)
	a.fac = val.(*sharedFacilitator).f
	if err := registerFacilitatorMetrics(ctx, a.fac); err != nil {
		return err
	}
	if loaded {
		a.logger.Debug("reusing the facilitator of the previous config", zap.Strings("networks", a.fac.Networks()))
	}
	return nil
}

// provisionRedemptions gets the paywall's redemption store from the usage
// pool, opening it if no running config has it: in the shared PostgreSQL
// store when there is one (its claims then hold each payment across every
// instance), else the bbolt file (in memory with a devnet).
func (a *App) provisionRedemptions(shared *postgres.Store, sharedID string) error {
	if shared != nil {
		key := "redemptions:" + sharedID
		val, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
			return NewSharedDeliveries(shared.Redemptions(), shared.Claims(), func() error { return nil }), nil
		})
		if err != nil {
			return fmt.Errorf("x402: %w", err)
		}
		a.keys = append(a.keys, key)
		a.redeem = val.(*Deliveries)
		return nil
	}
	redeemPath := a.Redemptions
	if redeemPath == "" && a.Devnet == nil {
		redeemPath = DefaultRedemptionsPath()
	}
	rd, rkey, err := openDeliveries(redeemPath, "devnet")
	if err != nil {
		return fmt.Errorf("x402: %w", err)
	}
	a.keys = append(a.keys, rkey)
	a.redeem = rd
	return nil
}

// Network returns the embedded facilitator if it serves network, with the
// network's facts.
func (a *App) Network(network string) (*facilitator.Facilitator, facilitator.NetworkInfo, bool) {
	if info, ok := a.fac.NetworkInfo(network); ok {
		return a.fac, info, true
	}
	return nil, facilitator.NetworkInfo{}, false
}

// ServedNetworks lists this config's networks.
func (a *App) ServedNetworks() []string { return a.nets }

// SettleWait is how long the paywall waits for a settlement to be in a
// block before it answers pending.
func (a *App) SettleWait() time.Duration {
	if a.SettleTimeout > 0 {
		return time.Duration(a.SettleTimeout)
	}
	return facilitatorDefaultSettleTimeout
}

// facilitatorDefaultSettleTimeout is the facilitator's own default.
const facilitatorDefaultSettleTimeout = 30 * time.Second

// journalPath is where the settlement journal lives: the configured path,
// or by default a file in Caddy's data directory, so that a restart never
// loses track of a settlement. With a devnet, whose chain is gone after a
// restart, the default is a journal in memory ("").
func (a *App) journalPath() string {
	if a.Journal != "" || a.Devnet != nil {
		return a.Journal
	}
	return filepath.Join(caddy.AppDataDir(), "x402", "journal.db")
}

// provisionJournal opens (or reuses) the settlement journal named id (see
// journalID). It is pooled on its own, so that the facilitators of
// consecutive configs share it, and with it their settlement engine
// (signers.go).
func (a *App) provisionJournal(id string) (store.Journal, error) {
	open := func() (store.Journal, error) { return memory.NewJournal(), nil }
	if path, ok := strings.CutPrefix(id, "file:"); ok {
		open = func() (store.Journal, error) { return bolt.OpenJournal(path) }
	}
	key := "journal:" + id
	val, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		j, err := open()
		if err != nil {
			return nil, err
		}
		return &sharedJournal{j: j}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("opening the settlement journal: %w", err)
	}
	a.keys = append(a.keys, key)
	return val.(*sharedJournal).j, nil
}

// journalID names the settlement journal this config uses: "file:" and its
// absolute path, or, with a devnet and no journal set, "memory:" and the
// devnet's URL (one journal in memory per chain).
func (a *App) journalID() (string, error) {
	journal := a.journalPath()
	if journal == "" {
		return "memory:" + a.chain.RPCURL(), nil
	}
	path, err := filepath.Abs(journal)
	if err != nil {
		return "", fmt.Errorf("journal %q: %w", journal, err)
	}
	return "file:" + path, nil
}

// Validating reports whether this process only checks a config (`caddy
// validate`, `caddy adapt --validate`). Caddy then provisions the config
// without starting it, and tells modules no other way.
func Validating() bool {
	if len(os.Args) < 2 {
		return false
	}
	switch os.Args[1] {
	case "validate":
		return true
	case "adapt":
		for _, a := range os.Args[2:] {
			if a == "--validate" || a == "-validate" || strings.HasPrefix(a, "--validate=true") {
				return true
			}
		}
	}
	return false
}

// provisionDevnet starts (or reuses) the development chain.
func (a *App) provisionDevnet() error {
	d := a.Devnet
	if Validating() {
		// A config check must not take the configured port (the devnet of
		// a running Caddy may hold it) nor write info_file: it gets a
		// throwaway chain on a free port, gone when the check ends.
		cp := *d
		cp.Listen, cp.InfoFile = "127.0.0.1:0", ""
		d = &cp
	}
	b, _ := json.Marshal(struct {
		Listen    string
		BlockTime caddy.Duration
		Buyers    int
		ChainID   int64
		Network   string
		Token     string
	}{d.Listen, d.BlockTime, d.Buyers, d.ChainID, d.Network, d.Token})
	// A chain on a fixed port is keyed by the port alone: a second chain
	// could not bind it while the first serves the previous config.
	key := "devnet:" + string(b)
	if _, port, err := net.SplitHostPort(d.Listen); err == nil && port != "" && port != "0" {
		key = "devnet:" + d.Listen
	}
	val, loaded, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		cfg := devnet.Config{Listen: d.Listen, BlockTime: time.Duration(d.BlockTime), Buyers: d.Buyers, ChainID: d.ChainID, Network: d.Network}
		if d.Token != "" {
			cfg.Token = common.HexToAddress(d.Token)
		}
		c, err := devnet.Start(cfg)
		if err != nil {
			return nil, err
		}
		return &sharedDevnet{c: c, settings: string(b)}, nil
	})
	if err != nil {
		return fmt.Errorf("starting the devnet: %w", err)
	}
	a.keys = append(a.keys, key)
	shared := val.(*sharedDevnet)
	a.chain = shared.c
	if loaded && shared.settings != string(b) {
		a.logger.Warn("the devnet on this listen address keeps running with its first settings; restart Caddy to apply new ones",
			zap.String("listen", d.Listen))
	}
	if !loaded {
		a.logger.Warn("devnet started: an in-process development chain whose keys are public; for development only",
			zap.String("rpc", a.chain.RPCURL()), zap.Int64("chain_id", a.chain.ChainID().Int64()),
			zap.String("token", a.chain.Token().Hex()), zap.String("network", a.chain.Network()))
	}
	if d.InfoFile != "" {
		if err := a.chain.WriteInfo(d.InfoFile); err != nil {
			return fmt.Errorf("devnet: writing info_file: %w", err)
		}
	}
	return nil
}

// networkConfigs turns the app's networks into the facilitator's, with the
// signer keys resolved. It also returns a fingerprint of the keys (a hash,
// never the keys).
func (a *App) networkConfigs() ([]x402network.Config, []byte, error) {
	confs := a.Networks
	if len(confs) == 0 {
		confs = []*NetworkConfig{{Name: a.defaultNetwork()}}
	}
	if a.Devnet != nil && !hasNetwork(confs, a.Devnet.network()) {
		confs = append(append([]*NetworkConfig(nil), confs...), &NetworkConfig{Name: a.Devnet.network()})
	}
	repl := caddy.NewReplacer()
	fp := sha256.New()
	var out []x402network.Config
	for _, c := range confs {
		nc, builtin := x402network.Builtin(c.Name)
		if !builtin {
			nc = x402network.Config{Name: c.Name} // decimals read on chain unless given
		}
		if len(c.Aliases) > 0 {
			nc.Aliases = append(nc.Aliases, c.Aliases...)
		}
		if len(c.RPC) > 0 {
			nc.RPCURLs = nil
			for _, u := range c.RPC {
				// {env.NAME} keeps a URL with credentials out of the
				// config the admin API serves.
				v, err := repl.ReplaceOrErr(u, true, true)
				if err != nil || v == "" {
					return nil, nil, fmt.Errorf("network %s: rpc %s is empty or cannot be resolved", c.Name, u)
				}
				nc.RPCURLs = append(nc.RPCURLs, v)
				fp.Write([]byte(v)) // a new URL behind the placeholder makes a new facilitator
			}
		}
		if c.ChainID != 0 {
			nc.ChainID = c.ChainID
		}
		if c.Token != "" {
			nc.Token = c.Token
		}
		if c.Decimals != nil {
			nc.Decimals = *c.Decimals
		}
		if c.EIP712Name != "" {
			nc.EIP712Name = c.EIP712Name
		}
		if c.EIP712Version != "" {
			nc.EIP712Version = c.EIP712Version
		}
		nc.SkipOnchainVerify = c.SkipOnchainVerify
		nc.SmartWalletFactories = append([]string(nil), c.SmartWalletFactories...)
		if c.SmartWalletMinAmount != "" {
			v, err := parseUnits(c.SmartWalletMinAmount)
			if err != nil {
				return nil, nil, fmt.Errorf("network %s: smart_wallet_min_amount %q is not an amount in the token's smallest unit: %w", c.Name, c.SmartWalletMinAmount, err)
			}
			nc.SmartWalletMinAmount = v
		}
		for _, placeholder := range c.SignerKeys {
			k, err := resolveKey(repl, c.Name, placeholder)
			if err != nil {
				return nil, nil, err
			}
			nc.SignerKeys = append(nc.SignerKeys, k)
			fp.Write(crypto.Keccak256(crypto.FromECDSA(k)))
		}
		if a.chain != nil && strings.EqualFold(nc.Name, a.chain.Network()) {
			nc.RPCURLs = []string{a.chain.RPCURL()}
			nc.ChainID = a.chain.ChainID().Int64()
			nc.Token = a.chain.Token().Hex()
			nc.Decimals = devnet.TokenDecimals
			if nc.EIP712Name == "" {
				nc.EIP712Name = devnet.TokenName
			}
			if nc.EIP712Version == "" {
				nc.EIP712Version = devnet.TokenVersion
			}
			if len(nc.SignerKeys) == 0 {
				nc.SignerKeys = []*ecdsa.PrivateKey{a.chain.Signer().Key}
			}
		}
		if len(nc.SignerKeys) == 0 {
			a.logger.Warn("network has no signer key: it can verify payments but not settle them; set signer_key {env.NAME}",
				zap.String("network", nc.Name))
		}
		out = append(out, nc)
	}
	return out, fp.Sum(nil), nil
}

func hasNetwork(confs []*NetworkConfig, name string) bool {
	for _, c := range confs {
		if strings.EqualFold(c.Name, name) {
			return true
		}
		// An alias of the built-in network counts too.
		if b, ok := x402network.Builtin(c.Name); ok && strings.EqualFold(b.Name, name) {
			return true
		}
	}
	return false
}

// resolveKey resolves a signer key placeholder and parses the key. Errors
// name the placeholder, never the value.
func resolveKey(repl *caddy.Replacer, network, placeholder string) (*ecdsa.PrivateKey, error) {
	if err := checkKeyPlaceholder(network, placeholder); err != nil {
		return nil, err
	}
	v, err := repl.ReplaceOrErr(strings.TrimSpace(placeholder), true, true)
	if err != nil {
		return nil, fmt.Errorf("network %s: signer_key %s is empty or cannot be resolved; set it to the signer's private key in hex",
			network, placeholder)
	}
	k, err := evm.ParseKey(v)
	if err != nil {
		return nil, fmt.Errorf("network %s: signer_key %s: %w", network, placeholder, err)
	}
	return k, nil
}

// Start implements caddy.App; the facilitator is already running. It
// refuses to start on an address another process listens on (ports.go),
// unless SharePorts.
func (a *App) Start() error {
	for _, name := range slices.Sorted(maps.Keys(a.atStart)) {
		a.atStart[name]()
	}
	if a.SharePorts {
		return nil
	}
	if err := checkPortsFree(a.ctx); err != nil {
		return fmt.Errorf("x402: %w", err)
	}
	return nil
}

// OnStart runs check when the config starts, once every app and handler
// of it is provisioned (a check of the whole config, such as the paywall's
// look at the sites' routes); a second check of the same name in the same
// config replaces the first, so that one runs once.
func (a *App) OnStart(name string, check func()) {
	if a.atStart == nil {
		a.atStart = map[string]func(){}
	}
	a.atStart[name] = check
}

// Stop implements caddy.App; the facilitator is released in Cleanup.
func (a *App) Stop() error { return nil }

// Cleanup releases this config's hold on the shared facilitator and devnet;
// the last config to let go closes them.
func (a *App) Cleanup() error {
	var errs []error
	// Release in reverse order: the facilitator before the devnet it uses.
	for i := len(a.keys) - 1; i >= 0; i-- {
		if _, err := pool.Delete(a.keys[i]); err != nil {
			errs = append(errs, err)
		}
	}
	a.keys = nil
	return errors.Join(errs...)
}

// Facilitator returns the app's embedded facilitator.
func (a *App) Facilitator() *facilitator.Facilitator { return a.fac }

// Chain returns the development chain, or nil when no devnet is configured.
func (a *App) Chain() *devnet.Chain { return a.chain }

// Deliveries returns the paywall's delivery records (the redemption
// store) and claims, shared by every route of the process.
func (a *App) Deliveries() *Deliveries { return a.redeem }

// sharedFacilitator is a facilitator held in the usage pool.
type sharedFacilitator struct {
	f      *facilitator.Facilitator
	claims []string // its signer keys (signers.go)
}

// Destruct closes the facilitator when the last config using it is gone.
// Its settlement engine carries on if the next config's facilitator
// shares it.
func (s *sharedFacilitator) Destruct() error {
	err := s.f.Close()
	releaseSigners(s.claims)
	return err
}

// sharedJournal is a settlement journal held in the usage pool.
type sharedJournal struct{ j store.Journal }

// Destruct closes the journal when the last config using it is gone.
func (s *sharedJournal) Destruct() error { return s.j.Close() }

// sharedDevnet is a development chain held in the usage pool.
type sharedDevnet struct {
	c        *devnet.Chain
	settings string // the settings it was started with
}

// Destruct stops the chain when the last config using it is gone.
func (s *sharedDevnet) Destruct() error { return s.c.Close() }
