package facilitator

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
)

// AuthorizationKey is the key of a scheme's authorization, as the
// journal's record IDs name it: network/payer/nonce for EIP-3009 (exact),
// network/payer/<space>/nonce for a scheme of another nonce space
// (scheme.NonceSpace: Permit2's for upto, exact-permit2 and
// batch-settlement-permit2), where a buyer may sign the same nonce again.
// In lower case, so addresses compare case-insensitively.
func AuthorizationKey(network, schemeName string, from common.Address, nonce [32]byte) string {
	return engine.RecordIDIn(network, scheme.NonceSpace(schemeName), from, nonce)
}
