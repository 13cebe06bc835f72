package doctor

// Whether a chain runs EIP-1153 transient storage (TSTORE, TLOAD; Cancun),
// which EVM chains enable on their own schedule: the batch-settlement
// contracts need it.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
)

// TransientStorageProbe is creation code that stores 42 in transient slot
// 0, loads it back and returns it as one word: run by eth_call without a
// `to`, it answers 42 on a chain with EIP-1153 and fails (invalid opcode)
// on one without. Any node can run it: no state override, no deployment.
//
//	PUSH1 42, PUSH0, TSTORE, PUSH0, TLOAD, PUSH0, MSTORE, PUSH1 32, PUSH0, RETURN
var TransientStorageProbe = []byte{0x60, 0x2a, 0x5f, 0x5d, 0x5f, 0x5c, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3}

// Caller runs eth_call (ethclient.Client is one).
type Caller interface {
	CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error)
}

// SupportsTransientStorage says whether the chain behind c runs EIP-1153
// at its latest block, by running TransientStorageProbe (the chain's own
// answer, not a list of forks: a chain such as Cronos enables Cancun's
// opcodes on its own schedule). A node that answers the probe with
// "invalid opcode" (go-ethereum's and Ethermint's words: "invalid opcode:
// TSTORE", "invalid opcode: opcode 0x5d not defined") means no; any other
// error (the node unreachable, a rate limit) is returned, as it says
// nothing of the chain.
func SupportsTransientStorage(ctx context.Context, c Caller) (bool, error) {
	out, err := c.CallContract(ctx, ethereum.CallMsg{Data: TransientStorageProbe}, nil)
	if err != nil {
		var re rpc.Error
		if errors.As(err, &re) && strings.Contains(err.Error(), "invalid opcode") {
			return false, nil // the node ran the probe and refused it
		}
		return false, fmt.Errorf("probing EIP-1153 (transient storage): %w", err)
	}
	return common.BytesToHash(out) == common.BigToHash(big.NewInt(42)), nil
}

// CheckTransientStorage is SupportsTransientStorage as a finding.
func CheckTransientStorage(ctx context.Context, c Caller, network, scheme string) Finding {
	f := Finding{Network: network, Scheme: scheme, Check: KindEIP1153, Subject: "EIP-1153 transient storage (TSTORE/TLOAD)"}
	ok, err := SupportsTransientStorage(ctx, c)
	switch {
	case err != nil:
		f.Status, f.Detail, f.Fix = Unknown, err.Error(), "check the RPC endpoint and run again"
	case !ok:
		f.Status = Missing
		f.Detail = "the chain refused an eth_call of TSTORE/TLOAD (it has not enabled Cancun's EIP-1153)"
		f.Fix = "serve " + scheme + " here once the chain enables EIP-1153; the channel contracts revert without it"
	default:
		f.Status, f.Detail = OK, "an eth_call of TSTORE then TLOAD answered the stored word"
	}
	return f
}
