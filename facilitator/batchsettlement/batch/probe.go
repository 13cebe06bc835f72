package batch

// Whether a chain can host the channel contracts: they need EIP-1153 transient storage
// (TSTORE, TLOAD; Cancun), which EVM chains enable on their own schedule. The probe
// itself is the chain doctor's (facilitator/doctor), which start-up and
// `caddy x402 doctor` share.

import (
	"context"

	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
)

// TransientStorageProbe is doctor.TransientStorageProbe: creation code
// that answers 42 by eth_call on a chain with EIP-1153 and fails (invalid
// opcode) on one without.
var TransientStorageProbe = doctor.TransientStorageProbe

// Caller runs eth_call (ethclient.Client is one).
type Caller = doctor.Caller

// SupportsTransientStorage says whether the chain behind c runs EIP-1153
// at its latest block (doctor.SupportsTransientStorage): "invalid opcode"
// means no; any other error is returned, as it says nothing of the chain.
func SupportsTransientStorage(ctx context.Context, c Caller) (bool, error) {
	return doctor.SupportsTransientStorage(ctx, c)
}
