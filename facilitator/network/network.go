package network

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Network is a configured network at run time: what every scheme on it
// shares.
type Network struct {
	// Cfg is the configuration, with the token's decimals read from the
	// chain when they were not configured.
	Cfg     Config
	ChainID *big.Int
	Token   common.Address
	// Domain is the token's EIP-712 domain, checked against its
	// DOMAIN_SEPARATOR() at Open.
	Domain evm.Domain
	Pool   *evm.Pool
	// Engine sends the network's settlements; nil until StartEngine.
	Engine *engine.Engine
	// Fees are the gas prices shared by the settles on the network.
	Fees FeeQuotes
}

// Env is what the facilitator lends a network: its logger, journal and
// settlement engine settings, and its background loop.
type Env struct {
	Logger       *zap.Logger
	Journal      store.Journal
	PollInterval time.Duration
	ReplaceAfter uint64
	MaxFee       uint64
	Serial       bool
	UseLogWindow time.Duration
	Now          func() time.Time
	// LagInterval is how often the heads of several RPC endpoints are compared.
	LagInterval time.Duration
	// Every runs fn every interval until the facilitator closes.
	Every func(interval time.Duration, fn func(), now bool)
	// Ctx is cancelled when the facilitator closes.
	Ctx context.Context
}

// Open dials a network's RPC endpoints, checks their chain IDs, reads the
// token's EIP-712 domain and decimals where they are not configured, and
// checks the domain against the token's DOMAIN_SEPARATOR(). Close releases
// it.
func Open(ctx context.Context, nc Config, env Env) (*Network, error) {
	if err := nc.Validate(); err != nil {
		return nil, err
	}
	n := &Network{
		Cfg:     nc,
		ChainID: big.NewInt(nc.ChainID),
		Token:   common.HexToAddress(nc.Token),
	}
	pool, err := evm.NewPool(nc.Name, n.ChainID, nc.RPCURLs, env.Logger)
	if err != nil {
		return nil, err
	}
	n.Pool = pool
	if err := pool.CheckChainIDs(ctx); err != nil {
		// A chain that is down is no reason not to start (a restart for
		// crash recovery may come during an outage): the network serves
		// as soon as an endpoint answers, if nothing must be read from
		// the chain first. A wrong chain ID is always fatal.
		if !errors.Is(err, evm.ErrNoEndpoint) || nc.EIP712Name == "" || nc.EIP712Version == "" || nc.Decimals == 0 {
			pool.Close()
			if errors.Is(err, evm.ErrNoEndpoint) {
				return nil, fmt.Errorf("%w; to start while the chain is down, set the token's eip712_name, eip712_version and decimals", err)
			}
			return nil, err
		}
		env.Logger.Error("starting without the chain: no RPC endpoint answers, so this network cannot verify or settle until one does; the health check shows when it is back",
			zap.String("network", nc.Name), zap.Error(err))
	}
	n.Domain = evm.Domain{Name: nc.EIP712Name, Version: nc.EIP712Version, ChainID: n.ChainID, VerifyingContract: n.Token}
	if n.Domain.Name == "" {
		if n.Domain.Name, err = evm.ReadString(ctx, pool, n.Token, "name"); err != nil {
			pool.Close()
			return nil, fmt.Errorf("network %s: reading the token's EIP-712 name: %w; set it in the configuration", nc.Name, err)
		}
	}
	if n.Domain.Version == "" {
		if n.Domain.Version, err = evm.ReadString(ctx, pool, n.Token, "version"); err != nil {
			pool.Close()
			return nil, fmt.Errorf("network %s: reading the token's EIP-712 version: %w; set it in the configuration", nc.Name, err)
		}
	}
	if n.Cfg.Decimals == 0 {
		// Never assume 6: a price in whole tokens would be off by powers of ten.
		if n.Cfg.Decimals, err = evm.ReadDecimals(ctx, pool, n.Token); err != nil {
			pool.Close()
			return nil, fmt.Errorf("network %s: reading the token's decimals(): %w; set decimals in the configuration", nc.Name, err)
		}
	}
	// A domain that differs from the token's makes every signature look
	// invalid: refuse to start with it (the chain doctor's comparison,
	// doctor.MatchSeparator, which `caddy x402 doctor` runs too).
	if _, err := evm.DomainSeparator(n.Domain); err != nil {
		pool.Close()
		return nil, err
	}
	if sep, err := evm.ReadDomainSeparator(ctx, pool, n.Token); err != nil {
		env.Logger.Warn("could not read the token's DOMAIN_SEPARATOR() to check the EIP-712 domain", zap.String("network", nc.Name), zap.Error(err))
	} else if _, ok, _ := doctor.MatchSeparator(sep, n.Domain); !ok {
		pool.Close()
		return nil, fmt.Errorf("network %s: the EIP-712 domain (name %q, version %q, chain ID %d, token %s) does not match the token's DOMAIN_SEPARATOR() %s; fix eip712Name / eip712Version, or leave them empty to read them from the token",
			nc.Name, n.Domain.Name, n.Domain.Version, nc.ChainID, n.Token.Hex(), sep.Hex())
	}
	return n, nil
}

// StartEngine starts the network's settlement engine, which asks spent
// about authorizations on chain (spents, by scheme name, for each scheme
// bound to the network; spaces their nonce spaces, engine.Config.Spaces).
// reverted is its Config.Reverted (nil for none). On an error the network is left
// without an engine; Close it.
func (n *Network) StartEngine(ctx context.Context, env Env, spent engine.Spent, spents map[string]engine.Spent, spaces map[string]string, reverted func(*engine.Revert)) error {
	nc := &n.Cfg
	eng, err := engine.New(engine.Config{
		Network: nc.Name, ChainID: n.ChainID, Token: n.Token, Spent: spent, Spents: spents, Spaces: spaces, Pool: n.Pool, Keys: nc.SignerKeys,
		Journal: env.Journal, PollInterval: env.PollInterval, ReplaceAfter: env.ReplaceAfter, MaxFeeMultiple: env.MaxFee, Serial: env.Serial,
		UseLogWindow: env.UseLogWindow, Logger: env.Logger, Now: env.Now, Reverted: reverted,
	})
	if err != nil {
		return err
	}
	n.Engine = eng
	eng.Start()
	eng.RefreshGas(ctx)
	if len(nc.RPCURLs) > 1 {
		n.Pool.CheckLag(ctx)
		env.Every(env.LagInterval, func() { n.Pool.CheckLag(env.Ctx) }, false)
	}
	return nil
}

// Close stops the engine and closes the RPC connections.
func (n *Network) Close() {
	if n.Engine != nil {
		n.Engine.Close()
	}
	n.Pool.Close()
}

// SimulationSender is the msg.sender of simulated transfers: the signer
// that would submit it, or the zero address on a verify-only network.
func (n *Network) SimulationSender() common.Address {
	if s := n.Engine.Signers(); len(s) > 0 {
		return s[0]
	}
	return common.Address{}
}

// Family is the CAIP-2 namespace of the network: every network here is an
// EVM chain, "eip155".
func (n *Network) Family() string { return "eip155" }
