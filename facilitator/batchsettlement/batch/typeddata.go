package batch

// The EIP-712 typed data of the channel contract: its domain, ChannelConfig (the channel id),
// Voucher, Refund and ClaimBatch, hashed directly as the contract hashes them.

import (
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Scheme is the x402 scheme name.
const Scheme = x402.SchemeBatchSettlement

// Canonical addresses of the batch-settlement contracts, the same on every
// chain that has them (CREATE2).
var (
	// SettlementAddress is x402BatchSettlement, the channel contract and
	// the verifying contract of the channel's EIP-712 domain.
	SettlementAddress = common.HexToAddress("0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003")
	// ERC3009CollectorAddress is ERC3009DepositCollector: the `to` of a
	// deposit's ReceiveWithAuthorization.
	ERC3009CollectorAddress = common.HexToAddress("0x4020806089470a89826cB9fB1f4059150b550004")
	// Permit2CollectorAddress is Permit2DepositCollector: the spender of a
	// deposit's Permit2 witness transfer.
	Permit2CollectorAddress = common.HexToAddress("0x4020425FAf3B746C082C2f942b4E5159887B0005")
)

// The bounds of a channel's withdrawDelay, in seconds (15 minutes, 30 days),
// inclusive; the contract refuses a deposit into a channel outside them.
const (
	MinWithdrawDelay = 900
	MaxWithdrawDelay = 2592000
)

// DomainName and DomainVersion are the channel contract's EIP-712 domain
// name and version.
const (
	DomainName    = "x402 Batch Settlement"
	DomainVersion = "1"
)

// The EIP-712 type strings, as the contract and the published client declare them.
const (
	ChannelConfigType = "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
	VoucherType       = "Voucher(bytes32 channelId,uint128 maxClaimableAmount)"
	RefundType        = "Refund(bytes32 channelId,uint256 nonce,uint128 amount)"
	ClaimEntryType    = "ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
	ClaimBatchType    = "ClaimBatch(ClaimEntry[] claims)" + ClaimEntryType
)

var (
	domainTypeHash        = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	nameHash              = crypto.Keccak256Hash([]byte(DomainName))
	versionHash           = crypto.Keccak256Hash([]byte(DomainVersion))
	channelConfigTypeHash = crypto.Keccak256Hash([]byte(ChannelConfigType))
	voucherTypeHash       = crypto.Keccak256Hash([]byte(VoucherType))
	refundTypeHash        = crypto.Keccak256Hash([]byte(RefundType))
	claimEntryTypeHash    = crypto.Keccak256Hash([]byte(ClaimEntryType))
	claimBatchTypeHash    = crypto.Keccak256Hash([]byte(ClaimBatchType))
)

// ChannelConfig is a channel's immutable configuration; its EIP-712 hash is
// the channel id. The JSON form is the x402 payload's `channelConfig`.
type ChannelConfig struct {
	// Payer owns the deposit and gets refunds and withdrawals.
	Payer common.Address `json:"payer"`
	// PayerAuthorizer signs the vouchers (ECDSA); zero means the payer
	// does (ECDSA or EIP-1271).
	PayerAuthorizer common.Address `json:"payerAuthorizer"`
	// Receiver is paid what is claimed (the requirements' payTo).
	Receiver common.Address `json:"receiver"`
	// ReceiverAuthorizer authorizes claims and refunds; never zero.
	ReceiverAuthorizer common.Address `json:"receiverAuthorizer"`
	// Token is the ERC-20 of the channel.
	Token common.Address `json:"token"`
	// WithdrawDelay is the seconds between a payer's withdraw request and
	// its completion (uint40; MinWithdrawDelay..MaxWithdrawDelay).
	WithdrawDelay uint64 `json:"withdrawDelay"`
	// Salt tells apart channels with the same other fields.
	Salt common.Hash `json:"salt"`
}

// maxUint40 is the largest uint40.
const maxUint40 = 1<<40 - 1

// Check refuses a config the contract cannot take a deposit for: a zero
// payer, receiver, receiver authorizer or token, or a withdraw delay
// outside MinWithdrawDelay..MaxWithdrawDelay. (A channel id is defined for
// any uint40 delay; ID does not call Check.)
func (c ChannelConfig) Check() error {
	switch {
	case c.Payer == (common.Address{}):
		return errors.New("channel config: zero payer")
	case c.Receiver == (common.Address{}):
		return errors.New("channel config: zero receiver")
	case c.ReceiverAuthorizer == (common.Address{}):
		return errors.New("channel config: zero receiver authorizer")
	case c.Token == (common.Address{}):
		return errors.New("channel config: zero token")
	case c.WithdrawDelay < MinWithdrawDelay || c.WithdrawDelay > MaxWithdrawDelay:
		return fmt.Errorf("channel config: withdraw delay %d s outside %d..%d", c.WithdrawDelay, MinWithdrawDelay, MaxWithdrawDelay)
	}
	return nil
}

// word is a 32-byte ABI word.
type word = [32]byte

func addrWord(a common.Address) word { return common.BytesToHash(a.Bytes()) }

func uintWord(v uint64) word { return common.BigToHash(new(big.Int).SetUint64(v)) }

// bigWord is v as a uint of bits bits, or an error naming what when v is
// missing, negative or too large.
func bigWord(what string, v *big.Int, bits int) (word, error) {
	if v == nil || v.Sign() < 0 || v.BitLen() > bits {
		return word{}, fmt.Errorf("%s missing or out of the uint%d range", what, bits)
	}
	return common.BigToHash(v), nil
}

func hashWords(ws ...word) common.Hash {
	b := make([]byte, 0, 32*len(ws))
	for _, w := range ws {
		b = append(b, w[:]...)
	}
	return crypto.Keccak256Hash(b)
}

// DomainSeparator is the EIP-712 domain separator of the channel contract
// on chain chainID: {name "x402 Batch Settlement", version "1", chainId,
// verifyingContract SettlementAddress}.
func DomainSeparator(chainID *big.Int) (common.Hash, error) {
	id, err := bigWord("chain ID", chainID, 256)
	if err != nil {
		return common.Hash{}, err
	}
	if chainID.Sign() == 0 {
		return common.Hash{}, errors.New("chain ID 0")
	}
	return hashWords(domainTypeHash, nameHash, versionHash, id, addrWord(SettlementAddress)), nil
}

// typedDataHash is keccak256("\x19\x01" || separator || structHash).
func typedDataHash(separator, structHash common.Hash) common.Hash {
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, separator[:], structHash[:])
}

