package paywall

// Deposits by Permit2 on a batch-settlement route (asset_transfer permit2).

import (
	"fmt"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// channelTransfer is how a batch-settlement route's buyers deposit
// (extra.assetTransferMethod): "eip3009" (receiveWithAuthorization into
// the ERC-3009 collector) unless asset_transfer permit2 (a Permit2
// witness transfer into the Permit2 collector, after the buyer approved
// Permit2 once or with an eip2612GasSponsoring permit). Vouchers are the
// same either way.
func (m *Metering) channelTransfer() string {
	if m.AssetTransfer == AssetTransferPermit2 {
		return AssetTransferPermit2
	}
	return AssetTransferEIP3009
}

// checkChannelTransfer refuses deposits by Permit2 (transfer, from
// Metering.channelTransfer) on a channel route whose network's
// facilitator fac takes none (the chain lacks Permit2 or the Permit2
// deposit collector).
func checkChannelTransfer(fac *facilitator.Facilitator, transfer, network string) error {
	if transfer != AssetTransferPermit2 {
		return nil
	}
	if _, ok := fac.SchemeExtra(network, x402.SchemeBatchSettlementPermit2); !ok {
		return fmt.Errorf("x402: asset_transfer permit2 with scheme batch-settlement on network %q: the facilitator takes no Permit2 deposits there (the chain needs Permit2 %s and the Permit2 deposit collector %s); use asset_transfer eip3009",
			network, permit2.Address.Hex(), batch.Permit2CollectorAddress.Hex())
	}
	return nil
}
