package batchsettlement

import (
	"fmt"

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

var (
	authorizationUsedTopic = crypto.Keccak256Hash([]byte("AuthorizationUsed(address,bytes32)"))
	authorizationStateSel  = crypto.Keccak256([]byte("authorizationState(address,bytes32)"))[:4]
	boolResult             = abi.Arguments{{Type: mustType("bool")}}
)

func mustType(t string) abi.Type {
	ty, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err) // a constant type string: a build defect
	}
	return ty
}

// UsedCalls reads authorizationState(payer, nonce) of each nonce at block
// (0: the latest).
func (s depositSpent) UsedCalls(block uint64, payer common.Address, nonces [][32]byte) ([]rpc.BatchElem, func() ([]bool, error)) {
	elems := make([]rpc.BatchElem, len(nonces))
	outs := make([]*hexutil.Bytes, len(nonces))
	for i, n := range nonces {
		data := append(append(append([]byte{}, authorizationStateSel...), common.LeftPadBytes(payer.Bytes(), 32)...), n[:]...)
		if block == 0 {
			elems[i], outs[i] = evm.CallData(s.token, data)
		} else {
			elems[i], outs[i] = evm.CallDataAt(s.token, block, data)
		}
	}
	return elems, func() ([]bool, error) {
		used := make([]bool, len(outs))
		for i, out := range outs {
			v, err := boolResult.Unpack(*out)
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
