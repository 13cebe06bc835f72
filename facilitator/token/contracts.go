package token

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// contractsJSON is the committed solc output, written by gen.sh, of the
// contracts beside the token: EIP3009TokenNoBytes, SmartWallet and
// SmartWalletFactory.
//
//go:embed contracts.json
var contractsJSON []byte

// contractArtifact is one contract of contracts.json.
type contractArtifact struct {
	ABI              json.RawMessage `json:"abi"`
	Bytecode         hexutil.Bytes   `json:"bytecode"`
	DeployedBytecode hexutil.Bytes   `json:"deployedBytecode"`
}

var (
	contractsOnce sync.Once
	contracts     map[string]contractArtifact
)

func contract(name string) contractArtifact {
	contractsOnce.Do(func() {
		var f struct {
			Contracts map[string]contractArtifact `json:"contracts"`
		}
		if err := json.Unmarshal(contractsJSON, &f); err != nil {
			panic(fmt.Errorf("token: parse contracts.json: %w", err)) // embedded: a build defect
		}
		contracts = f.Contracts
	})
	c, ok := contracts[name]
	if !ok || len(c.DeployedBytecode) == 0 {
		panic("token: contracts.json has no " + name) // embedded: a build defect
	}
	return c
}

// NoBytesRuntimeCode is the runtime code of EIP3009TokenNoBytes: the token
// without the bytes-signature overloads (like FiatToken v2.0 and v2.1),
// with the storage layout of EIP3009Token, so GenesisStorage serves it too.
func NoBytesRuntimeCode() []byte {
	return common.CopyBytes(contract("EIP3009TokenNoBytes").DeployedBytecode)
}

// Multicall3RuntimeCode is the runtime code of Multicall3 (Multicall3.sol):
// no constructor, no storage, so a chain can place it by genesis
// allocation at Multicall3's canonical address.
func Multicall3RuntimeCode() []byte {
	return common.CopyBytes(contract("Multicall3").DeployedBytecode)
}

// WalletRuntimeCode is the runtime code of SmartWallet, the minimal
// EIP-1271 wallet. Its owner is in storage (WalletStorage), so a chain can
// place a wallet by genesis allocation.
func WalletRuntimeCode() []byte {
	return common.CopyBytes(contract("SmartWallet").DeployedBytecode)
}

// WalletStorage is the storage of a SmartWallet owned by owner: slot 0
// holds the owner.
func WalletStorage(owner common.Address) map[common.Hash]common.Hash {
	return map[common.Hash]common.Hash{{}: common.BytesToHash(owner.Bytes())}
}

// FactoryRuntimeCode is the runtime code of SmartWalletFactory. It has no
// storage, so a chain can place it by genesis allocation.
func FactoryRuntimeCode() []byte {
	return common.CopyBytes(contract("SmartWalletFactory").DeployedBytecode)
}

// WalletAddress is the address SmartWalletFactory at factory deploys
// owner's wallet for salt at (its getAddress): CREATE2 over the wallet's
// creation code with the owner as constructor argument.
func WalletAddress(factory, owner common.Address, salt *big.Int) common.Address {
	init := append(common.CopyBytes(contract("SmartWallet").Bytecode), common.LeftPadBytes(owner.Bytes(), 32)...)
	return crypto.CreateAddress2(factory, common.BigToHash(salt), crypto.Keccak256(init))
}

// FactoryABI is SmartWalletFactory's ABI.
func FactoryABI() *abi.ABI {
	a, err := SmartWalletFactoryMetaData.GetAbi()
	if err != nil {
		panic(err) // generated: a build defect
	}
	return a
}

// CreateAccountCalldata is the calldata of SmartWalletFactory's
// createAccount(owner, salt): the factory call of an ERC-6492 signature.
func CreateAccountCalldata(owner common.Address, salt *big.Int) []byte {
	data, err := FactoryABI().Pack("createAccount", owner, salt)
	if err != nil {
		panic(err) // typed arguments
	}
	return data
}
