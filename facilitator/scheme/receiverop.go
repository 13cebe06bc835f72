package scheme

import "github.com/ethereum/go-ethereum/common"

// ReceiverOp is a Payment that may act for receivers rather than pay
// them (batch-settlement claim, settle and refund: the facilitator sends
// them, and signs them with its receiver-authorizer key, on the
// receivers' behalf). The core lets such a payment settle through the
// HTTP routes only when the caller may act for those receivers
// (facilitator.WithReceiverGate).
type ReceiverOp interface {
	// ReceiverOp is the operation ("claim", "settle", "refund") and the
	// receivers it acts for; op "" when the payment is not one.
	ReceiverOp() (op string, receivers []common.Address)
}
