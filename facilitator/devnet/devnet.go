// Package devnet runs an in-process development EVM chain that stands in for
// Cronos testnet in tests and local development.
//
// A Chain is a go-ethereum simulated backend (a real EVM, a real transaction
// pool and a real JSON-RPC server) configured like Cronos testnet where it
// matters to x402: chain id 338 and the devUSDC.e token at its real testnet
// address 0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0, name "Bridged USDC
// (Stargate)", version "1", 6 decimals. The token is caddy-x402's own
// EIP-3009 contract (package token), placed by genesis allocation. Blocks are
// sealed by a timer (one second by default), and the chain serves
// eth/net/web3/txpool JSON-RPC over HTTP on a loopback port. For fault
// tests, the timer can be paused (PauseMining) and the transaction pool
// emptied (DropPending).
//
// The genesis funds fixed accounts:
//
//   - a facilitator signer ("signer") with 1,000,000 ETH-units (1e24 wei) for gas;
//   - the token's minter ("minter") with 1,000 ETH-units for gas;
//   - buyers ("buyer1".."buyerN", 5 by default), each with 1,000 tokens
//     (1_000_000_000 smallest units) and 1,000 ETH-units for gas.
//
// and places smart-contract wallet contracts (package token), for paying
// with EIP-1271 and ERC-6492 offline:
//
//   - a SmartWalletFactory (CREATE2) at FactoryAddress;
//   - buyer1's SmartWallet for salt 0, deployed, with 1,000 tokens
//     (SmartWallet);
//   - buyer1's SmartWallet for salt 1, not deployed (no code at its
//     address), with 1,000 tokens: an ERC-6492 signature names the factory
//     and createAccount(buyer1, 1) (UndeployedWallet).
//
// and Multicall3 (package token's own) at its canonical address
// Multicall3Address (0xcA11bde05977b3631167028862bE2a173976CA11), through
// which the x402 reference facilitators read the chain.
//
// and, unless Config.WithoutPermit2, the contracts of x402's Permit2 flavours
// (package token's own, written from the published interfaces) at their
// canonical addresses:
//
//   - Permit2 at Permit2Address (0x000000000022D473030F116dDEE9F6B43aC78BA3);
//   - the x402 exact Permit2 proxy at ExactPermit2ProxyAddress
//     (0x402085c248EeA27D92E8b30b2C58ed07f9E20001);
//   - the x402 upto Permit2 proxy at UptoPermit2ProxyAddress
//     (0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002).
//
// and, unless Config.WithoutBatchSettlement, the x402 batch-settlement
// (payment channel) contracts (package token's own, written from the
// published interface) at their canonical addresses:
//
//   - x402BatchSettlement at BatchSettlementAddress
//     (0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003);
//   - ERC3009DepositCollector at ERC3009CollectorAddress
//     (0x4020806089470a89826cB9fB1f4059150b550004);
//   - Permit2DepositCollector at Permit2CollectorAddress
//     (0x4020425FAf3B746C082C2f942b4E5159887B0005), unless
//     Config.WithoutPermit2: it deposits through Permit2.
//
// The chain runs the Cancun rules (and later ones up to Osaka), so the
// transient storage (EIP-1153) these contracts use works.
//
// They are placed by genesis allocation, not deployed through the CREATE2
// deployer: the canonical addresses come from the published contracts'
// exact creation code, which ours do not reproduce. Permit2 computes its
// EIP-712 domain at each call instead of caching it at construction; each
// proxy gets the runtime code and storage its constructor leaves when run
// with Permit2's address (token.ProxyGenesisFor). No buyer has approved
// Permit2 at genesis. The token has EIP-2612 permit, so a buyer can
// approve Permit2 by signature.
//
// TEST ONLY: every key here is public. The keys are keccak256 of fixed
// strings ("caddy-x402 devnet signer", "caddy-x402 devnet minter",
// "caddy-x402 devnet buyer 1", ...) and are written out below as constants.
// Anything sent to their addresses on a real network can be taken by anyone.
// Never use them, or this package, outside a development chain.
package devnet

