package x402

import (
	"time"
	"unicode/utf8"
)

// Verify reasons (spec 7.1). Those with a value are built by the functions below.
const (
	ReasonInvalidSignature = "Invalid EIP-3009 signature"
	ReasonInvalidBase64    = "Invalid Base64 paymentHeader"
	ReasonRecipient        = "Recipient does not match payTo address"
)

// Settle errors (spec 7.2). Verify uses the window texts too.
const (
	ErrTextAlreadyUsed       = "Authorization already used"
	ErrTextExpired           = "Authorization expired"
	ErrTextNotYetValid       = "Authorization not yet valid"
	ErrTextInsufficientFunds = "ERC20: transfer amount exceeds balance"
	ErrTextInvalidSignature  = "Invalid signature"
	ErrTextFailedOnChain     = "Transaction failed on-chain"
	// ErrTextPending is given when the transaction was broadcast but not
	// confirmed before the settle timeout; the txHash is in the answer.
	ErrTextPending = "Settlement pending"
	// ErrTextNotBroadcast is what a look-up answers for a settlement that
	// was refused before its transaction was broadcast: nothing was sent
	// and the authorization was not used.
	ErrTextNotBroadcast = "Settlement not broadcast"
	// ErrTextUsedElsewhere is what a look-up answers (payment.failed) for
	// a Permit2 authorization whose nonce is used on chain by no x402
	// settlement within the look-up window: another Permit2 spender used
	// it, or the payer invalidated it. It never settles.
	ErrTextUsedElsewhere = ErrTextAlreadyUsed + ": its Permit2 nonce was used on chain, but by no x402 settlement within the look-up window (another Permit2 spender used it, or the payer invalidated it); this authorization will never settle"
)

// MaxEchoBytes is how much of a value from the request a reason repeats: a
// longer value is cut (Clip), so that an answer, and the paywall's cache of
// refusals, never holds kilobytes of the sender's choosing. It leaves any
// address, network name and amount of 256 bits (78 digits) whole.
const MaxEchoBytes = 80

// Clip cuts s to at most n bytes, on a UTF-8 boundary, and marks the cut
// with an ellipsis ("…", 3 bytes more). A string of n bytes or fewer is
// returned as it is.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ReasonUnsupportedScheme is the verify text for a scheme other than exact.
func ReasonUnsupportedScheme(s string) string { return "Unsupported scheme: " + Clip(s, MaxEchoBytes) }

// ReasonUnsupportedNetwork is the verify text for an unknown network.
func ReasonUnsupportedNetwork(n string) string {
	return "Unsupported network: " + Clip(n, MaxEchoBytes)
}

// ReasonUnsupportedAsset is the verify text for a token that is not the network's.
func ReasonUnsupportedAsset(a string) string { return "Unsupported asset: " + Clip(a, MaxEchoBytes) }

// ReasonInvalidAmount is the verify text for a bad or mismatched amount.
func ReasonInvalidAmount(a string) string { return "Invalid amount: " + Clip(a, MaxEchoBytes) }

// ReasonSimulationFailed is the verify text for a simulated transfer that
// reverted for a reason without a text of its own.
func ReasonSimulationFailed(reason string) string {
	return "Transaction simulation failed: " + reason
}

// ReasonSmartWalletPrefix begins every refusal of a smart-contract wallet
// payment for what the facilitator or its network cannot do (not for a bad
// signature, which is ReasonInvalidSignature).
const ReasonSmartWalletPrefix = "Smart-contract wallet: "

// ReasonSmartWalletUnsupported is the verify text for a smart-contract
// wallet's payment on a network whose token has no bytes-signature
// overload of transferWithAuthorization (FiatToken before v2.2).
func ReasonSmartWalletUnsupported(network string) string {
	return ReasonSmartWalletPrefix + "the token of network " + network +
		" has no transferWithAuthorization(..., bytes signature), so it cannot settle a wallet's signature"
}

// ReasonFactoryNotAllowed is the verify text for an ERC-6492 payment from
// a wallet not deployed yet whose factory the operator did not list.
func ReasonFactoryNotAllowed(factory, network string) string {
	return ReasonSmartWalletPrefix + "the wallet is not deployed and its ERC-6492 factory " + factory +
		" is not one this facilitator deploys through on network " + network + " (smart_wallet_factories)"
}

// ReasonBelowDeploymentFloor is the verify text for an ERC-6492 payment
// from a wallet not deployed yet, for less than the network's floor.
func ReasonBelowDeploymentFloor(floor, network string) string {
	return ReasonSmartWalletPrefix + "the wallet is not deployed, and this facilitator pays the gas of a deployment only for payments of at least " +
		floor + " (smallest token units) on network " + network + " (smart_wallet_min_amount)"
}

// ReasonWalletBusy is the verify text for a smart-contract wallet's
// payment while another payment of the same wallet is being settled: a
// wallet settles one payment at a time (its signature is checked on chain
// only, so the facilitator risks one transaction of it at a time).
const ReasonWalletBusy = ReasonSmartWalletPrefix + "another payment from this wallet is being settled; a wallet settles one payment at a time, try again when it is done"

// ReasonCoolingOff is the verify text for a smart-contract wallet's
// payment while the wallet (sameCode: every wallet with its code) cools
// off: the wallet's transaction tx was mined and reverted though its
// simulation had passed, at the facilitator's cost.
func ReasonCoolingOff(until time.Time, tx string, sameCode bool) string {
	whose := "this wallet's"
	if sameCode {
		whose = "a wallet with the same code's"
	}
	return ReasonSmartWalletPrefix + "refused until " + until.UTC().Format(time.RFC3339) + ", as " + whose +
		" payment reverted on chain in transaction " + tx + " though its simulation passed"
}

// SettleText turns a verify reason into the settle error text: the
// signature failure has a settle wording of its own.
func SettleText(verifyReason string) string {
	if verifyReason == ReasonInvalidSignature {
		return ErrTextInvalidSignature
	}
	return verifyReason
}
