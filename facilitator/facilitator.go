// Package facilitator is the x402 verify/settle core: it checks signed
// payments and settles them on EVM chains, paying the gas from its own
// signer keys. What a payment is belongs to its scheme's package (`exact`:
// EIP-3009 transferWithAuthorization signed as EIP-712 typed data).
//
// It is usable from any Go program: New builds a Facilitator from a Config,
// Verify and Settle are its operations, and facilitator/httpapi serves the
// HTTP API of the facilitator interface specification.
//
// The core knows payments only through package scheme: each request is
// routed (dispatch.go) to the scheme bound to its network, registered by
// its package (package facilitator/schemes imports them, and a program
// imports that; `exact` on EVM is
// facilitator/exact). What every scheme shares stays here: the networks
// (their runtime is facilitator/network), the journal, look-ups
// (lookup.go), health, the cooling-offs and upkeep.
package facilitator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/limit"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/bolt"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Config configures a Facilitator.
type Config struct {
	// Networks are the networks served. Use BuiltinNetwork for the Cronos
	// networks and change what differs (RPC URLs, signer keys).
	Networks []network.Config
	// Logger receives the facilitator's logs; nil means no logs.
	Logger *zap.Logger
	// SettleTimeout bounds how long Settle waits for the transaction to be
	// in a block. When it runs out, Settle answers payment.failed with
	// "Settlement pending" and the txHash. Zero means 30 seconds.
	SettleTimeout time.Duration
	// ReceiptPollInterval is how often the chain head is polled while
	// settlements wait for their blocks. Zero means 50 ms.
	ReceiptPollInterval time.Duration
	// ReplaceAfterBlocks is how many blocks a settlement may stay unmined
	// before it is sent again with the same nonce and a bumped fee (which
	// also brings back a transaction a node dropped). Zero means 5.
	ReplaceAfterBlocks uint64
	// MaxFeeMultiple is the ceiling of fee bumps, as a multiple of a
	// settlement's first fees: replacements never pay more. Zero means 3.
	// Bumps also stop once the authorization's validBefore has passed; the
	// nonce is then freed with a zero-value transfer to the signer.
	MaxFeeMultiple uint64
	// JournalPath is the bbolt file that records every settlement before
	// its transaction is broadcast. Pending settlements found there at
	// start are reconciled with the chain. Empty means Journal, or else a
	// journal in memory that is lost on restart.
	JournalPath string
	// JournalRetention is how long settled and failed records stay in the
	// journal; older ones are compacted away hourly (the settlements
	// look-ups then answer them from the chain). Pending records are never
	// removed. Zero means DefaultJournalRetention; negative keeps every
	// record.
	JournalRetention time.Duration
	// Journal is a journal to use instead of JournalPath.
	Journal store.Journal
	// SerialSettle makes each signer carry one settlement at a time, from
	// send to confirmation: slow, and there only as a baseline for
	// benchmarks.
	SerialSettle bool
	// RPCCheckInterval is how often the heads of a network's RPC
	// endpoints are compared, when it has several: one that fails, or
	// falls more than 3 blocks behind the best, is skipped until it catches
	// up. Zero means 10 seconds.
	RPCCheckInterval time.Duration
	// LowGasBalance is the signer gas balance (in wei) under which the
	// health check warns. Nil means 10^18 (one native token).
	LowGasBalance *big.Int
	// ExpiryMargin is how long before validBefore an authorization counts as
	// expired, leaving time to get it into a block. Zero means 6 seconds.
	ExpiryMargin time.Duration
	// Now returns the current time; nil means time.Now. For tests.
	Now func() time.Time
	// RevertCoolOff is how long a smart-contract wallet is refused after
	// a mined settlement of it reverted though its simulation had passed
	// (and every wallet with its code, when it held the value: exact/cooloff.go).
	// Each further revert doubles it, up to RevertCoolOffMax. Zero means
	// DefaultRevertCoolOff (15 minutes).
	RevertCoolOff time.Duration
	// RevertCoolOffMax is the longest cooling-off. Zero means
	// DefaultRevertCoolOffMax (24 hours).
	RevertCoolOffMax time.Duration
}

