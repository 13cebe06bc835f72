package token

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/ethereum/go-ethereum/params"
)

// batchJSON is the committed solc output (gen.sh, evmVersion cancun) of
// BatchSettlement.sol: x402BatchSettlement and the two deposit collectors.
//
//go:embed batchsettlement.json
var batchJSON []byte

var (
	batchOnce      sync.Once
	batchContracts map[string]contractArtifact
)

func batchContract(name string) contractArtifact {
	batchOnce.Do(func() {
		var f struct {
			Contracts map[string]contractArtifact `json:"contracts"`
		}
		if err := json.Unmarshal(batchJSON, &f); err != nil {
			panic(fmt.Errorf("token: parse batchsettlement.json: %w", err)) // embedded: a build defect
		}
		batchContracts = f.Contracts
	})
	c, ok := batchContracts[name]
	if !ok || len(c.DeployedBytecode) == 0 {
		panic("token: batchsettlement.json has no " + name) // embedded: a build defect
	}
	return c
}

// BatchSettlementGenesis is the runtime code of the three batch-settlement
// contracts as their constructors leave them (none writes storage), for a
// development chain to place by genesis allocation.
type BatchSettlementGenesis struct {
	// Settlement is x402BatchSettlement's runtime code: it has no
	// constructor and computes its EIP-712 domain at each call.
	Settlement []byte
	// ERC3009Collector is ERC3009DepositCollector's, with the settlement
	// address in its immutable x402BatchSettlement.
	ERC3009Collector []byte
	// Permit2Collector is Permit2DepositCollector's, with the settlement
	// and Permit2 addresses in its immutables.
	Permit2Collector []byte
}

type batchKey struct{ settlement, permit2 common.Address }

var (
	batchGenMu    sync.Mutex
	batchGenCache = map[batchKey]BatchSettlementGenesis{}
)

// BatchSettlementGenesisFor runs the collectors' constructors with the
// settlement contract's and Permit2's addresses in an in-memory EVM
// (Cancun rules, as the contracts need) and returns the three runtime
// codes. A zero address is refused, as the constructors refuse it. The
// result is cached; the caller may modify it.
func BatchSettlementGenesisFor(settlement, permit2 common.Address) (BatchSettlementGenesis, error) {
	if settlement == (common.Address{}) || permit2 == (common.Address{}) {
		return BatchSettlementGenesis{}, fmt.Errorf("token: batch-settlement collectors need non-zero addresses (settlement %s, Permit2 %s)", settlement, permit2)
	}
	batchGenMu.Lock()
	defer batchGenMu.Unlock()
	k := batchKey{settlement, permit2}
	g, ok := batchGenCache[k]
	if !ok {
		arg := func(a common.Address) []byte { return common.LeftPadBytes(a.Bytes(), 32) }
		var err error
		g.Settlement = common.CopyBytes(batchContract("x402BatchSettlement").DeployedBytecode)
		if g.ERC3009Collector, err = construct("ERC3009DepositCollector", arg(settlement)); err != nil {
			return BatchSettlementGenesis{}, err
		}
		if g.Permit2Collector, err = construct("Permit2DepositCollector", append(arg(settlement), arg(permit2)...)); err != nil {
			return BatchSettlementGenesis{}, err
		}
		batchGenCache[k] = g
	}
	return BatchSettlementGenesis{
		Settlement:       common.CopyBytes(g.Settlement),
		ERC3009Collector: common.CopyBytes(g.ERC3009Collector),
		Permit2Collector: common.CopyBytes(g.Permit2Collector),
	}, nil
}

// construct runs a batch contract's creation code with ABI-encoded
// constructor arguments and returns the runtime code it leaves.
func construct(name string, args []byte) ([]byte, error) {
	init := append(common.CopyBytes(batchContract(name).Bytecode), args...)
	cfg := &runtime.Config{GasLimit: math.MaxInt64, ChainConfig: params.MergedTestChainConfig}
	code, _, _, err := runtime.Create(init, cfg)
	if err != nil {
		return nil, fmt.Errorf("token: construct %s: %w", name, err)
	}
	return code, nil
}
