package batchsettlement

import (
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
)

// payloadJSON is a batch-settlement payload as @x402/evm 2.27 sends it; its
// type says which fields it has.
type payloadJSON struct {
	Type          string               `json:"type"`
	ChannelConfig *batch.ChannelConfig `json:"channelConfig"`
	Voucher       *voucherJSON         `json:"voucher"`
	Deposit       *depositJSON         `json:"deposit"`
	// claim, and an enriched refund's claims.
	Claims                   []claimJSON   `json:"claims"`
	ClaimAuthorizerSignature hexutil.Bytes `json:"claimAuthorizerSignature"`
	// settle.
	Receiver *common.Address `json:"receiver"`
	Token    *common.Address `json:"token"`
	// An enriched refund (the server's, to settle).
	Amount                    *string       `json:"amount"`
	RefundNonce               *string       `json:"refundNonce"`
	RefundAuthorizerSignature hexutil.Bytes `json:"refundAuthorizerSignature"`
}

// claimJSON is one row of a claim: a voucher, its signature and the
// cumulative total claimed with it.
type claimJSON struct {
	Voucher struct {
		Channel            batch.ChannelConfig `json:"channel"`
		MaxClaimableAmount string              `json:"maxClaimableAmount"`
	} `json:"voucher"`
	Signature    hexutil.Bytes `json:"signature"`
	TotalClaimed string        `json:"totalClaimed"`
}

// maxClaimRows bounds the rows of one claim (about 10M gas at 400).
const maxClaimRows = 400

// rows reads claim rows; false when one is malformed or there are too many.
func rows(in []claimJSON) ([]batch.VoucherClaim, bool) {
	if len(in) > maxClaimRows {
		return nil, false
	}
	out := make([]batch.VoucherClaim, len(in))
	for i, r := range in {
		max, ok1 := parseUint(r.Voucher.MaxClaimableAmount, 128)
		total, ok2 := parseUint(r.TotalClaimed, 128)
		if !ok1 || !ok2 || total.Cmp(max) > 0 {
			return nil, false
		}
		out[i] = batch.VoucherClaim{Voucher: batch.Voucher{Channel: r.Voucher.Channel, MaxClaimableAmount: max}, Signature: r.Signature, TotalClaimed: total}
	}
	return out, true
}

// voucherJSON is a payload's voucher.
type voucherJSON struct {
	ChannelID          common.Hash   `json:"channelId"`
	MaxClaimableAmount string        `json:"maxClaimableAmount"`
	Signature          hexutil.Bytes `json:"signature"`
}

// depositJSON is a deposit payload's deposit: its amount and the token
// authorization that funds it.
type depositJSON struct {
	Amount        string `json:"amount"`
	Authorization struct {
		ERC3009 *struct {
			ValidAfter  string        `json:"validAfter"`
			ValidBefore string        `json:"validBefore"`
			Salt        common.Hash   `json:"salt"`
			Signature   hexutil.Bytes `json:"signature"`
		} `json:"erc3009Authorization"`
		Permit2 *permit2AuthJSON `json:"permit2Authorization"`
	} `json:"authorization"`
}

// uint parses a decimal (or 0x hex) unsigned integer of at most bits bits.
func parseUint(s string, bits int) (*big.Int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	v, ok := new(big.Int).SetString(s, 0)
	if !ok || v.Sign() < 0 || v.BitLen() > bits {
		return nil, false
	}
	return v, true
}
