package httpx

// Headers the paywall reads and writes.
const (
	// HeaderPayment is the buyer's signed payment (Base64 JSON).
	HeaderPayment = "X-Payment"
	// HeaderPaymentResponse carries the settlement to the buyer (Base64 JSON).
	HeaderPaymentResponse = "X-Payment-Response"
	// MaxPaymentHeaderBytes is the largest X-PAYMENT header accepted.
	MaxPaymentHeaderBytes = 16 << 10
)

// Request headers set for the upstream once a payment is settled. Any the
// buyer sent are removed first.
const (
	HeaderTxHash      = "X-Payment-Tx-Hash"
	HeaderFrom        = "X-Payment-From"
	HeaderValue       = "X-Payment-Value"
	HeaderNetwork     = "X-Payment-Network"
	HeaderBlockNumber = "X-Payment-Block-Number"
)

// Request headers set for the upstream of a route with access, and the
// response header that tells the buyer the grant's end.
const (
	// HeaderAccessUntil is the grant's end (RFC 3339, UTC): on paid
	// requests and requests served by a grant, to the upstream and in the
	// response.
	HeaderAccessUntil = "X-Payment-Access-Until"
	// HeaderAccessVia says how a request without payment was let through:
	// "sign-in-with-x" or "cookie".
	HeaderAccessVia = "X-Payment-Access-Via"
)
