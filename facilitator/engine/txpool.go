package engine

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/rpc"
)

// sendClass is what a node's answer to eth_sendRawTransaction says about
// the transaction. The texts differ between geth and Ethermint (Cronos):
//
// geth (go-ethereum v1.17, core/txpool/errors.go and core/error.go):
//
//	"already known"                              the same transaction is in the pool
//	"nonce too low", "nonce too high"
//	"replacement transaction underpriced"        another transaction holds the nonce
//	"transaction underpriced", "max fee per gas less than block base fee",
//	"transaction gas price below minimum"
//	"insufficient funds for gas * price + value"
//	"txpool is full"
//
// Ethermint as Cronos runs it (crypto-org-chain/ethermint app/ante/eth.go,
// x/evm/keeper/utils.go, wrapped by cosmos-sdk's registered errors of
// types/errors/errors.go, and the eth_sendRawTransaction backend's
// errorsmod.ABCIError(codespace, code, rawLog), which prints
// "<raw log>: <registered text>"):
//
//	"tx already in mempool"                      sdk code 19: cosmos-sdk client/broadcast.go
//	                                             CheckCometError turns CometBFT's
//	"tx already exists in cache"                 (the same transaction seen before) into it
//	"invalid nonce; got 18, expected 32: invalid sequence: invalid sequence"
//	                                             sdk code 3, from CheckAndSetEthSenderNonce;
//	                                             got < expected is "too low", got > expected
//	                                             "too high". Ethermint has no same-nonce
//	                                             replacement in its mempool: a second
//	                                             transaction on a taken nonce gets this too
//	"... : insufficient fee"                     sdk code 13 ("max fee per gas less than block
//	                                             base fee (x < y)", "insufficient gas prices;
//	                                             got: x required: y")
//	"sender balance < tx cost (x < y): insufficient funds"
//	                                             sdk code 5
//	"mempool is full"                            sdk code 20
type sendClass int

const (
	sendRejected    sendClass = iota // any other answer: not taken
	sendDuplicate                    // the node already has this very transaction
	sendNonceLow                     // the nonce is used (by this transaction, if it was sent before)
	sendNonceHigh                    // the nonce leaves a gap
	sendUnderpriced                  // the fee is too low
	sendReplaceLow                   // another transaction holds the nonce, with a fee as high
	sendNoFunds                      // the signer cannot pay the gas
	sendPoolFull                     // the node's pool is full
)

var ethermintNonce = regexp.MustCompile(`invalid nonce; got (\d+), expected (\d+)`)

// classifySend reads a node's error answer to eth_sendRawTransaction.
func classifySend(err error) sendClass {
	m := strings.ToLower(rpcMessage(err))
	switch {
	case m == "":
		return sendRejected
	case strings.Contains(m, "already known"), strings.Contains(m, "known transaction"),
		strings.Contains(m, "tx already in mempool"), strings.Contains(m, "tx already exists in cache"):
		return sendDuplicate
	case strings.Contains(m, "nonce too low"):
		return sendNonceLow
	case strings.Contains(m, "nonce too high"):
		return sendNonceHigh
	case strings.Contains(m, "invalid nonce"):
		if g := ethermintNonce.FindStringSubmatch(m); g != nil {
			got, _ := strconv.ParseUint(g[1], 10, 64)
			want, _ := strconv.ParseUint(g[2], 10, 64)
			if got > want {
				return sendNonceHigh
			}
		}
		return sendNonceLow
	case strings.Contains(m, "insufficient funds"):
		return sendNoFunds
	case strings.Contains(m, "replacement transaction underpriced"):
		return sendReplaceLow
	case strings.Contains(m, "underpriced"), strings.Contains(m, "insufficient fee"),
		strings.Contains(m, "less than block base fee"), strings.Contains(m, "gas price below minimum"):
		return sendUnderpriced
	case strings.Contains(m, "txpool is full"), strings.Contains(m, "mempool is full"):
		return sendPoolFull
	}
	return sendRejected
}

// rpcMessage is the text of a JSON-RPC error answer; "" for other errors.
func rpcMessage(err error) string {
	var re rpc.Error
	if errors.As(err, &re) {
		return re.Error()
	}
	return ""
}
