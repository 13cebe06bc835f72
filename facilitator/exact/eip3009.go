package exact

import (
	"cmp"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// payment is a payment that passed the off-chain checks (scheme.Payment).
type payment struct {
	b        *bound
	p        *x402.Payment
	calldata []byte // transferWithAuthorization call, built on first use
	// smart is set when the signature is not the payer's ECDSA one: a
	// smart-contract wallet's, to be checked on chain (wallet.go).
	smart *walletSig
	// deploy is set by settle when the transaction deploys the payer's
	// wallet (ERC-6492) before the transfer.
	deploy bool
	// payerHeld is set while the payment holds its payer, a smart-contract
	// wallet, for its settlement (cooloff.go).
	payerHeld bool
}

// transferCalldata is the transferWithAuthorization call: the (v, r, s)
// form for an EOA's signature, the bytes form with the wallet's own
// signature for a smart-contract wallet.
func (c *payment) transferCalldata() []byte {
	if c.calldata == nil && c.smart != nil {
		c.calldata = TransferCalldataBytes(&c.p.Authorization, c.smart.sig)
	}
	if c.calldata == nil {
		var err error
		if c.calldata, err = TransferCalldata(&c.p.Authorization, c.p.Signature); err != nil {
			panic(err) // every argument was parsed into its ABI type
		}
	}
	return c.calldata
}

// Payer, Nonce and Value are the authorization's (scheme.Payment).
func (c *payment) Payer() common.Address { return c.p.Authorization.From }
func (c *payment) Nonce() [32]byte       { return c.p.Authorization.Nonce }
func (c *payment) Value() *big.Int       { return c.p.Authorization.Value }

// sameAddress compares two hex addresses case-insensitively.
func sameAddress(a string, b common.Address) bool {
	addr, ok := x402.ParseAddress(a)
	return ok && addr == b
}

// checkWindow applies validAfter and validBefore (Unix seconds) to the
// current time as the token does (strictly: valid when validAfter < now <
// validBefore), with the expiry margin before validBefore.
func (b *bound) checkWindow(a *x402.Authorization) string {
	now := b.env.Now()
	if cmpInt64(a.ValidBefore, now.Add(b.env.ExpiryMargin).Unix()) <= 0 {
		return x402.ErrTextExpired
	}
	if cmpInt64(a.ValidAfter, now.Unix()) >= 0 {
		return x402.ErrTextNotYetValid
	}
	return ""
}

// cmpInt64 is x.Cmp(big.NewInt(y)) without allocating.
func cmpInt64(x *big.Int, y int64) int {
	if !x.IsInt64() {
		return x.Sign()
	}
	return cmp.Compare(x.Int64(), y)
}

// EIP-712 typed data of transferWithAuthorization (EIP-3009).

// eip712Types are the typed-data types of an EIP-3009 transfer.
var eip712Types = apitypes.Types{
	"EIP712Domain": evm.DomainTypes,
	"TransferWithAuthorization": {
		{Name: "from", Type: "address"},
		{Name: "to", Type: "address"},
		{Name: "value", Type: "uint256"},
		{Name: "validAfter", Type: "uint256"},
		{Name: "validBefore", Type: "uint256"},
		{Name: "nonce", Type: "bytes32"},
	},
}

const primaryType = "TransferWithAuthorization"

var typeHash = common.BytesToHash((&apitypes.TypedData{Types: eip712Types}).TypeHash(primaryType))

// TypedData returns the EIP-712 typed data of an authorization, as a wallet
// would be asked to sign it (eth_signTypedData_v4).
func TypedData(d evm.Domain, a x402.Authorization) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       eip712Types,
		PrimaryType: primaryType,
		Domain:      d.TypedDataDomain(),
		Message: apitypes.TypedDataMessage{
			"from":        a.From.Hex(),
			"to":          a.To.Hex(),
			"value":       a.Value,
			"validAfter":  a.ValidAfter,
			"validBefore": a.ValidBefore,
			"nonce":       a.Nonce[:],
		},
	}
}

// Hasher computes EIP-712 digests of authorizations for one domain. The
// domain separator and the type hash are computed once by go-ethereum's
// typed-data code; the message is ABI-encoded with go-ethereum's ABI
// encoder, which is what EIP-712 encodeData is for these static types.
type Hasher struct {
	prefix []byte // 0x19 0x01 ‖ domainSeparator
}

// NewHasher prepares the digests of one domain.
func NewHasher(d evm.Domain) (*Hasher, error) {
	sep, err := evm.DomainSeparator(d)
	if err != nil {
		return nil, err
	}
	return &Hasher{prefix: append([]byte{0x19, 0x01}, sep[:]...)}, nil
}

// Separator is the domain separator, as the token's DOMAIN_SEPARATOR()
// gives it.
func (h *Hasher) Separator() common.Hash { return common.BytesToHash(h.prefix[2:]) }