// Facilitator verifies and settles x402 payments. It is safe for concurrent use.
type Facilitator struct {
	networks []*network.Network
	byName   map[string]*network.Network
	bound    map[boundKey]scheme.Bound // the schemes bound to each network
	// flavours are the flavours bound to each network, by the scheme they
	// serve (scheme.Flavour).
	flavours map[boundKey][]flavourBound
	// declined holds why a scheme declined a network (scheme.Declined).
	declined map[boundKey]string
	logger   *zap.Logger
	started  time.Time

	settleTimeout time.Duration
	pollInterval  time.Duration
	expiryMargin  time.Duration
	replaceAfter  uint64
	maxFee        uint64
	lagInterval   time.Duration
	serial        bool
	lowGas        *big.Int
	now           func() time.Time
	useLogWindow  time.Duration // how far back look-ups by authorization read the chain

	journal     store.Journal
	ownsJournal bool
	cool        *coolOff // the cooling-offs of smart-contract wallets, beside the journal

	health healthSnapshot // the last health check, refreshed at most once a second

	limiters limit.Set // by operation and limit, shared by handlers

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New dials every network's RPC endpoints, checks their chain IDs, reads the
// token's EIP-712 domain where it is not configured, and returns a
// Facilitator ready to serve. Close releases it.
func New(ctx context.Context, cfg Config) (*Facilitator, error) {
	if len(cfg.Networks) == 0 {
		return nil, errors.New("no network configured: add at least one, for example network.Builtin(\"cronos-testnet\")")
	}
	if len(scheme.All()) == 0 {
		return nil, errors.New("no payment scheme is registered: import _ \"github.com/caddy-x402/caddy-x402/facilitator/schemes\" (the schemes this module ships) or a scheme's own package")
	}
	f := &Facilitator{
		byName:        map[string]*network.Network{},
		bound:         map[boundKey]scheme.Bound{},
		flavours:      map[boundKey][]flavourBound{},
		declined:      map[boundKey]string{},
		logger:        cfg.Logger,
		started:       time.Now(),
		settleTimeout: orDefault(cfg.SettleTimeout, 30*time.Second),
		pollInterval:  orDefault(cfg.ReceiptPollInterval, 50*time.Millisecond),
		expiryMargin:  orDefault(cfg.ExpiryMargin, 6*time.Second),
		replaceAfter:  cfg.ReplaceAfterBlocks,
		maxFee:        cfg.MaxFeeMultiple,
		lagInterval:   orDefault(cfg.RPCCheckInterval, 10*time.Second),
		serial:        cfg.SerialSettle,
		lowGas:        cfg.LowGasBalance,
		now:           cfg.Now,
		journal:       cfg.Journal,
		useLogWindow:  lookupWindow(cfg.JournalRetention),
	}
	if f.replaceAfter == 0 {
		f.replaceAfter = 5
	}
	if f.lowGas == nil {
		f.lowGas = big.NewInt(1e18)
	}
	if f.journal == nil && cfg.JournalPath != "" {
		j, err := bolt.OpenJournal(cfg.JournalPath)
		if err != nil {
			return nil, err
		}
		f.journal, f.ownsJournal = j, true
	}
	if f.journal == nil {
		f.journal, f.ownsJournal = memory.NewJournal(), true
	}
	if f.logger == nil {
		f.logger = zap.NewNop()
	}
	if f.now == nil {
		f.now = time.Now
	}
	f.cool = newCoolOff(f.journal, cfg.RevertCoolOff, cfg.RevertCoolOffMax)
	f.ctx, f.cancel = context.WithCancel(context.Background())
	for _, nc := range cfg.Networks {
		n, err := f.addNetwork(ctx, nc)
		if err != nil {
			f.Close()
			return nil, err
		}
		f.logger.Info("network ready",
			zap.String("network", nc.Name), zap.Int64("chain_id", nc.ChainID),
			zap.String("token", n.Token.Hex()), zap.String("eip712_name", n.Domain.Name),
			zap.String("eip712_version", n.Domain.Version), zap.Int("signers", len(n.Engine.Signers())))
	}
	recs, err := f.journal.Pending()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading the settlement journal: %w", err)
	}
	for _, rec := range recs {
		if f.networkNamed(rec.Network) == nil {
			f.logger.Warn("journal holds a pending settlement for a network that is no longer configured; left as it is", zap.String("id", rec.ID))
		}
	}
	for _, n := range f.networks {
		n.Engine.Recover(ctx, recs)
	}
	f.startRetention(cfg.JournalRetention)
	f.pruneCoolOffs()
	f.startAdoptingOrphans()
	return f, nil
}

