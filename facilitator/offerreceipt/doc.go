// Package offerreceipt signs and verifies the x402 offer-receipt
// extension (specs/extensions/extension-offer-and-receipt.md): a seller
// signs each offer of its 402 (one per accepts entry) and, when a payment
// succeeds, a receipt naming the payer, the resource, the network, the time
// and the transaction. Both formats of the spec are here: EIP-712 typed data
// and JWS (ES256K over canonical JSON), byte-compatible with the published
// verifiers of @x402/extensions ./offer-receipt.
//
// The spec's receipt says nothing of the amount. A gateway that meters an
// answer is the one party that can say what it charged, so a Receipt may
// carry a Charge: in a JWS receipt it is a claim of the signed payload; an
// EIP-712 receipt's schema is fixed, so its Charge is a second EIP-712
// object beside it (domain "x402 charge"), signed by the same key and
// repeating the receipt's fields it binds to (docs/receipts.md).
//
// Keys are secp256k1. A seller publishes them in a did:web document
// (DIDDocument): the JWS kid is a full DID URL of it, and each key's
// Ethereum address is listed for EIP-712 verifiers. Buyers and auditors
// resolve that document (ResolveDIDWeb) and check offers and receipts
// with VerifyOffer and VerifyReceipt.
//
// The package is a leaf: it imports go-ethereum and the standard library.
package offerreceipt

// Name is the extension's key in a 402's and a settlement response's
// "extensions".
const Name = "offer-receipt"

// Version is the payload schema version this package signs (the spec's 1).
const Version = 1

// Format is how an offer or a receipt is signed: EIP712 or JWS.
type Format string

// The two signature formats of the spec (§3.1).
const (
	EIP712 Format = "eip712"
	JWS    Format = "jws"
)

// ParseFormat reads a format's name as a config writes it.
func ParseFormat(s string) (Format, bool) {
	switch Format(s) {
	case EIP712, JWS:
		return Format(s), true
	}
	return "", false
}
