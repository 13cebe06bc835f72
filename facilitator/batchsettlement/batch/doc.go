// Package batch holds the x402 `batch-settlement` scheme's EVM facts (payment
// channels): the canonical addresses of x402BatchSettlement and its two
// deposit collectors, the EIP-712 typed data of a channel (ChannelConfig,
// whose hash is the channel id), of a voucher, a refund and a claim batch,
// the deposit authorizations (EIP-3009 ReceiveWithAuthorization to the
// ERC-3009 collector, a Permit2 witness transfer to the Permit2 collector),
// the signing helpers, and the calldata and results of the contract calls
// the facilitator makes.
//
// Digests are computed by direct hashing (a voucher is checked on every
// paid request); tests hold them to go-ethereum's EIP-712 encoder, to the
// contract's own getters on the devnet and to vectors signed by the
// published client (@x402/evm 2.27.0, testdata/).
//
// The scheme's mechanism (verify and settle of deposit, voucher, claim,
// settle and refund payloads) is the parent package, batchsettlement,
// built on this one; this one stays a leaf, which the devnet, the
// paywall's voucher check and the buyer's side import; see
// docs/batch-settlement.md.
package batch