// This file is the Chain: its Config, Start (genesis and the backend), the block loop and the
// controls the fault tests use. Over 500 lines because it is one type with one lock; the fixed
// facts are in accounts.go, the simulated backend in backend.go.

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/token"
)

// DefaultBlockTime is the block time used when Config.BlockTime is 0.
const DefaultBlockTime = time.Second

// DefaultBuyers is the number of buyers used when Config.Buyers is 0.
const DefaultBuyers = 5

// MaxBuyers is the largest Config.Buyers accepted.
const MaxBuyers = 1000

// Config configures a Chain. The zero value is usable.
type Config struct {
	// Listen is the host:port of the HTTP JSON-RPC server, such as
	// "127.0.0.1:8545". Empty (or port 0) means a free loopback port.
	Listen string
	// BlockTime is the interval between sealed blocks; 0 means 1s. Below
	// one second, empty blocks are sealed only once the wall clock has
	// passed the latest block's timestamp (block timestamps are whole
	// seconds and must increase), so timestamps keep to the wall clock;
	// a block with pending transactions is sealed at every tick.
	BlockTime time.Duration
	// Buyers is the number of funded buyer accounts; 0 means 5.
	Buyers int
	// ChainID is the chain id; 0 means ChainID (338, Cronos testnet). Run
	// as 84532 with Network "base-sepolia", the x402 v1 reference clients
	// (which know no Cronos network) can pay on the chain.
	ChainID int64
	// Network is the x402 network name the chain stands for; "" means
	// Network (cronos-testnet).
	Network string
	// Token is the address the token is deployed at; zero means
	// TokenAddress.
	Token common.Address
	// TokenWithoutBytesOverload places a token without the
	// bytes-signature overload of transferWithAuthorization (like
	// FiatToken v2.0 and v2.1, token.EIP3009TokenNoBytes), on which
	// smart-contract wallets cannot pay.
	TokenWithoutBytesOverload bool
	// WithoutPermit2 leaves out Permit2 and the x402 Permit2 proxies, as
	// on a chain that lacks them: nothing has code at their addresses.
	WithoutPermit2 bool
	// WithoutBatchSettlement leaves out the batch-settlement contracts
	// (x402BatchSettlement and its deposit collectors), as on a chain
	// that lacks them.
	WithoutBatchSettlement bool
}

// SmartWallet is one of buyer1's smart-contract wallets on the devnet.
type SmartWallet struct {
	// Address is the wallet's (CREATE2) address.
	Address common.Address `json:"address"`
	// Owner is the account whose signatures the wallet accepts (buyer1).
	Owner common.Address `json:"owner"`
	// Factory is the SmartWalletFactory that deploys it.
	Factory common.Address `json:"factory"`
	// Salt is its salt at the factory.
	Salt int64 `json:"salt"`
	// Deployed says whether the wallet has code from genesis on.
	Deployed bool `json:"deployed"`
}

// Account is a genesis account with its (TEST-ONLY) private key.
type Account struct {
	Name       string            `json:"name"`
	Address    common.Address    `json:"address"`
	PrivateKey string            `json:"privateKey"` // 0x-prefixed hex
	Key        *ecdsa.PrivateKey `json:"-"`
}

// TokenInfo describes the chain's token.
type TokenInfo struct {
	Address  common.Address `json:"address"`
	Name     string         `json:"name"`
	Symbol   string         `json:"symbol"`
	Version  string         `json:"version"`
	Decimals int            `json:"decimals"`
}

// Permit2Info gives the addresses of Permit2 and the x402 Permit2 proxies
// on the chain.
type Permit2Info struct {
	Address    common.Address `json:"address"`
	ExactProxy common.Address `json:"exactProxy"`
	UptoProxy  common.Address `json:"uptoProxy"`
}

// BatchSettlementInfo gives the addresses of the batch-settlement contracts
// on the chain.
type BatchSettlementInfo struct {
	Address          common.Address `json:"address"`
	ERC3009Collector common.Address `json:"erc3009Collector"`
	// Permit2Collector is absent on a chain without Permit2.
	Permit2Collector *common.Address `json:"permit2Collector,omitempty"`
}

