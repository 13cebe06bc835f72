package x402cmd

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
)

// permit2Deposits reports whether the seller's batch-settlement offer
// takes deposits by Permit2 (extra.assetTransferMethod "permit2").
func (c *chanPay) permit2Deposits() bool {
	m, _ := c.accepted.Extra["assetTransferMethod"].(string)
	return m == "permit2"
}

// signPermit2Deposit is the payload's deposit on a Permit2 route, as
// @x402/evm 2.27's createBatchSettlementPermit2DepositPayload: a Permit2
// witness transfer of amount to the Permit2 deposit collector, witness the
// channel id, with a random nonce, valid for the offer's
// maxTimeoutSeconds. With --approve-permit2 the key first approves
// Permit2 on the token (one transaction, skipped when the allowance
// covers the deposit); without it, a wallet that never approved Permit2
// is refused by the seller (permit2_allowance_required).
func (c *chanPay) signPermit2Deposit(amount *big.Int) (map[string]any, error) {
	if c.approve != "" {
		if err := approvePermit2(context.Background(), c.approve, c.key, c.accepted, amount, c.stderr); err != nil {
			return nil, err
		}
	}
	var n [32]byte
	if _, err := rand.Read(n[:]); err != nil {
		return nil, err
	}
	nonce := new(big.Int).SetBytes(n[:])
	timeout := c.accepted.MaxTimeoutSeconds
	if timeout <= 0 {
		timeout = 300
	}
	deadline := big.NewInt(time.Now().Unix() + timeout)
	d := batch.Permit2Deposit{Token: c.cfg.Token, Amount: amount, Nonce: nonce, Deadline: deadline, ChannelID: c.id}
	sig, err := batch.SignPermit2Deposit(c.key, c.chainID, d)
	if err != nil {
		return nil, fmt.Errorf("signing the Permit2 deposit: %w", err)
	}
	return map[string]any{"amount": amount.String(), "authorization": map[string]any{"permit2Authorization": map[string]any{
		"from": c.cfg.Payer.Hex(), "permitted": map[string]any{"token": c.cfg.Token.Hex(), "amount": amount.String()},
		"spender": batch.Permit2CollectorAddress.Hex(), "nonce": nonce.String(), "deadline": deadline.String(),
		"witness": map[string]any{"channelId": c.id.Hex()}, "signature": hexutil.Encode(sig)}}}, nil
}

// permit2Hint says what to do when a Permit2 deposit is refused for want
// of an allowance to Permit2.
func permit2Hint(reason string) string {
	if reason != "invalid_batch_settlement_evm_permit2_allowance_required" {
		return ""
	}
	return fmt.Sprintf(": the wallet has not approved Permit2 (%s) on the token for the deposit; approve it once, e.g. with --approve-permit2 RPC_URL, and pay again", permit2.Address.Hex())
}
