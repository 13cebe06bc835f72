package permit2

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// NonceSpace is the nonce space of Permit2's nonceBitmap, shared by every
// scheme that settles through Permit2 (the chain lets one of them use a
// nonce): a Permit2 nonce is another authorization than the same EIP-3009
// nonce of the payer (scheme.NonceSpacer).
const NonceSpace = "permit2"

// Spent is the engine.Spent common to the schemes whose payments are
// Permit2 transfers of Token (upto and exact through Permit2, channel
// deposits by Permit2): Permit2's nonceBitmap(payer, nonce >> 8) tells a
// nonce used, and, as Permit2 logs nothing of it, the transaction that
// used it is found from the token's Transfer logs out of the payer. A
// scheme embeds it and adds its MatchUse (engine.UseMatcher), which reads each
// such transaction back.
type Spent struct {
	// Token is the token the payments move.
	Token common.Address
}

// erc20TransferTopic is ERC-20's Transfer(address,address,uint256).
var erc20TransferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// UsedCalls reads nonceBitmap(payer, wordPos) of each nonce at block (0:
// the latest).
func (s Spent) UsedCalls(block uint64, payer common.Address, nonces [][32]byte) ([]rpc.BatchElem, func() ([]bool, error)) {
	elems := make([]rpc.BatchElem, len(nonces))
	outs := make([]*hexutil.Bytes, len(nonces))
	for i, n := range nonces {
		elems[i], outs[i] = NonceBitmapCall(payer, n, block)
	}
	return elems, func() ([]bool, error) {
		used := make([]bool, len(nonces))
		for i, out := range outs {
			u, err := NonceUsed(*out, nonces[i])
			if err != nil {
				return nil, err
			}
			used[i] = u
		}
		return used, nil
	}
}

// UseLog is the token's Transfer logs out of the payer.
func (s Spent) UseLog(payer common.Address, _ [32]byte) (common.Address, []any) {
	return s.Token, []any{erc20TransferTopic, common.BytesToHash(payer.Bytes())}
}