// Info describes a running Chain; it is what WriteInfo writes.
type Info struct {
	RPCURL    string    `json:"rpcUrl"`
	ChainID   int64     `json:"chainId"`
	Network   string    `json:"network"`
	Token     TokenInfo `json:"token"`
	BlockTime string    `json:"blockTime"` // a Go duration, such as "1s"
	Signer    Account   `json:"signer"`
	Minter    Account   `json:"minter"`
	Buyers    []Account `json:"buyers"`
	// SmartWallets are buyer1's wallets: the deployed one, then the
	// undeployed one.
	SmartWallets []SmartWallet `json:"smartWallets,omitempty"`
	// Permit2 is absent when the chain has no Permit2
	// (Config.WithoutPermit2).
	Permit2 *Permit2Info `json:"permit2,omitempty"`
	// BatchSettlement is absent when the chain has no batch-settlement
	// contracts (Config.WithoutBatchSettlement).
	BatchSettlement *BatchSettlementInfo `json:"batchSettlement,omitempty"`
}

// Chain is a running development chain. Its methods are safe for
// concurrent use.
type Chain struct {
	chainID   int64
	network   string
	token     common.Address
	sim       *backend
	client    *ethclient.Client
	rpc       *rpc.Client
	url       string
	blockTime time.Duration
	signer    Account
	minter    Account
	buyers    []Account
	wallets   []SmartWallet
	permit2   bool // Permit2 and the proxies are placed
	batch     bool // the batch-settlement contracts are placed
	tok       *token.EIP3009Token

	mu        sync.Mutex // guards sealing, the pool's clearing, lastTime, paused and closed
	lastTime  uint64     // timestamp of the latest sealed block
	lastSeal  time.Time  // when (wall clock) the latest block was sealed
	paused    bool       // the timer seals no block (PauseMining)
	closed    bool
	quit      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// startMu makes the choice of a free port and the start of the node on it
// one step within this process, so parallel Starts do not pick the same
// port.
var startMu sync.Mutex

// Start starts a development chain. Close it when done.
func Start(cfg Config) (*Chain, error) {
	if cfg.BlockTime < 0 {
		return nil, fmt.Errorf("devnet: negative block time %s", cfg.BlockTime)
	}
	if cfg.BlockTime == 0 {
		cfg.BlockTime = DefaultBlockTime
	}
	if cfg.Buyers < 0 || cfg.Buyers > MaxBuyers {
		return nil, fmt.Errorf("devnet: buyers %d out of range 0..%d", cfg.Buyers, MaxBuyers)
	}
	if cfg.Buyers == 0 {
		cfg.Buyers = DefaultBuyers
	}
	host, port, err := splitListen(cfg.Listen)
	if err != nil {
		return nil, err
	}

	if cfg.ChainID < 0 {
		return nil, fmt.Errorf("devnet: negative chain id %d", cfg.ChainID)
	}
	if cfg.ChainID == 0 {
		cfg.ChainID = ChainID
	}
	if cfg.Network == "" {
		cfg.Network = Network
	}
	if cfg.Token == (common.Address{}) {
		cfg.Token = TokenAddress
	}
	c := &Chain{
		chainID:   cfg.ChainID,
		network:   cfg.Network,
		token:     cfg.Token,
		blockTime: cfg.BlockTime,
		permit2:   !cfg.WithoutPermit2,
		batch:     !cfg.WithoutBatchSettlement,
		quit:      make(chan struct{}),
		done:      make(chan struct{}),
	}
	if c.signer, err = deriveAccount("signer", "caddy-x402 devnet signer"); err != nil {
		return nil, err
	}
	if c.minter, err = deriveAccount("minter", "caddy-x402 devnet minter"); err != nil {
		return nil, err
	}
	balances := make(map[common.Address]*big.Int, cfg.Buyers)
	alloc := types.GenesisAlloc{
		c.signer.Address: {Balance: new(big.Int).Set(SignerGas)},
		c.minter.Address: {Balance: new(big.Int).Set(AccountGas)},
	}
	for i := 1; i <= cfg.Buyers; i++ {
		b, err := deriveAccount(fmt.Sprintf("buyer%d", i), fmt.Sprintf("caddy-x402 devnet buyer %d", i))
		if err != nil {
			return nil, err
		}
		c.buyers = append(c.buyers, b)
		balances[b.Address] = new(big.Int).Set(BuyerTokens)
		alloc[b.Address] = types.Account{Balance: new(big.Int).Set(AccountGas)}
	}
	owner := c.buyers[0].Address
	alloc[FactoryAddress] = types.Account{Code: token.FactoryRuntimeCode(), Balance: new(big.Int)}
	alloc[Multicall3Address] = types.Account{Code: token.Multicall3RuntimeCode(), Balance: new(big.Int)}
	for _, salt := range []int64{DeployedWalletSalt, UndeployedWalletSalt} {
		w := SmartWallet{Address: token.WalletAddress(FactoryAddress, owner, big.NewInt(salt)), Owner: owner, Factory: FactoryAddress, Salt: salt, Deployed: salt == DeployedWalletSalt}
		c.wallets = append(c.wallets, w)
		balances[w.Address] = new(big.Int).Set(BuyerTokens)
		if w.Deployed {
			alloc[w.Address] = types.Account{Code: token.WalletRuntimeCode(), Storage: token.WalletStorage(owner), Balance: new(big.Int)}
		}
	}
	code := token.RuntimeCode()
	if cfg.TokenWithoutBytesOverload {
		code = token.NoBytesRuntimeCode()
	}
	alloc[cfg.Token] = types.Account{
		Code:    code,
		Storage: token.GenesisStorage(c.minter.Address, balances),
		Balance: new(big.Int),
	}

	if c.permit2 {
		if err := placePermit2(alloc); err != nil {
			return nil, err
		}
	}

	if c.batch {
		if err := placeBatchSettlement(alloc, c.permit2); err != nil {
			return nil, err
		}
	}

	// A second in the past, so that block 1, sealed below, is not ahead of
	// the wall clock.
	genesisTime := uint64(time.Now().Unix()) - 1
	startMu.Lock()
	c.sim, port, err = newBackend(alloc, genesisTime, host, port, cfg.ChainID)
	startMu.Unlock()
	if err != nil {
		return nil, err
	}
	c.lastTime = genesisTime
	urlHost := host
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		urlHost = "127.0.0.1"
	}
	c.url = "http://" + net.JoinHostPort(urlHost, strconv.Itoa(port))

	// The simulated backend's own client is in-process but does not give
	// access to its RPC client (txpool_status), so dial the HTTP server.
	if c.rpc, err = rpc.DialHTTP(c.url); err != nil {
		c.sim.Close()
		return nil, fmt.Errorf("devnet: dial %s: %w", c.url, err)
	}
	c.client = ethclient.NewClient(c.rpc)
	if c.tok, err = token.NewEIP3009Token(cfg.Token, c.client); err != nil {
		c.client.Close()
		c.sim.Close()
		return nil, err
	}
	// Seal block 1 at once, so that the chain's head has a current
	// timestamp and an authorization with validAfter 0 is valid.
	c.Mine()
	go c.loop()
	return c, nil
}

