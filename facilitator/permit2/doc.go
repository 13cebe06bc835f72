// Package permit2 is what the schemes that move tokens through Permit2
// share (upto, exact through Permit2, batch-settlement's Permit2
// deposits): Permit2's and the x402 proxies' canonical addresses, the
// EIP-712 typed data of a witness transfer (TypedData, Digest, Hasher,
// Sign), the proxies' calldata and its decoding, Permit2's reads
// (nonceBitmap, allowance), the eip2612GasSponsoring extension's check
// (CheckEIP2612Info), the engine Spent of a Permit2 nonce and its nonce
// space. It registers no scheme; the engine and package evm know no Permit2.
package permit2
