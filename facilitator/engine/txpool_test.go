package engine

import (
	"errors"
	"testing"
)

// jsonRPCError is a node's JSON-RPC error answer, as go-ethereum's client
// returns it (rpc.Error).
type jsonRPCError struct{ msg string }

func (e jsonRPCError) Error() string  { return e.msg }
func (e jsonRPCError) ErrorCode() int { return -32000 }

// TestClassifySend checks the txpool answers of geth and of Ethermint
// (Cronos), word for word as those nodes give them (sources in txpool.go).
func TestClassifySend(t *testing.T) {
	for _, tc := range []struct {
		node, msg string
		want      sendClass
	}{
		{"geth", "already known", sendDuplicate},
		{"geth", "nonce too low: next nonce 7, tx nonce 5", sendNonceLow},
		{"geth", "nonce too high", sendNonceHigh},
		{"geth", "replacement transaction underpriced", sendReplaceLow},
		{"geth", "transaction underpriced: tip needed 1, tip permitted 0", sendUnderpriced},
		{"geth", "max fee per gas less than block base fee: address 0x1, maxFeePerGas: 1, baseFee: 2", sendUnderpriced},
		{"geth", "transaction gas price below minimum: gas tip cap 0, minimum needed 1", sendUnderpriced},
		{"geth", "insufficient funds for gas * price + value: balance 0, tx cost 1, overshot 1", sendNoFunds},
		{"geth", "txpool is full", sendPoolFull},
		{"geth", "exceeds block gas limit", sendRejected},
		{"ethermint", ": tx already in mempool", sendDuplicate},
		{"cometbft", "tx already exists in cache", sendDuplicate},
		{"ethermint", "invalid nonce; got 18, expected 32: invalid sequence: invalid sequence", sendNonceLow},
		{"ethermint", "invalid nonce; got 40, expected 32: invalid sequence: invalid sequence", sendNonceHigh},
		{"ethermint", "max fee per gas less than block base fee (100 < 200): insufficient fee: insufficient fee", sendUnderpriced},
		{"ethermint", "insufficient gas prices; got: 1 required: 5: insufficient fee", sendUnderpriced},
		{"ethermint", "sender balance < tx cost (0 < 1000): insufficient funds: insufficient funds", sendNoFunds},
		{"ethermint", "mempool is full", sendPoolFull},
		{"ethermint", "invalid sequence", sendRejected}, // without the nonce text: nothing to read from it
	} {
		if got := classifySend(jsonRPCError{tc.msg}); got != tc.want {
			t.Errorf("%s %q = %d, want %d", tc.node, tc.msg, got, tc.want)
		}
	}
	// A transport failure is not a node's answer.
	if got := classifySend(errors.New("nonce too low")); got != sendRejected {
		t.Errorf("a non-JSON-RPC error = %d, want sendRejected", got)
	}
}