// placePermit2 adds Permit2 and the two x402 proxies to alloc at their
// canonical addresses.
func placePermit2(alloc types.GenesisAlloc) error {
	alloc[Permit2Address] = types.Account{Code: token.Permit2RuntimeCode(), Balance: new(big.Int)}
	for addr, kind := range map[common.Address]token.ProxyKind{
		ExactPermit2ProxyAddress: token.ExactProxy,
		UptoPermit2ProxyAddress:  token.UptoProxy,
	} {
		g, err := token.ProxyGenesisFor(kind, Permit2Address)
		if err != nil {
			return fmt.Errorf("devnet: %w", err)
		}
		alloc[addr] = types.Account{Code: g.Code, Storage: g.Storage, Balance: new(big.Int)}
	}
	return nil
}

// placeBatchSettlement adds x402BatchSettlement and its deposit
// collectors to alloc at their canonical addresses: the Permit2 collector
// only when the chain has Permit2.
func placeBatchSettlement(alloc types.GenesisAlloc, permit2 bool) error {
	g, err := token.BatchSettlementGenesisFor(BatchSettlementAddress, Permit2Address)
	if err != nil {
		return fmt.Errorf("devnet: %w", err)
	}
	alloc[BatchSettlementAddress] = types.Account{Code: g.Settlement, Balance: new(big.Int)}
	alloc[ERC3009CollectorAddress] = types.Account{Code: g.ERC3009Collector, Balance: new(big.Int)}
	if permit2 {
		alloc[Permit2CollectorAddress] = types.Account{Code: g.Permit2Collector, Balance: new(big.Int)}
	}
	return nil
}

