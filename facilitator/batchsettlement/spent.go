package batchsettlement

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// depositSpent is the engine's Spent for deposits: the token's
// authorizationState(payer, nonce) and AuthorizationUsed log, since the
// ERC-3009 collector spends the payer's receiveWithAuthorization.
type depositSpent struct{ token common.Address }

var _ engine.Spent = depositSpent{}

var authorizationUsedTopic = crypto.Keccak256Hash([]byte("AuthorizationUsed(address,bytes32)"))

// eip3009StateABI is the token's EIP-3009 authorizationState (the ERC-3009
// collector spends receiveWithAuthorization).
var eip3009StateABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"authorizationState","stateMutability":"view",
 "inputs":[{"name":"authorizer","type":"address"},{"name":"nonce","type":"bytes32"}],"outputs":[{"type":"bool"}]}]`))
	if err != nil {
		panic(err) // a constant ABI: a build defect
	}
	return a
}()

// UsedCalls reads authorizationState(payer, nonce) of each nonce at block
// (0: the latest).
func (s depositSpent) UsedCalls(block uint64, payer common.Address, nonces [][32]byte) ([]rpc.BatchElem, func() ([]bool, error)) {
	elems := make([]rpc.BatchElem, len(nonces))
	outs := make([]*hexutil.Bytes, len(nonces))
	for i, n := range nonces {
		data, err := eip3009StateABI.Pack("authorizationState", payer, n)
		if err != nil {
			panic(err) // typed arguments: a build defect
		}
		if block == 0 {
			elems[i], outs[i] = evm.CallData(s.token, data)
		} else {
			elems[i], outs[i] = evm.CallDataAt(s.token, block, data)
		}
	}
	return elems, func() ([]bool, error) {
		used := make([]bool, len(outs))
		for i, out := range outs {
			v, err := eip3009StateABI.Unpack("authorizationState", *out)
			if err != nil {
				return nil, fmt.Errorf("authorizationState at block %d: %w", block, err)
			}
			used[i] = v[0].(bool)
		}
		return used, nil
	}
}

// UseLog is the token's AuthorizationUsed(payer, nonce) log.
func (s depositSpent) UseLog(payer common.Address, nonce [32]byte) (common.Address, []any) {
	return s.token, []any{authorizationUsedTopic, common.BytesToHash(payer.Bytes()), common.Hash(nonce)}
}
