package devnet

// The simulated chain behind a Chain, as go-ethereum's simulated.Backend
// builds it, with its JSON-RPC server on a loopback port.

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// splitListen parses Config.Listen; port 0 means "pick a free one".
func splitListen(listen string) (host string, port int, err error) {
	if listen == "" {
		return "127.0.0.1", 0, nil
	}
	h, p, err := net.SplitHostPort(listen)
	if err != nil {
		return "", 0, fmt.Errorf("devnet: listen address %q: %w", listen, err)
	}
	if h == "" {
		h = "127.0.0.1"
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("devnet: listen address %q: bad port", listen)
	}
	return h, port, nil
}

// newBackend starts the simulated backend with its HTTP server on host:port;
// port 0 picks a free port (the node cannot report a port chosen by the
// kernel through the simulated backend), retrying if it is taken meanwhile.
func newBackend(alloc types.GenesisAlloc, genesisTime uint64, host string, port int, chainID int64) (*backend, int, error) {
	const tries = 8
	for i := 0; ; i++ {
		p := port
		if p == 0 {
			var err error
			if p, err = freePort(host); err != nil {
				return nil, 0, err
			}
		}
		sim, err := tryBackend(alloc, genesisTime, host, p, chainID)
		if err == nil {
			return sim, p, nil
		}
		if port != 0 || i+1 == tries || !errors.Is(err, syscall.EADDRINUSE) {
			return nil, 0, fmt.Errorf("devnet: start chain on %s: %w", net.JoinHostPort(host, strconv.Itoa(p)), err)
		}
	}
}

func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("devnet: find a free port on %s: %w", host, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// backend is go-ethereum's simulated chain as simulated.Backend builds it
// (a node with the eth service and a simulated beacon that seals on
// demand), built here to keep the eth service at hand: after sealing a
// block, Commit waits for the transaction pool to take in the new head's
// state. The pool does that on a goroutine, and until then refuses an
// account's first transaction as unfunded though its funding is mined
// (simulated.Backend leaves that race to the next block).
type backend struct {
	stack  *node.Node
	eth    *eth.Ethereum
	beacon *catalyst.SimulatedBeacon
}

// Commit seals a block with the pending transactions and returns its hash
// once the transaction pool is reset to it.
func (b *backend) Commit() common.Hash {
	h := b.beacon.Commit()
	_ = b.eth.TxPool().Sync() // an error only when the pool is closing
	return h
}

// AdjustTime seals an empty block d after the head (see
// catalyst.SimulatedBeacon.AdjustTime) and waits for the pool as Commit.
func (b *backend) AdjustTime(d time.Duration) error {
	if err := b.beacon.AdjustTime(d); err != nil {
		return err
	}
	_ = b.eth.TxPool().Sync()
	return nil
}

// Rollback drops the pending transactions.
func (b *backend) Rollback() { b.beacon.Rollback() }

// Close stops the beacon and the node.
func (b *backend) Close() error {
	return errors.Join(b.beacon.Stop(), b.stack.Close())
}

// tryBackend builds and starts the chain's node and beacon, recovering a
// panic of the node's start (as when the port is taken) as an error.
func tryBackend(alloc types.GenesisAlloc, genesisTime uint64, host string, port int, chainID int64) (b *backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = ""
	nodeConf.P2P = p2p.Config{NoDiscovery: true}
	nodeConf.HTTPHost = host
	nodeConf.HTTPPort = port
	nodeConf.HTTPModules = []string{"eth", "net", "web3", "txpool"}
	nodeConf.HTTPVirtualHosts = []string{"*"}
	nodeConf.HTTPCors = []string{"*"}

	// The dev chain config enables every fork, including Amsterdam and
	// Bogota, whose gas schedule makes an EIP-3009 transfer cost about
	// three times what it costs on Cronos. Copy the config rather than
	// mutating the global.
	chainConf := *params.AllDevChainProtocolChanges
	chainConf.ChainID = big.NewInt(chainID)
	chainConf.AmsterdamTime = nil
	chainConf.BogotaTime = nil
	// The forks' system contracts are present from genesis; alloc wins on
	// a conflict.
	genesisAlloc := core.SystemContractAllocs()
	maps.Copy(genesisAlloc, alloc)
	ethConf := ethconfig.Defaults
	ethConf.Genesis = &core.Genesis{
		Config:    &chainConf,
		GasLimit:  ethconfig.Defaults.Miner.GasCeil,
		Alloc:     genesisAlloc,
		Timestamp: genesisTime,
	}
	ethConf.NetworkId = uint64(chainID)
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	ethConf.LogNoHistory = true

	stack, err := node.New(&nodeConf)
	if err != nil {
		return nil, err
	}
	b = &backend{stack: stack}
	if b.eth, err = eth.New(stack, &ethConf); err != nil {
		stack.Close()
		return nil, err
	}
	stack.RegisterAPIs([]rpc.API{{
		Namespace: "eth",
		Service:   filters.NewFilterAPI(filters.NewFilterSystem(b.eth.APIBackend, filters.Config{})),
	}})
	if err := stack.Start(); err != nil {
		stack.Close()
		return nil, err
	}
	if b.beacon, err = catalyst.NewSimulatedBeacon(0, common.Address{}, b.eth); err != nil {
		stack.Close()
		return nil, err
	}
	if err := b.beacon.Fork(b.eth.BlockChain().GetCanonicalHash(0)); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}