func (f *Facilitator) addNetwork(ctx context.Context, nc network.Config) (*network.Network, error) {
	if err := nc.Validate(); err != nil {
		return nil, err
	}
	for _, name := range append([]string{nc.Name}, nc.Aliases...) {
		if _, dup := f.byName[strings.ToLower(name)]; dup {
			return nil, fmt.Errorf("network %q is configured twice", name)
		}
	}
	// A signer's nonces are counted by the engine of one token: the same
	// key on two tokens of one chain would have two counters.
	for _, o := range f.networks {
		if o.Cfg.ChainID != nc.ChainID || strings.EqualFold(o.Cfg.Token, nc.Token) {
			continue
		}
		for _, a := range o.Engine.Signers() {
			for _, k := range nc.SignerKeys {
				if crypto.PubkeyToAddress(k.PublicKey) == a {
					return nil, fmt.Errorf("networks %s and %s are on chain %d with different tokens and share signer %s: give each its own signer key, so that one engine counts each key's nonces",
						o.Cfg.Name, nc.Name, nc.ChainID, a.Hex())
				}
			}
		}
	}
	env := f.networkEnv()
	n, err := network.Open(ctx, nc, env)
	if err != nil {
		return nil, err
	}
	// Each scheme of the network's family readies itself on it; the
	// engine asks each about its own authorizations on chain (the first's
	// serves the records that name no scheme) and tells it of its
	// reverted settlements.
	var spent engine.Spent
	spents := map[string]engine.Spent{}
	spaces := map[string]string{}
	onRevert := map[string]func(*engine.Revert){}
	for _, m := range scheme.All() {
		if m.Family() != n.Family() {
			continue
		}
		b, err := m.Bind(ctx, n, f.schemeEnv())
		if d := (*scheme.Declined)(nil); errors.As(err, &d) {
			f.declined[boundKey{n, m.Name()}] = d.Reason
			continue
		}
		if err != nil {
			n.Close()
			return nil, err
		}
		if b == nil {
			continue // the scheme declined the network (upto without Permit2, batch-settlement without its contracts)
		}
		if fl, ok := m.(scheme.Flavour); ok {
			k := boundKey{n, fl.Of()}
			f.flavours[k] = append(f.flavours[k], flavourBound{fl, b})
		} else {
			f.bound[boundKey{n, m.Name()}] = b
		}
		spents[m.Name()] = b.Spent()
		spaces[m.Name()] = scheme.NonceSpaceOf(m)
		key := m.Name()
		// The engine's default Spent and revert handler serve the records
		// that name no scheme: exact's, whatever order the schemes
		// registered in (batch-settlement registers before it).
		if _, fl := m.(scheme.Flavour); !fl && (spent == nil || m.Name() == x402.SchemeExact) {
			spent, key = b.Spent(), ""
			spaces[""] = spaces[m.Name()]
		}
		if rw, ok := b.(scheme.RevertHandler); ok {
			onRevert[key] = rw.Reverted
		}
	}
	reverted := func(rv *engine.Revert) {
		if h := onRevert[rv.Record.Scheme]; h != nil {
			h(rv)
			return
		}
		rv.Release()
	}
	if err := n.StartEngine(ctx, env, spent, spents, spaces, reverted); err != nil {
		n.Close()
		return nil, err
	}
	f.networks = append(f.networks, n)
	for _, name := range append([]string{nc.Name}, nc.Aliases...) {
		f.byName[strings.ToLower(name)] = n
	}
	if caip := x402.CAIP2(nc.ChainID); f.byName[caip] == nil {
		f.byName[caip] = n // the v2 name, eip155:<chainId>
	}
	return n, nil
}

