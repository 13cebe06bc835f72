package facilitator

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/upto"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// SchemeExactPermit2 names an exact payment made through Permit2
// (assetTransferMethod permit2) in records and look-ups by authorization.
const SchemeExactPermit2 = upto.SchemeExactPermit2

// SchemeBatchPermit2Deposit names a batch-settlement deposit made through
// Permit2 (assetTransferMethod permit2) in records, look-ups by
// authorization and SchemeExtra (served where the chain has Permit2 and
// the Permit2 deposit collector).
const SchemeBatchPermit2Deposit = batchsettlement.SchemePermit2Deposit

// AuthorizationKey is the key of a scheme's authorization, as the
// journal's record IDs name it: network/payer/nonce for EIP-3009 (exact),
// network/payer/permit2/nonce for Permit2's (upto, exact-permit2), whose
// nonces are another space: a buyer may sign the same nonce for both. In
// lower case, so addresses compare case-insensitively.
func AuthorizationKey(network, scheme string, from common.Address, nonce [32]byte) string {
	space := ""
	switch scheme {
	case x402.SchemeUpto, SchemeExactPermit2, SchemeBatchPermit2Deposit:
		space = engine.NonceSpacePermit2
	}
	return engine.RecordIDIn(network, space, from, nonce)
}
