package paywall

import (
	"errors"
	"fmt"

	"github.com/caddyserver/caddy/v2"
)

// Metering is the scheme of a route and, for upto, how the charge is read
// from the upstream's answer.
type Metering struct {
	// Scheme is the payment scheme: "exact" (default) charges the price;
	// "upto" makes price (or amount) the maximum the buyer signs for and
	// charges what was used: the upstream's Settlement-Overrides header
	// ({"amount": "1234" | "$0.05" | "50%"}, removed from the answer),
	// else the meter, else the maximum. Nothing is charged for an answer
	// with a status of 400 or more. upto needs x402 version 2 buyers and
	// a facilitator that lists upto for the network.
	Scheme string `json:"scheme,omitempty"`

	// Meter reads the charge of an upto payment from the answer's JSON
	// when the upstream sends no Settlement-Overrides.
	Meter *Meter `json:"meter,omitempty"`

	// AssetTransfer is how an exact payment moves the token: "eip3009"
	// (default, transferWithAuthorization) or "permit2" (a Permit2 witness
	// transfer through the x402 exact proxy, for any ERC-20: the 402's
	// extra says assetTransferMethod "permit2"; x402 version 2 only; the
	// buyer approves Permit2 once). upto always moves it through Permit2.
	// On a batch-settlement route it is how the buyer deposits: the
	// ERC-3009 collector (default) or the Permit2 collector.
	AssetTransfer string `json:"asset_transfer,omitempty"`

	// GasSponsoring is "eip2612" to declare the eip2612GasSponsoring
	// extension in the 402 of an upto route: a buyer who has not approved
	// Permit2 then signs an EIP-2612 permit of the token with its payment,
	// which the facilitator submits with the settle (no approval
	// transaction, no gas for the buyer). The token must have EIP-2612
	// permit. Default: off.
	GasSponsoring string `json:"gas_sponsoring,omitempty"`

	// MeterMaxBytes bounds what the paywall keeps of an upto answer: the
	// JSON body the meter reads (and, with settle before, the answer held
	// until the charge is settled), or one server-sent event. Past it the
	// meter cannot read the answer and the charge is the maximum (logged);
	// an event over it is skipped. Default 1 MiB.
	MeterMaxBytes int `json:"meter_max_bytes,omitempty"`

	// ClaimEvery is how often a batch-settlement route claims the
	// vouchers it charged (one transaction per network for up to 400
	// channels) and settles the claimed funds to pay_to; a last round runs
	// at graceful stop. Default 1m.
	ClaimEvery caddy.Duration `json:"claim_every,omitempty"`

	// RefundIdle refunds, on a batch-settlement route, the channels not
	// charged for this long: what the buyer deposited and was not charged
	// goes back to it (the charged vouchers claimed in the same
	// transaction) and the channel closes. Default: off (a buyer asks for
	// its refund, or withdraws after the withdraw delay).
	RefundIdle caddy.Duration `json:"refund_idle,omitempty"`

	// RefundWindow bounds, on a batch-settlement route, the refunds that
	// a stranger could also have asked for (authorized by a voucher at the
	// channel's claimed total, which claim transactions make public): at
	// most one such refund transaction per channel per window, on each
	// instance. A refund whose voucher is above the claimed total (known
	// only to the payer) is not bounded. Default 10m.
	RefundWindow caddy.Duration `json:"refund_window,omitempty"`

	// RefundMin is, on a batch-settlement route, the least partial refund
	// of those RefundWindow bounds, in whole tokens (as price): about the
	// gas a refund transaction costs, so that a stranger cannot make the
	// seller pay more gas than the refunds move. A refund of all that is
	// left is not bounded by it. Default 0.01.
	RefundMin string `json:"refund_min,omitempty"`
}

// upto reports whether the route takes upto payments.
func (m *Metering) upto() bool { return m.Scheme == SchemeUpto }

// maxBytes is MeterMaxBytes or its default.
func (m *Metering) maxBytes() int {
	if m.MeterMaxBytes > 0 {
		return m.MeterMaxBytes
	}
	return DefaultMeterMaxBytes
}

// validate checks the settings of a route's scheme (a known one:
// knownScheme), given the route's access (access.Window.Access, which an
// upto payment does not go with). A batch-settlement route's own
// settings are checked by validateChannel.
func (m *Metering) validate(access caddy.Duration) error {
	if m.Scheme == SchemeChannel {
		return nil // validateChannel (channel.go)
	}
	if m.ClaimEvery != 0 {
		return errors.New("x402: claim_every is for scheme batch-settlement")
	}
	if m.RefundIdle != 0 {
		return errors.New("x402: refund_idle is for scheme batch-settlement")
	}
	if m.RefundWindow != 0 || m.RefundMin != "" {
		return errors.New("x402: refund_window and refund_min are for scheme batch-settlement")
	}
	if err := m.validateSponsoring(); err != nil {
		return err
	}
	switch m.AssetTransfer {
	case "", AssetTransferEIP3009:
	case AssetTransferPermit2:
		if m.upto() {
			return errors.New("x402: asset_transfer is for scheme exact: upto always moves the token through Permit2")
		}
	default:
		return fmt.Errorf("x402: asset_transfer must be %q or %q, got %q", AssetTransferEIP3009, AssetTransferPermit2, m.AssetTransfer)
	}
	if m.MeterMaxBytes < 0 {
		return fmt.Errorf("x402: meter_max_bytes must not be negative, got %d", m.MeterMaxBytes)
	}
	if !m.upto() {
		if m.Meter != nil || m.MeterMaxBytes != 0 {
			return errors.New("x402: meter and meter_max_bytes are for scheme upto or batch-settlement: an exact route charges its price whatever the answer")
		}
		return nil
	}
	if m.Meter != nil {
		if err := m.Meter.validate(); err != nil {
			return err
		}
	}
	if access != 0 {
		return errors.New("x402: access does not go with scheme upto: an upto payment pays for one metered answer, not for a time")
	}
	return nil
}

// validateSponsoring checks gas_sponsoring.
func (m *Metering) validateSponsoring() error {
	switch m.GasSponsoring {
	case "", "off":
		return nil
	case GasSponsoringEIP2612:
		if !m.upto() {
			return errors.New("x402: gas_sponsoring is for scheme upto")
		}
		return nil
	}
	return fmt.Errorf("x402: gas_sponsoring must be %q or \"off\", got %q", GasSponsoringEIP2612, m.GasSponsoring)
}