// schemeEnv is what the facilitator lends each scheme on each network.
func (f *Facilitator) schemeEnv() scheme.Env {
	return scheme.Env{
		Now: f.now, ExpiryMargin: f.expiryMargin, SettleTimeout: f.settleTimeout, Logger: f.logger, Ctx: f.ctx, WG: &f.wg,
		CoolOffs: f.cool.store, RevertCoolOff: f.cool.base, RevertCoolOffMax: f.cool.max,
	}
}

// networkEnv is what the facilitator lends each network.
func (f *Facilitator) networkEnv() network.Env {
	return network.Env{
		Logger: f.logger, Journal: f.journal, PollInterval: f.pollInterval, ReplaceAfter: f.replaceAfter, MaxFee: f.maxFee,
		Serial: f.serial, UseLogWindow: f.useLogWindow, Now: f.now, LagInterval: f.lagInterval, Every: f.every, Ctx: f.ctx,
	}
}

// Close stops background work and closes the RPC connections. Settlements
// waiting for their blocks are answered as pending.
//
// A settlement engine shared with another facilitator on the same journal
// (one that replaces this one, as in a Caddy reload) carries on: the other
// facilitator's engine finishes what this one started.
func (f *Facilitator) Close() error {
	f.cancel()
	f.wg.Wait()
	for _, n := range f.networks {
		n.Close()
	}
	if f.ownsJournal && f.journal != nil {
		return f.journal.Close()
	}
	return nil
}

// networkNamed finds a configured network by name or alias, case-insensitively.
func (f *Facilitator) networkNamed(name string) *network.Network {
	return f.byName[strings.ToLower(name)]
}

// Networks lists the configured networks' primary names, in configuration order.
func (f *Facilitator) Networks() []string {
	names := make([]string, len(f.networks))
	for i, n := range f.networks {
		names[i] = n.Cfg.Name
	}
	return names
}

// NetworkInfo describes a configured network for sellers: what goes into
// payment requirements.
type NetworkInfo struct {
	Name     string
	ChainID  *big.Int
	Token    common.Address
	Decimals uint8
	Domain   x402.DomainInfo
}

// NetworkInfo returns the facts of a configured network by name or alias.
func (f *Facilitator) NetworkInfo(name string) (NetworkInfo, bool) {
	n := f.networkNamed(name)
	if n == nil {
		return NetworkInfo{}, false
	}
	return NetworkInfo{
		Name:     n.Cfg.Name,
		ChainID:  new(big.Int).Set(n.ChainID),
		Token:    n.Token,
		Decimals: n.Cfg.Decimals,
		Domain:   x402.DomainInfo{Name: n.Domain.Name, Version: n.Domain.Version},
	}, true
}