// loop seals blocks until Close.
func (c *Chain) loop() {
	defer close(c.done)
	t := time.NewTicker(c.blockTime)
	defer t.Stop()
	for {
		select {
		case <-c.quit:
			return
		case <-t.C:
			c.tick()
		}
	}
}

// aheadEmptyEvery is how often a chain whose clock is ahead of the wall
// clock seals an empty block: a real chain never stops making blocks (the
// engine notices a dropped transaction by blocks that do not carry it),
// and the chain's clock, a second a block, still falls back towards the
// wall clock at half its pace.
const aheadEmptyEvery = 2 * time.Second

func (c *Chain) tick() {
	if c.blockTime < time.Second && uint64(time.Now().Unix()) <= c.latestTime() && c.sinceSeal() < aheadEmptyEvery && c.pendingTxs() == 0 {
		return // an empty block now would run ahead of the wall clock
	}
	c.seal(true)
}

// sinceSeal is the wall-clock time since the latest block was sealed.
func (c *Chain) sinceSeal() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Since(c.lastSeal)
}

func (c *Chain) latestTime() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastTime
}

// pendingTxs is the number of executable transactions in the pool; on
// error it says 1 so that a block gets sealed.
func (c *Chain) pendingTxs() int {
	var status map[string]hexutil.Uint
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := c.rpc.CallContext(ctx, &status, "txpool_status"); err != nil {
		return 1
	}
	return int(status["pending"])
}

// RPCURL returns the HTTP JSON-RPC endpoint, such as http://127.0.0.1:8545.
func (c *Chain) RPCURL() string { return c.url }

// ChainID returns the chain id (338 unless configured).
func (c *Chain) ChainID() *big.Int { return big.NewInt(c.chainID) }

// Network returns the x402 network name (cronos-testnet unless configured).
func (c *Chain) Network() string { return c.network }

// Token returns the token's address (TokenAddress unless configured).
func (c *Chain) Token() common.Address { return c.token }

// Signer returns the facilitator's gas-paying account.
func (c *Chain) Signer() Account { return c.signer }

// Minter returns the token's minter account.
func (c *Chain) Minter() Account { return c.minter }

// Buyers returns the funded buyer accounts.
func (c *Chain) Buyers() []Account { return append([]Account(nil), c.buyers...) }

// SmartWallet is buyer1's deployed EIP-1271 wallet (salt 0), with 1,000
// tokens at genesis.
func (c *Chain) SmartWallet() SmartWallet { return c.wallets[0] }

// UndeployedWallet is buyer1's wallet for salt 1: 1,000 tokens at genesis
// and no code until the factory deploys it (an ERC-6492 payment).
func (c *Chain) UndeployedWallet() SmartWallet { return c.wallets[1] }

// HasPermit2 says whether Permit2 and the x402 Permit2 proxies are on the
// chain (at Permit2Address, ExactPermit2ProxyAddress and
// UptoPermit2ProxyAddress).
func (c *Chain) HasPermit2() bool { return c.permit2 }

// HasBatchSettlement says whether the batch-settlement contracts are on
// the chain (at BatchSettlementAddress and ERC3009CollectorAddress, and
// Permit2CollectorAddress if HasPermit2).
func (c *Chain) HasBatchSettlement() bool { return c.batch }