// separators caches DomainSeparator by chain ID (a handful of chains per
// process): a voucher's digest is computed on every paid request.
var separators sync.Map // uint64 -> common.Hash

func digest(chainID *big.Int, structHash common.Hash) (common.Hash, error) {
	if chainID != nil && chainID.Sign() > 0 && chainID.IsUint64() {
		if sep, ok := separators.Load(chainID.Uint64()); ok {
			return typedDataHash(sep.(common.Hash), structHash), nil
		}
	}
	sep, err := DomainSeparator(chainID)
	if err != nil {
		return common.Hash{}, err
	}
	if chainID.IsUint64() {
		separators.Store(chainID.Uint64(), sep)
	}
	return typedDataHash(sep, structHash), nil
}

func (c ChannelConfig) structHash() (common.Hash, error) {
	if c.WithdrawDelay > maxUint40 {
		return common.Hash{}, fmt.Errorf("channel config: withdraw delay %d out of the uint40 range", c.WithdrawDelay)
	}
	return hashWords(channelConfigTypeHash, addrWord(c.Payer), addrWord(c.PayerAuthorizer), addrWord(c.Receiver),
		addrWord(c.ReceiverAuthorizer), addrWord(c.Token), uintWord(c.WithdrawDelay), c.Salt), nil
}

// ID is the channel id of c on chain chainID: the EIP-712 hash of the
// ChannelConfig under the channel contract's domain (the contract's
// getChannelId).
func (c ChannelConfig) ID(chainID *big.Int) (common.Hash, error) {
	h, err := c.structHash()
	if err != nil {
		return common.Hash{}, err
	}
	return digest(chainID, h)
}

// VoucherDigest is the digest a payer (or its authorizer) signs for a
// voucher: Voucher{channelId, maxClaimableAmount (uint128)} (the
// contract's getVoucherDigest).
func VoucherDigest(chainID *big.Int, channelID common.Hash, maxClaimable *big.Int) (common.Hash, error) {
	m, err := bigWord("voucher maxClaimableAmount", maxClaimable, 128)
	if err != nil {
		return common.Hash{}, err
	}
	return digest(chainID, hashWords(voucherTypeHash, channelID, m))
}

// RefundDigest is the digest a receiver authorizer signs for
// refundWithSignature: Refund{channelId, nonce (uint256), amount
// (uint128)} (the contract's getRefundDigest).
func RefundDigest(chainID *big.Int, channelID common.Hash, nonce, amount *big.Int) (common.Hash, error) {
	n, err := bigWord("refund nonce", nonce, 256)
	if err != nil {
		return common.Hash{}, err
	}
	a, err := bigWord("refund amount", amount, 128)
	if err != nil {
		return common.Hash{}, err
	}
	return digest(chainID, hashWords(refundTypeHash, channelID, n, a))
}

// Voucher is what a payer signs: a cumulative ceiling for a channel.
type Voucher struct {
	// Channel is the channel's config.
	Channel ChannelConfig
	// MaxClaimableAmount is the most the receiver may have claimed from
	// the channel in total (uint128).
	MaxClaimableAmount *big.Int
}

// VoucherClaim is one row of a claim: a signed voucher and the cumulative
// total the receiver claims with it (at most the ceiling; a total at or
// below what is already claimed changes nothing).
type VoucherClaim struct {
	Voucher      Voucher
	Signature    []byte
	TotalClaimed *big.Int
}

// ClaimBatchDigest is the digest a receiver authorizer signs for
// claimWithSignature: ClaimBatch{claims: ClaimEntry{channelId,
// maxClaimableAmount, totalClaimed} per row} (the contract's
// getClaimBatchDigest).
func ClaimBatchDigest(chainID *big.Int, claims []VoucherClaim) (common.Hash, error) {
	entries := make([]word, len(claims))
	for i, c := range claims {
		id, err := c.Voucher.Channel.ID(chainID)
		if err != nil {
			return common.Hash{}, fmt.Errorf("claim %d: %w", i, err)
		}
		m, err := bigWord("claim maxClaimableAmount", c.Voucher.MaxClaimableAmount, 128)
		if err != nil {
			return common.Hash{}, fmt.Errorf("claim %d: %w", i, err)
		}
		t, err := bigWord("claim totalClaimed", c.TotalClaimed, 128)
		if err != nil {
			return common.Hash{}, fmt.Errorf("claim %d: %w", i, err)
		}
		entries[i] = hashWords(claimEntryTypeHash, id, m, t)
	}
	return digest(chainID, hashWords(claimBatchTypeHash, hashWords(entries...)))
}