// Supported lists the kinds served: one version 1 kind per configured
// network under its name (first, as the Cronos interface shows them), then
// one version 2 kind per network under its CAIP-2 id, and the signer
// addresses that pay for settlements.
func (f *Facilitator) Supported() *x402.SupportedResponse {
	out := &x402.SupportedResponse{Kinds: []x402.SupportedKind{}, Signers: map[string][]string{}}
	for _, n := range f.networks {
		for _, name := range f.schemesOn(n) {
			if v2, ok := f.bound[boundKey{n, name}].(scheme.V2Only); ok && v2.V2Only() {
				continue // a scheme x402 v1 has not (upto)
			}
			out.Kinds = append(out.Kinds, x402.SupportedKind{X402Version: x402.Version1, Scheme: name, Network: n.Cfg.Name})
		}
	}
	signers := []string{}
	for _, n := range f.networks {
		for _, name := range f.schemesOn(n) {
			k := x402.SupportedKind{X402Version: x402.Version2, Scheme: name, Network: x402.CAIP2(n.Cfg.ChainID)}
			if x, ok := f.bound[boundKey{n, name}].(scheme.SupportedExtra); ok {
				k.Extra = x.SupportedExtra()
			}
			out.Kinds = append(out.Kinds, k)
		}
		for _, s := range n.Engine.Signers() {
			if !slices.Contains(signers, s.Hex()) {
				signers = append(signers, s.Hex())
			}
		}
	}
	out.Signers["eip155:*"] = signers
	// A Permit2 scheme served takes the buyer's EIP-2612 permit with its
	// payment (settled through the proxy's settleWithPermit), where the
	// network's token has permit.
	for _, n := range f.networks {
		if f.sponsorsEIP2612(n) {
			out.Extensions = []string{x402.ExtEIP2612GasSponsoring}
			break
		}
	}
	return out
}

// sponsorsEIP2612 reports whether a Permit2 scheme on the network (upto,
// exact through Permit2) takes the eip2612GasSponsoring extension: its
// token has EIP-2612 permit.
func (f *Facilitator) sponsorsEIP2612(n *network.Network) bool {
	var bs []scheme.Bound
	for _, m := range scheme.All() {
		if b := f.bound[boundKey{n, m.Name()}]; b != nil {
			bs = append(bs, b)
		}
		for _, fb := range f.flavours[boundKey{n, m.Name()}] {
			bs = append(bs, fb.b)
		}
	}
	for _, b := range bs {
		if s, ok := b.(scheme.EIP2612Sponsor); ok && s.SponsorsEIP2612() {
			return true
		}
	}
	return false
}

// schemesOn lists the schemes bound to a network, in registration order.
func (f *Facilitator) schemesOn(n *network.Network) []string {
	var names []string
	for _, m := range scheme.All() {
		if f.bound[boundKey{n, m.Name()}] != nil {
			names = append(names, m.Name())
		}
	}
	return names
}

var _ scheme.Bindings = (*Facilitator)(nil)

// Bounds lists a scheme's Bound on each network it is bound to, in
// configuration order (scheme.Bindings: a scheme's own reads, such as
// exact.RevertCounts, go through it).
func (f *Facilitator) Bounds(name string) []scheme.Bound {
	var out []scheme.Bound
	for _, n := range f.networks {
		if b := f.bound[boundKey{n, name}]; b != nil {
			out = append(out, b)
		}
	}
	return out
}

// Bound is a scheme's Bound on a network, by any of the network's names;
// false when the scheme is not bound there (scheme.Bindings).
func (f *Facilitator) Bound(network, name string) (scheme.Bound, bool) {
	n := f.networkNamed(network)
	if n == nil {
		return nil, false
	}
	b := f.bound[boundKey{n, name}]
	return b, b != nil
}

// ChainName returns the CAIP-2 id of a configured network, by any of its names.
func (f *Facilitator) ChainName(name string) (string, bool) {
	n := f.networkNamed(name)
	if n == nil {
		return "", false
	}
	return x402.CAIP2(n.Cfg.ChainID), true
}

// WalletSignature asks a contract wallet on network, in one eth_call,
// whether it accepts sig over hash (EIP-1271 isValidSignature; for an
// ERC-6492 signature, after a simulated deployment): for a message the
// wallet signed, such as a Sign-In-With-X sign-in. An error means the
// network is not configured or its chain could not be asked.
func (f *Facilitator) WalletSignature(ctx context.Context, network string, wallet common.Address, hash common.Hash, sig []byte) (evm.WalletVerdict, error) {
	n := f.networkNamed(network)
	if n == nil {
		return evm.WalletRefused, fmt.Errorf("network %q is not configured", network)
	}
	return n.WalletSignature(ctx, wallet, hash, sig)
}
