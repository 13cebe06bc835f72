package batch

// What the devnet tests (package batch_test: package devnet imports this
// package) take from the internal tests.

var (
	LoadVectors = loadVectors
	Num         = num
)

const (
	BuyerKeyHex      = buyerKeyHex
	AuthorizerKeyHex = authorizerKeyHex
)
