package token

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// artifactJSON is the committed solc output written by gen.sh.
//
//go:embed EIP3009Token.json
var artifactJSON []byte

// Artifact is the part of EIP3009Token.json this package reads.
type Artifact struct {
	ContractName     string          `json:"contractName"`
	Compiler         string          `json:"compiler"`
	ABI              json.RawMessage `json:"abi"`
	Bytecode         hexutil.Bytes   `json:"bytecode"`
	DeployedBytecode hexutil.Bytes   `json:"deployedBytecode"`
	StorageLayout    StorageLayout   `json:"storageLayout"`
}

// StorageLayout is solc's storageLayout output, without AST ids.
type StorageLayout struct {
	Storage []StorageEntry `json:"storage"`
}

// StorageEntry is one state variable in solc's storageLayout output.
type StorageEntry struct {
	Label  string `json:"label"`
	Offset int    `json:"offset"`
	Slot   string `json:"slot"` // decimal
	Type   string `json:"type"`
}

var (
	artifactOnce sync.Once
	artifact     Artifact
	artifactErr  error
	slots        map[string]uint64
)

func load() {
	artifactOnce.Do(func() {
		if err := json.Unmarshal(artifactJSON, &artifact); err != nil {
			artifactErr = fmt.Errorf("token: parse EIP3009Token.json: %w", err)
			return
		}
		slots = make(map[string]uint64, len(artifact.StorageLayout.Storage))
		for _, e := range artifact.StorageLayout.Storage {
			n, err := strconv.ParseUint(e.Slot, 10, 64)
			if err != nil {
				artifactErr = fmt.Errorf("token: storage slot of %s: %w", e.Label, err)
				return
			}
			slots[e.Label] = n
		}
		for _, label := range []string{"minter", "_totalSupply", "_balances"} {
			if _, ok := slots[label]; !ok {
				artifactErr = fmt.Errorf("token: storage layout has no %s", label)
				return
			}
		}
		if len(artifact.DeployedBytecode) == 0 {
			artifactErr = fmt.Errorf("token: artifact has no deployed bytecode")
		}
	})
}

func mustLoad() {
	load()
	if artifactErr != nil {
		panic(artifactErr) // the artifact is embedded; a failure is a build defect
	}
}

// LoadArtifact returns the embedded compiler artifact.
func LoadArtifact() (Artifact, error) {
	load()
	return artifact, artifactErr
}

// RuntimeCode returns the contract's deployed (runtime) bytecode, for
// placing the token by genesis allocation. The caller may modify the result.
func RuntimeCode() []byte {
	mustLoad()
	return common.CopyBytes(artifact.DeployedBytecode)
}

// ABI returns the contract's parsed ABI.
func ABI() (*abi.ABI, error) {
	return EIP3009TokenMetaData.GetAbi()
}

// StorageSlot returns the slot number of the state variable with the given
// label ("minter", "_totalSupply", "_balances", "_allowances",
// "_authorizationStates", "_permitNonces"), as read from the artifact's storage layout.
func StorageSlot(label string) (uint64, bool) {
	mustLoad()
	n, ok := slots[label]
	return n, ok
}

// BalanceSlot returns the storage key that holds the token balance of a:
// keccak256(pad32(a) ++ pad32(slot of _balances)).
func BalanceSlot(a common.Address) common.Hash {
	mustLoad()
	return mappingSlot(common.BytesToHash(a.Bytes()), slots["_balances"])
}

func mappingSlot(key common.Hash, slot uint64) common.Hash {
	p := common.BigToHash(new(big.Int).SetUint64(slot))
	return crypto.Keccak256Hash(key.Bytes(), p.Bytes())
}

// GenesisStorage returns the storage of a token whose minter is minter and
// whose balances are the given ones (totalSupply is their sum), for use with
// RuntimeCode in a genesis allocation. Zero and nil balances are left out.
func GenesisStorage(minter common.Address, balances map[common.Address]*big.Int) map[common.Hash]common.Hash {
	mustLoad()
	storage := make(map[common.Hash]common.Hash, len(balances)+2)
	if minter != (common.Address{}) {
		storage[slotHash(slots["minter"])] = common.BytesToHash(minter.Bytes())
	}
	total := new(big.Int)
	for a, b := range balances {
		if b == nil || b.Sign() == 0 {
			continue
		}
		if b.Sign() < 0 || b.BitLen() > 256 {
			panic(fmt.Sprintf("token: balance of %s out of range: %s", a, b))
		}
		total.Add(total, b)
		storage[BalanceSlot(a)] = common.BigToHash(b)
	}
	if total.BitLen() > 256 {
		panic("token: total supply overflows uint256")
	}
	if total.Sign() > 0 {
		storage[slotHash(slots["_totalSupply"])] = common.BigToHash(total)
	}
	return storage
}

func slotHash(n uint64) common.Hash {
	return common.BigToHash(new(big.Int).SetUint64(n))
}