// Digest is the EIP-712 hash the buyer signs. EIP-712 encodeData of these
// static fields is their 32-byte ABI words in order, written here into one
// buffer (what go-ethereum's ABI encoder gives, without its allocations:
// verify runs this on every request) and hashed with go-ethereum's keccak.
func (h *Hasher) Digest(a *x402.Authorization) (common.Hash, error) {
	// One buffer for both hashes' input: 0x19 0x01 ‖ separator ‖ structHash,
	// then the encoded struct.
	buf := new([2 + 32 + 32 + 7*32]byte)
	msg, enc := buf[:66], buf[66:]
	copy(enc[:32], typeHash[:])
	copy(enc[32+12:64], a.From[:])
	copy(enc[64+12:96], a.To[:])
	for i, v := range [3]*big.Int{a.Value, a.ValidAfter, a.ValidBefore} {
		if v == nil || v.Sign() < 0 || v.BitLen() > 256 {
			return common.Hash{}, errors.New("authorization value or validity out of the uint256 range")
		}
		v.FillBytes(enc[96+32*i : 128+32*i])
	}
	copy(enc[192:], a.Nonce[:])
	copy(msg, h.prefix)
	structHash := crypto.Keccak256Hash(enc)
	copy(msg[34:], structHash[:])
	return crypto.Keccak256Hash(msg), nil
}

// Recover returns the address that signed the authorization.
func (h *Hasher) Recover(a *x402.Authorization, sig []byte) (common.Address, error) {
	if len(sig) != crypto.SignatureLength {
		return common.Address{}, errors.New("signature is not 65 bytes")
	}
	d, err := h.Digest(a)
	if err != nil {
		return common.Address{}, err
	}
	rsv := make([]byte, crypto.SignatureLength)
	copy(rsv, sig)
	if rsv[64] >= 27 {
		rsv[64] -= 27
	}
	// Reject malleable (high-s) and malformed signatures, as the token does.
	r, s := new(big.Int).SetBytes(rsv[:32]), new(big.Int).SetBytes(rsv[32:64])
	if !crypto.ValidateSignatureValues(rsv[64], r, s, true) {
		return common.Address{}, errors.New("signature values out of range")
	}
	pub, err := crypto.Ecrecover(d[:], rsv)
	if err != nil {
		return common.Address{}, err
	}
	return common.BytesToAddress(crypto.Keccak256(pub[1:])[12:]), nil
}

// Digest returns the EIP-712 hash of an authorization under a domain.
func Digest(d evm.Domain, a x402.Authorization) (common.Hash, error) {
	h, err := NewHasher(d)
	if err != nil {
		return common.Hash{}, err
	}
	return h.Digest(&a)
}

// SignAuthorization signs an authorization with the buyer's key and returns
// the 65-byte signature with v as 27 or 28, as wallets produce it.
func SignAuthorization(key *ecdsa.PrivateKey, d evm.Domain, a x402.Authorization) ([]byte, error) {
	digest, err := Digest(d, a)
	if err != nil {
		return nil, err
	}
	return evm.SignDigest(key, digest)
}

// The token calls of EIP-3009: the transfer, and the reads of verify.

// TransferCalldata encodes transferWithAuthorization for a payment.
func TransferCalldata(a *x402.Authorization, sig []byte) ([]byte, error) {
	if len(sig) != 65 {
		return nil, errors.New("signature is not 65 bytes")
	}
	v := sig[64]
	if v < 27 {
		v += 27
	}
	var r, s [32]byte
	copy(r[:], sig[:32])
	copy(s[:], sig[32:64])
	return eip3009ABI.Pack("transferWithAuthorization", a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, r, s)
}

// TransferCalldataBytes encodes the bytes-signature overload of
// transferWithAuthorization (FiatToken v2.2), through which a
// smart-contract wallet's signature of any length is checked (EIP-1271).
func TransferCalldataBytes(a *x402.Authorization, sig []byte) []byte {
	data, err := eip3009ABI.Pack(methodTransferBytes, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, sig)
	if err != nil {
		panic(err) // every argument is of its ABI type
	}
	return data
}

// NewBatchChecks prepares the reads of verify for an authorization, the
// transfer simulated from sender; without calldata, no simulation (a gas
// estimate simulates it too).
func NewBatchChecks(token, sender common.Address, a *x402.Authorization, calldata []byte) *BatchChecks {
	b := &BatchChecks{block: new(hexutil.Uint64)}
	var usedEl, balEl rpc.BatchElem
	usedEl, b.used = evm.CallData(token, authorizationStateData(a.From, a.Nonce))
	balEl, b.balance = evm.ViewCall(token, "balanceOf", a.From)
	b.Elems = []rpc.BatchElem{{Method: "eth_blockNumber", Result: b.block}, usedEl, balEl}
	if calldata != nil {
		b.Elems = append(b.Elems, rpc.BatchElem{
			Method: "eth_call",
			Args:   []any{evm.CallArgs{From: sender, To: token, Data: calldata}, "latest"},
			Result: new(hexutil.Bytes),
		})
	}
	return b
}

