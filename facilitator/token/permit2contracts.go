package token

import (
	"fmt"
	"math"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
)

// Permit2RuntimeCode is the runtime code of Permit2 (Permit2.sol). It has no
// constructor and no immutables, and starts with empty storage, so a chain
// can place it by genesis allocation (at Permit2's canonical address).
func Permit2RuntimeCode() []byte {
	return common.CopyBytes(contract("Permit2").DeployedBytecode)
}

// ProxyKind names one of the two x402 Permit2 proxies of X402Permit2Proxy.sol.
type ProxyKind string

// The x402 Permit2 proxies.
const (
	// ExactProxy is x402ExactPermit2Proxy: x402 exact through Permit2.
	ExactProxy ProxyKind = "x402ExactPermit2Proxy"
	// UptoProxy is x402UptoPermit2Proxy: x402 upto.
	UptoProxy ProxyKind = "x402UptoPermit2Proxy"
)

// ProxyGenesis is what a proxy's constructor leaves: its runtime code, with
// the Permit2 address filled into the immutable PERMIT2, and its storage
// (the reentrancy guard). Placed by genesis allocation, it behaves as a
// proxy deployed with that constructor argument.
type ProxyGenesis struct {
	Code    []byte
	Storage map[common.Hash]common.Hash
}

type proxyKey struct {
	kind    ProxyKind
	permit2 common.Address
}

var (
	proxyMu    sync.Mutex
	proxyCache = map[proxyKey]ProxyGenesis{}
)

// proxySlots are the storage slots a proxy's constructor writes: slot 0,
// the reentrancy guard of x402BasePermit2Proxy.
var proxySlots = []common.Hash{{}}

// ProxyGenesisFor runs the constructor of the proxy kind with argument
// permit2 in an in-memory EVM (go-ethereum's core/vm/runtime) and returns
// the code and storage it leaves. The result is cached; the caller may
// modify it. A zero permit2 is refused, as the constructor refuses it.
func ProxyGenesisFor(kind ProxyKind, permit2 common.Address) (ProxyGenesis, error) {
	if kind != ExactProxy && kind != UptoProxy {
		return ProxyGenesis{}, fmt.Errorf("token: unknown proxy %q", kind)
	}
	proxyMu.Lock()
	defer proxyMu.Unlock()
	k := proxyKey{kind, permit2}
	g, ok := proxyCache[k]
	if !ok {
		init := append(common.CopyBytes(contract(string(kind)).Bytecode), common.LeftPadBytes(permit2.Bytes(), 32)...)
		cfg := &runtime.Config{GasLimit: math.MaxInt64}
		code, addr, _, err := runtime.Create(init, cfg)
		if err != nil {
			return ProxyGenesis{}, fmt.Errorf("token: construct %s(%s): %w", kind, permit2, err)
		}
		g = ProxyGenesis{Code: code, Storage: map[common.Hash]common.Hash{}}
		for _, slot := range proxySlots {
			if v := cfg.State.GetState(addr, slot); v != (common.Hash{}) {
				g.Storage[slot] = v
			}
		}
		proxyCache[k] = g
	}
	out := ProxyGenesis{Code: common.CopyBytes(g.Code), Storage: make(map[common.Hash]common.Hash, len(g.Storage))}
	for s, v := range g.Storage {
		out.Storage[s] = v
	}
	return out, nil
}
