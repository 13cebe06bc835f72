package x402

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
)

// ReasonUnsupportedScheme is the verify text for a scheme other than exact.
func ReasonUnsupportedScheme(s string) string { return "Unsupported scheme: " + s }

// ReasonUnsupportedNetwork is the verify text for an unknown network.
func ReasonUnsupportedNetwork(n string) string { return "Unsupported network: " + n }

// ReasonUnsupportedAsset is the verify text for a token that is not the network's.
func ReasonUnsupportedAsset(a string) string { return "Unsupported asset: " + a }

// ReasonInvalidAmount is the verify text for a bad or mismatched amount.
func ReasonInvalidAmount(a string) string { return "Invalid amount: " + a }

// ReasonSimulationFailed is the verify text for a simulated transfer that
// reverted for a reason without a text of its own.
func ReasonSimulationFailed(reason string) string {
	return "Transaction simulation failed: " + reason
}