// Client returns a client of the chain's JSON-RPC server. It stays valid
// until Close; do not close it.
func (c *Chain) Client() *ethclient.Client { return c.client }

// Mine seals a block now, with whatever transactions are pending, even
// while mining is paused; once it returns, the transaction pool has the new
// block's state. It does nothing after Close.
func (c *Chain) Mine() { c.seal(false) }

// seal seals a block; byTimer says the block timer asked for it, which
// PauseMining refuses.
func (c *Chain) seal(byTimer bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || byTimer && c.paused {
		return
	}
	h := c.sim.Commit()
	c.lastSeal = time.Now()
	if head, err := c.client.HeaderByHash(context.Background(), h); err == nil {
		c.lastTime = head.Time
	} else {
		c.lastTime++ // the simulated beacon seals at least a second after the parent
	}
}

// AdjustTime seals a block whose timestamp is d (whole seconds) later
// than it would be, moving the chain's clock ahead of the wall clock, as
// tests of time locks need (a payment channel's withdraw delay). The pool
// must hold no executable transaction. Later blocks keep to the chain's
// clock, a second a block at least, until the wall clock catches up.
func (c *Chain) AdjustTime(d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("devnet: chain closed")
	}
	if err := c.sim.AdjustTime(d); err != nil {
		return fmt.Errorf("devnet: adjust time by %s: %w", d, err)
	}
	c.lastSeal = time.Now()
	if head, err := c.client.HeaderByNumber(context.Background(), nil); err == nil {
		c.lastTime = head.Time
	}
	return nil
}

// PauseMining stops the block timer from sealing blocks until
// ResumeMining, as when a chain stalls: transactions sent meanwhile wait in
// the pool. Once it returns, no block is sealed but by an explicit Mine (or
// Mint). Pausing a paused chain does nothing.
func (c *Chain) PauseMining() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused = true
}

// ResumeMining lets the block timer seal blocks again, from its next tick.
// Resuming a chain that is not paused does nothing.
func (c *Chain) ResumeMining() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused = false
}

// DropPending drops every transaction from the transaction pool, pending
// and queued, as a node that evicts them would, and returns how many it
// dropped. Afterwards eth_getTransactionByHash of a dropped transaction
// returns null, its sender's pending nonce is its latest (mined) nonce
// again, and a new transaction with the same nonce is accepted. It does
// not wait for or stop the block timer; pause mining first to be sure a
// transaction is dropped rather than mined.
//
// It clears the pool with the simulated backend's Rollback. The count is
// the pool's size just before; a transaction sent concurrently with
// DropPending may be dropped without being counted, or kept.
func (c *Chain) DropPending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0
	}
	n := 0
	var status map[string]hexutil.Uint
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.rpc.CallContext(ctx, &status, "txpool_status"); err == nil {
		n = int(status["pending"]) + int(status["queued"])
	}
	// The local-transaction tracker that would resubmit dropped
	// transactions is off in the simulated backend (TxPool.NoLocals).
	c.sim.Rollback()
	return n
}

// NonceAt returns addr's nonce at the latest block and its pending nonce,
// which counts its transactions in the pool as well. The two are read one
// after the other, not atomically.
func (c *Chain) NonceAt(ctx context.Context, addr common.Address) (latest, pending uint64, err error) {
	if latest, err = c.client.NonceAt(ctx, addr, nil); err != nil {
		return 0, 0, err
	}
	if pending, err = c.client.PendingNonceAt(ctx, addr); err != nil {
		return 0, 0, err
	}
	return latest, pending, nil
}

// Mint mints amount tokens to to (a transaction from the minter) and waits
// until it is mined; it seals a block at once rather than waiting for the
// timer.
func (c *Chain) Mint(ctx context.Context, to common.Address, amount *big.Int) error {
	opts, err := bind.NewKeyedTransactorWithChainID(c.minter.Key, c.ChainID())
	if err != nil {
		return err
	}
	opts.Context = ctx
	tx, err := c.tok.Mint(opts, to, amount)
	if err != nil {
		return fmt.Errorf("devnet: mint: %w", err)
	}
	return c.sealed(ctx, tx, "mint")
}

