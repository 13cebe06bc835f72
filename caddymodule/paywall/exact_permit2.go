package paywall

import "fmt"

// Asset transfer methods of an exact route.
const (
	AssetTransferEIP3009 = "eip3009"
	AssetTransferPermit2 = "permit2"
)

// provisionExactPermit2 makes an exact route with asset_transfer permit2
// announce it: extra.assetTransferMethod "permit2" in its v2 requirements
// (the published clients then sign a Permit2 witness transfer to the
// x402 exact proxy).
func (h *Handler) provisionExactPermit2() error {
	if h.AssetTransfer != AssetTransferPermit2 {
		return nil
	}
	for i := range h.pricing.options {
		opt := &h.pricing.options[i]
		if opt.caip2 == "" {
			return fmt.Errorf("x402: asset_transfer permit2 on network %q needs its chain id (x402 version 2 only): name the network eip155:<chainId>", opt.reqs.Network)
		}
		opt.extraV2 = map[string]any{"assetTransferMethod": "permit2"}
	}
	return nil
}