// State interprets the answers. An element that failed for another reason
// than a revert is an error: the chain could not be read.
func (b *BatchChecks) State() (*ChainState, error) {
	st := &ChainState{}
	if err := b.Elems[0].Error; err != nil {
		return nil, fmt.Errorf("eth_blockNumber: %w", err)
	}
	st.Block = uint64(*b.block)
	if err := b.Elems[1].Error; err != nil {
		return nil, fmt.Errorf("authorizationState: %w", err)
	}
	used, err := eip3009ABI.Unpack("authorizationState", *b.used)
	if err != nil {
		return nil, fmt.Errorf("authorizationState: %w", err)
	}
	st.Used = used[0].(bool)
	if err := b.Elems[2].Error; err != nil {
		return nil, fmt.Errorf("balanceOf: %w", err)
	}
	bal, err := evm.TokenABI.Unpack("balanceOf", *b.balance)
	if err != nil {
		return nil, fmt.Errorf("balanceOf: %w", err)
	}
	st.Balance = bal[0].(*big.Int)
	if len(b.Elems) > ChecksElems {
		st.Simulation = b.Elems[ChecksElems].Error
	}
	return st, nil
}

// ClassifyRevert maps FiatToken-style revert reasons to their kind.
func ClassifyRevert(reason string) RevertKind {
	r := strings.ToLower(reason)
	switch {
	case strings.Contains(r, "authorization is used"), strings.Contains(r, "authorization is used or canceled"):
		return RevertUsed
	case strings.Contains(r, "authorization is expired"):
		return RevertExpired
	case strings.Contains(r, "authorization is not yet valid"):
		return RevertNotYetValid
	case strings.Contains(r, "invalid signature"):
		return RevertSignature
	case strings.Contains(r, "transfer amount exceeds balance"):
		return RevertBalance
	}
	return RevertOther
}

// methodTransferBytes is the parsed ABI's name of the bytes overload.
const methodTransferBytes = "transferWithAuthorization0"

// eip3009ABIJSON is the EIP-3009 (FiatToken-style) part of a token the
// facilitator calls; the generic ERC-20 part (balanceOf, decimals, name,
// ...) is evm.TokenABI. The v, r, s form of transferWithAuthorization is in
// every FiatTokenV2 version, so it is the one submitted for EOAs; the bytes
// form (FiatToken v2.2, methodTransferBytes in the parsed ABI) is submitted
// for smart-contract wallets.
const eip3009ABIJSON = `[
 {"type":"function","name":"authorizationState","stateMutability":"view","inputs":[{"name":"authorizer","type":"address"},{"name":"nonce","type":"bytes32"}],"outputs":[{"type":"bool"}]},
 {"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[
  {"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},
  {"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},
  {"name":"v","type":"uint8"},{"name":"r","type":"bytes32"},{"name":"s","type":"bytes32"}],"outputs":[]},
 {"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[
  {"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},
  {"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},
  {"name":"signature","type":"bytes"}],"outputs":[]}
]`

// eip3009ABI is the EIP-3009 part of a token the facilitator calls.
var eip3009ABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(eip3009ABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// authorizationStateData is the calldata of authorizationState(authorizer,
// nonce).
func authorizationStateData(authorizer common.Address, nonce [32]byte) []byte {
	data, err := eip3009ABI.Pack("authorizationState", authorizer, nonce)
	if err != nil {
		panic(err) // every argument is of its ABI type
	}
	return data
}

// ChainState is what one batched round trip tells about a payment.
type ChainState struct {
	// Used is authorizationState(from, nonce).
	Used bool
	// Balance is the payer's token balance.
	Balance *big.Int
	// Simulation is the simulated transfer's error (a revert), if any.
	Simulation error
	// Block is a block number at or below the block the balance was read
	// at (eth_blockNumber, asked before balanceOf in the same batch, which
	// a node answers in order): a transfer mined at this block or before
	// is in Balance.
	Block uint64
}

// BatchChecks are the reads of verify: the head's number,
// authorizationState, balanceOf and the simulated transfer from the
// facilitator's signer.
type BatchChecks struct {
	// Elems are the batch elements: eth_blockNumber, authorizationState,
	// balanceOf and the simulated transfer, in that order (ChecksElems of
	// them without the simulation).
	Elems   []rpc.BatchElem
	block   *hexutil.Uint64
	used    *hexutil.Bytes
	balance *hexutil.Bytes
}

// ChecksElems is the number of batch elements of BatchChecks without a
// simulation.
const ChecksElems = 3

// RevertKind is the outcome kind of a revert, independent of the verify/settle wording.
type RevertKind int

// Revert kinds.
const (
	RevertOther RevertKind = iota
	RevertUsed
	RevertExpired
	RevertNotYetValid
	RevertSignature
	RevertBalance
)
