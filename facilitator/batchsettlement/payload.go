package batchsettlement

import (
	"encoding/json"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/batch"
)

// payloadJSON is a batch-settlement payload as @x402/evm 2.27 sends it; its
// type says which fields it has.
type payloadJSON struct {
	Type          string               `json:"type"`
	ChannelConfig *batch.ChannelConfig `json:"channelConfig"`
	Voucher       *voucherJSON         `json:"voucher"`
	Deposit       *depositJSON         `json:"deposit"`
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
		Permit2 json.RawMessage `json:"permit2Authorization"`
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
