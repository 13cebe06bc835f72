package paywall

import (
	"encoding/json"
	"fmt"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The JSON body of a 402 on a route whose schemes exist in x402 version 2
// only (upto, batch-settlement). An x402 version 1 client reads the body's
// requirements (paymentRequirements, accepts) and, finding no scheme it
// knows, may sign an exact EIP-3009 payment for them anyway, which such a
// route can only refuse. So the body of these routes carries no
// requirements: it says x402Version 2, the answer's error (the same text
// as the PAYMENT-REQUIRED header's) and, in plain words, that the route is
// paid with x402 version 2 only. The PAYMENT-REQUIRED header, which the
// published version 2 clients read, is unchanged, and so is the payment
// page, whose script reads the requirements in the version 1 shape.

// textV2Only tells an x402 version 1 client (or a person reading the 402)
// that the route is paid with version 2 only, and how.
const textV2Only = "this route is paid with x402 version 2 only (scheme %s): its payment requirements are in the PAYMENT-REQUIRED header (Base64 JSON) and a payment goes in the PAYMENT-SIGNATURE header. An x402 version 1 client (X-PAYMENT, requirements in this body) cannot pay it: pay with an x402 version 2 client"

// v2OnlyAnswer is the JSON body of a 402 on a version 2 only route.
type v2OnlyAnswer struct {
	TxHash        string `json:"txHash,omitempty"`
	Retry         string `json:"retry,omitempty"`
	X402Version   int    `json:"x402Version"`
	Error         string `json:"error"`
	InvalidReason string `json:"invalidReason,omitempty"`
	Message       string `json:"message"`
}

// v2OnlyBody is the 402 body of a version 2 only route: errText (as the
// PAYMENT-REQUIRED header words it), invalid (a verify reason, also the
// error when set), and for a pending settlement its transaction and what
// to do (txHash and retry, else "").
func (rp *replies) v2OnlyBody(errText, invalid, txHash, retry string) []byte {
	if invalid != "" {
		errText = invalid
	}
	if errText == textNoPayment {
		errText = textNoPaymentV2
	}
	b, _ := json.Marshal(v2OnlyAnswer{TxHash: txHash, Retry: retry, X402Version: x402.Version2, Error: errText,
		InvalidReason: invalid, Message: fmt.Sprintf(textV2Only, rp.scheme)})
	return append(b, '\n')
}
