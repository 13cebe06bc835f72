package engine

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// Permit2Spent is the Spent common to the schemes whose payments are
// Permit2 transfers of Token (upto and exact through Permit2, channel
// deposits by Permit2): Permit2's nonceBitmap(payer, nonce >> 8) tells a
// nonce used, and, as Permit2 logs nothing of it, the transaction that
// used it is found from the token's Transfer logs out of the payer. A
// scheme embeds it and adds its MatchUse (UseMatcher), which reads each
// such transaction back.
type Permit2Spent struct {
	// Token is the token the payments move.
	Token common.Address
}

// NonceSpace is Permit2's: a Permit2 nonce is another authorization than
// the same EIP-3009 nonce of the payer (NonceSpacer).
func (Permit2Spent) NonceSpace() string { return NonceSpacePermit2 }

// erc20TransferTopic is ERC-20's Transfer(address,address,uint256).
var erc20TransferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// UsedCalls reads nonceBitmap(payer, wordPos) of each nonce at block (0:
// the latest).
func (s Permit2Spent) UsedCalls(block uint64, payer common.Address, nonces [][32]byte) ([]rpc.BatchElem, func() ([]bool, error)) {
	elems := make([]rpc.BatchElem, len(nonces))
	outs := make([]*hexutil.Bytes, len(nonces))
	for i, n := range nonces {
		elems[i], outs[i] = evm.NonceBitmapCall(payer, n, block)
	}
	return elems, func() ([]bool, error) {
		used := make([]bool, len(nonces))
		for i, out := range outs {
			u, err := evm.NonceUsed(*out, nonces[i])
			if err != nil {
				return nil, err
			}
			used[i] = u
		}
		return used, nil
	}
}

// UseLog is the token's Transfer logs out of the payer.
func (s Permit2Spent) UseLog(payer common.Address, _ [32]byte) (common.Address, []any) {
	return s.Token, []any{erc20TransferTopic, common.BytesToHash(payer.Bytes())}
}
