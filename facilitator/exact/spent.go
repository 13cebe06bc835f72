package exact

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// eip3009Spent is the engine's Spent for EIP-3009 payments: a token's
// authorizationState(authorizer, nonce) and AuthorizationUsed log.
type eip3009Spent struct {
	token common.Address
}

var _ engine.Spent = eip3009Spent{}

// authorizationUsedTopic is the token's AuthorizationUsed(address,bytes32) event.
var authorizationUsedTopic = crypto.Keccak256Hash([]byte("AuthorizationUsed(address,bytes32)"))

// UsedCalls reads authorizationState(payer, nonce) of each nonce at block
// (0: the latest).
func (s eip3009Spent) UsedCalls(block uint64, payer common.Address, nonces [][32]byte) ([]rpc.BatchElem, func() ([]bool, error)) {
	elems := make([]rpc.BatchElem, len(nonces))
	outs := make([]*hexutil.Bytes, len(nonces))
	for i, n := range nonces {
		if block == 0 {
			elems[i], outs[i] = evm.CallData(s.token, authorizationStateData(payer, n))
		} else {
			elems[i], outs[i] = evm.CallDataAt(s.token, block, authorizationStateData(payer, n))
		}
	}
	return elems, func() ([]bool, error) {
		used := make([]bool, len(outs))
		for i, out := range outs {
			u, err := eip3009ABI.Unpack("authorizationState", *out)
			if err != nil {
				if block == 0 {
					return nil, err
				}
				return nil, fmt.Errorf("authorizationState at block %d: %w", block, err)
			}
			used[i] = u[0].(bool)
		}
		return used, nil
	}
}

// UseLog is the token's AuthorizationUsed(payer, nonce) log.
func (s eip3009Spent) UseLog(payer common.Address, nonce [32]byte) (common.Address, []any) {
	return s.token, []any{authorizationUsedTopic, common.BytesToHash(payer.Bytes()), common.Hash(nonce)}
}

// Recognize reads a transferWithAuthorization to the token (either
// overload) back: payer, payee and value.
func (b *bound) Recognize(to common.Address, input []byte) (from, payee common.Address, value *big.Int, ok bool) {
	if to != b.Token {
		return common.Address{}, common.Address{}, nil, false
	}
	m, err := eip3009ABI.MethodById(input)
	if err != nil || m.RawName != "transferWithAuthorization" { // either overload
		return common.Address{}, common.Address{}, nil, false
	}
	args, err := m.Inputs.Unpack(input[4:])
	if err != nil || len(args) < 3 {
		return common.Address{}, common.Address{}, nil, false
	}
	from, okFrom := args[0].(common.Address)
	payee, okTo := args[1].(common.Address)
	value, okValue := args[2].(*big.Int)
	if !okFrom || !okTo || !okValue {
		return common.Address{}, common.Address{}, nil, false
	}
	return from, payee, value, true
}
