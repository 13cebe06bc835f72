package x402

// The names of the schemes beside exact (SchemeExact, types.go), as
// requirements, records and look-ups by authorization
// spell them; every package refers to these constants.
const (
	// SchemeUpto is the x402 `upto` scheme: the buyer signs a Permit2
	// witness transfer of at most an amount, the seller settles what was
	// used.
	SchemeUpto = "upto"
	// SchemeBatchSettlement is the x402 `batch-settlement` scheme:
	// payment channels (a deposit, then vouchers the seller claims).
	SchemeBatchSettlement = "batch-settlement"
	// SchemeExactPermit2 names an exact payment made through Permit2
	// (extra.assetTransferMethod "permit2") in records and look-ups by
	// authorization: the facilitator's flavour of exact.
	SchemeExactPermit2 = "exact-permit2"
	// SchemeBatchSettlementPermit2 names a batch-settlement deposit made
	// through Permit2 in records, look-ups by authorization and the
	// facilitator's SchemeExtra (served where the chain has Permit2 and
	// the Permit2 deposit collector).
	SchemeBatchSettlementPermit2 = "batch-settlement-permit2"
)