// SendValue sends wei of native coin from the key's account to to, seals
// it in a block and waits for it. When it returns, to can send at once (the
// transaction pool has the block's state: see backend.Commit).
func (c *Chain) SendValue(ctx context.Context, from *ecdsa.PrivateKey, to common.Address, wei *big.Int) error {
	nonce, err := c.client.PendingNonceAt(ctx, crypto.PubkeyToAddress(from.PublicKey))
	if err != nil {
		return fmt.Errorf("devnet: send value: %w", err)
	}
	tip, err := c.client.SuggestGasTipCap(ctx)
	if err != nil {
		return fmt.Errorf("devnet: send value: %w", err)
	}
	head, err := c.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("devnet: send value: %w", err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx, err := types.SignNewTx(from, types.LatestSignerForChainID(c.ChainID()), &types.DynamicFeeTx{
		ChainID: c.ChainID(), Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21000, To: &to, Value: wei,
	})
	if err != nil {
		return fmt.Errorf("devnet: send value: %w", err)
	}
	if err := c.client.SendTransaction(ctx, tx); err != nil {
		return fmt.Errorf("devnet: send value: %w", err)
	}
	return c.sealed(ctx, tx, "send value")
}

// sealed seals tx, sent, in a block and waits for its receipt: an error
// when it failed (what names it in the error).
func (c *Chain) sealed(ctx context.Context, tx *types.Transaction, what string) error {
	c.Mine()
	r, err := c.waitReceipt(ctx, tx.Hash())
	if err != nil {
		return fmt.Errorf("devnet: %s: %w", what, err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("devnet: %s transaction %s failed", what, tx.Hash())
	}
	return nil
}

func (c *Chain) waitReceipt(ctx context.Context, h common.Hash) (*types.Receipt, error) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		r, err := c.client.TransactionReceipt(ctx, h)
		if err == nil {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.quit:
			return nil, errors.New("chain closed")
		case <-t.C:
		}
	}
}

// BalanceOf returns a's token balance in the token's smallest unit.
func (c *Chain) BalanceOf(ctx context.Context, a common.Address) (*big.Int, error) {
	return c.tok.BalanceOf(&bind.CallOpts{Context: ctx}, a)
}

// Info describes the chain, including its accounts' private keys.
func (c *Chain) Info() Info {
	var p2 *Permit2Info
	if c.permit2 {
		p2 = &Permit2Info{Address: Permit2Address, ExactProxy: ExactPermit2ProxyAddress, UptoProxy: UptoPermit2ProxyAddress}
	}
	var bs *BatchSettlementInfo
	if c.batch {
		bs = &BatchSettlementInfo{Address: BatchSettlementAddress, ERC3009Collector: ERC3009CollectorAddress}
		if c.permit2 {
			p := Permit2CollectorAddress
			bs.Permit2Collector = &p
		}
	}
	return Info{
		RPCURL:  c.url,
		ChainID: c.chainID,
		Network: c.network,
		Token: TokenInfo{
			Address:  c.token,
			Name:     TokenName,
			Symbol:   TokenSymbol,
			Version:  TokenVersion,
			Decimals: TokenDecimals,
		},
		BlockTime: c.blockTime.String(),
		Signer:    c.signer,
		Minter:    c.minter,
		Buyers:    c.Buyers(),

		SmartWallets: append([]SmartWallet(nil), c.wallets...),
		Permit2:      p2,

		BatchSettlement: bs,
	}
}

// WriteInfo writes Info as indented JSON to path, with file mode 0600 (it
// holds private keys).
func (c *Chain) WriteInfo(path string) error {
	data, err := json.MarshalIndent(c.Info(), "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil { // an existing file keeps its mode otherwise
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Close stops sealing blocks and shuts the chain down. It is idempotent
// and safe to call concurrently.
func (c *Chain) Close() error {
	c.closeOnce.Do(func() {
		close(c.quit)
		<-c.done
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		c.client.Close()
		c.closeErr = c.sim.Close()
	})
	return c.closeErr
}
