package devnet

// The simulated backend behind a Chain: go-ethereum's simulated.Backend with its JSON-RPC
// server on a loopback port.

import (
	"errors"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"syscall"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
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
func newBackend(alloc types.GenesisAlloc, genesisTime uint64, host string, port int, chainID int64) (*simulated.Backend, int, error) {
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

// tryBackend calls simulated.NewBackend, which panics when the node fails
// to start (for example when the port is taken), and returns that as an
// error.
func tryBackend(alloc types.GenesisAlloc, genesisTime uint64, host string, port int, chainID int64) (sim *simulated.Backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	return simulated.NewBackend(alloc, func(nodeConf *node.Config, ethConf *ethconfig.Config) {
		// The dev chain config enables every fork, including Amsterdam
		// and Bogota, whose gas schedule makes an EIP-3009 transfer cost
		// about three times what it costs on Cronos. Copy the config
		// rather than mutating the global.
		chainConf := *params.AllDevChainProtocolChanges
		chainConf.ChainID = big.NewInt(chainID)
		chainConf.AmsterdamTime = nil
		chainConf.BogotaTime = nil
		ethConf.Genesis.Config = &chainConf
		ethConf.Genesis.Timestamp = genesisTime
		ethConf.NetworkId = uint64(chainID)

		nodeConf.HTTPHost = host
		nodeConf.HTTPPort = port
		nodeConf.HTTPModules = []string{"eth", "net", "web3", "txpool"}
		nodeConf.HTTPVirtualHosts = []string{"*"}
		nodeConf.HTTPCors = []string{"*"}
	}), nil
}
