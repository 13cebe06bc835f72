package batchsettlement

// The buyer side of batch-settlement, as @x402/evm 2.27's
// BatchSettlementEvmScheme client: a Channel signs the deposit and the
// cumulative vouchers of a payment channel, the refund payload, and takes
// the seller's answers (a paid answer's PAYMENT-RESPONSE, a corrective
// 402's channelState) into what the buyer knows of the channel. It makes
// no HTTP request and keeps no record: the caller sends the headers and
// stores Charged, Balance, SignedMax and Signature between payments.

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// DefaultDepositMultiplier is how many times the price a new channel (or
// a top-up) deposits by default, as the published client's
// depositMultiplier.
const DefaultDepositMultiplier = 5

// ErrCumulativeMismatch is the refusal of a voucher whose cumulative
// amount is not the seller's charged amount plus the price: the seller
// answers it with a corrective 402 (its channelState and voucherState).
const ErrCumulativeMismatch = "invalid_batch_settlement_evm_cumulative_amount_mismatch"

// ErrUnbackedCharge is matched (errors.Is) by Resync's error when the
// seller claims a charge that no voucher of the buyer backs and the chain
// was not read: only the chain can settle it.
var ErrUnbackedCharge = errors.New("a charge no voucher of ours backs")

// ErrNoChannelBalance is matched (errors.Is) by Resync's error when a
// corrective 402 names no balance and the chain was not read.
var ErrNoChannelBalance = errors.New("no channel balance")

// ErrNoTokenDomain is SignDeposit's error for an EIP-3009 deposit on an
// offer without the token's EIP-712 name and version.
var ErrNoTokenDomain = errors.New("the seller's batch-settlement offer lacks the token's EIP-712 name and version (extra.name, extra.version) that a deposit is signed under")

// kindError is an error with its own text that matches a sentinel.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// Channel is a buyer's payment channel to the seller of one
// batch-settlement offer, as the buyer knows it.
type Channel struct {
	// Key signs the deposits and vouchers (the payer and its authorizer).
	Key *ecdsa.PrivateKey
	// ChainID is the chain of the offer's eip155 network.
	ChainID *big.Int
	// Accepted is the seller's batch-settlement offer paid.
	Accepted x402.RequirementsV2
	// Resource is the resource paid for, carried in every payload.
	Resource *x402.ResourceInfo
	// Config is the channel's configuration, and ID its id on the chain.
	Config batch.ChannelConfig
	ID     common.Hash

	// Charged is the cumulative amount the seller has charged, Balance
	// what the channel holds.
	Charged, Balance *big.Int
	// SignedMax and Signature are the buyer's last voucher (nil when
	// none is known).
	SignedMax *big.Int
	Signature []byte
}

// NewChannel is the buyer's channel for a batch-settlement offer, with the
// config the published client builds (payer and payer authorizer the key's
// address, the given salt), charged and balance zero. It refuses an offer
// it cannot pay: not eip155, no receiverAuthorizer, a withdrawDelay out of
// the contract's range, a deposit method other than eip3009 or permit2.
func NewChannel(key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo, salt common.Hash) (*Channel, error) {
	chainID, ok := x402.ParseCAIP2(accepted.Network)
	if !ok {
		return nil, fmt.Errorf("batch-settlement on %q, not an eip155 network", accepted.Network)
	}
	ra, _ := accepted.Extra["receiverAuthorizer"].(string)
	if !x402.IsAddress(ra) || common.HexToAddress(ra) == (common.Address{}) {
		return nil, errors.New("the seller's batch-settlement offer names no receiverAuthorizer (extra.receiverAuthorizer)")
	}
	delay := uint64(batch.MinWithdrawDelay)
	if d, ok := accepted.Extra["withdrawDelay"].(float64); ok {
		if d != float64(uint64(d)) || d < batch.MinWithdrawDelay || d > batch.MaxWithdrawDelay {
			return nil, fmt.Errorf("the seller's withdrawDelay %v is not a whole number of seconds from %d to %d", d, batch.MinWithdrawDelay, batch.MaxWithdrawDelay)
		}
		delay = uint64(d)
	}
	if m, _ := accepted.Extra["assetTransferMethod"].(string); m != "" && m != "eip3009" && m != "permit2" {
		return nil, fmt.Errorf("the seller takes channel deposits by %s; this buyer deposits by eip3009 or permit2 only", m)
	}
	if !x402.IsAddress(accepted.PayTo) || !x402.IsAddress(accepted.Asset) {
		return nil, fmt.Errorf("the offer's payTo %q or asset %q is not an address", accepted.PayTo, accepted.Asset)
	}
	payer := crypto.PubkeyToAddress(key.PublicKey)
	c := &Channel{Key: key, ChainID: big.NewInt(chainID), Accepted: accepted, Resource: resource,
		Config: batch.ChannelConfig{Payer: payer, PayerAuthorizer: payer, Receiver: common.HexToAddress(accepted.PayTo),
			ReceiverAuthorizer: common.HexToAddress(ra), Token: common.HexToAddress(accepted.Asset), WithdrawDelay: delay, Salt: salt},
		Charged: new(big.Int), Balance: new(big.Int)}
	id, err := c.Config.ID(c.ChainID)
	if err != nil {
		return nil, fmt.Errorf("the channel config: %w", err)
	}
	c.ID = id
	return c, nil
}

// HexID is the channel id in lower-case hex.
func (c *Channel) HexID() string { return strings.ToLower(c.ID.Hex()) }

// voucher signs a voucher for max, as the payload's "voucher" object.
func (c *Channel) voucher(max *big.Int) (map[string]any, []byte, error) {
	sig, err := batch.SignVoucher(c.Key, c.ChainID, c.ID, max)
	if err != nil {
		return nil, nil, err
	}
	return map[string]any{"channelId": c.ID.Hex(), "maxClaimableAmount": max.String(), "signature": hexutil.Encode(sig)}, sig, nil
}

// header is the PAYMENT-SIGNATURE header of a payload of the given type
// (with the channel's config and the fields given).
func (c *Channel) header(typ string, fields map[string]any) (string, error) {
	payload := map[string]any{"type": typ, "channelConfig": c.Config}
	for k, v := range fields {
		payload[k] = v
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return "", err
	}
	return x402.EncodeBase64JSON(x402.PaymentPayloadV2{X402Version: x402.Version2, Resource: c.Resource, Accepted: c.Accepted, Payload: raw})
}

// Pay signs a payment of a voucher for max (the cumulative amount: Charged
// plus the price), with deposit (from SignDeposit) when not nil, and
// returns its PAYMENT-SIGNATURE header. SignedMax and Signature become the
// voucher's.
func (c *Channel) Pay(max *big.Int, deposit map[string]any) (string, error) {
	v, sig, err := c.voucher(max)
	if err != nil {
		return "", fmt.Errorf("signing the voucher: %w", err)
	}
	fields := map[string]any{"voucher": v}
	typ := "voucher"
	if deposit != nil {
		typ, fields["deposit"] = "deposit", deposit
	}
	h, err := c.header(typ, fields)
	if err != nil {
		return "", err
	}
	c.SignedMax, c.Signature = max, sig
	return h, nil
}

// Refund signs a refund request: a voucher of Charged (charging nothing),
// with amount when not nil (nil: all that is left), and returns its
// PAYMENT-SIGNATURE header.
func (c *Channel) Refund(amount *big.Int) (string, error) {
	v, _, err := c.voucher(c.Charged)
	if err != nil {
		return "", fmt.Errorf("signing the refund voucher: %w", err)
	}
	fields := map[string]any{"voucher": v}
	if amount != nil {
		fields["amount"] = amount.String()
	}
	return c.header("refund", fields)
}

// NeedsDeposit reports whether a voucher for max needs a deposit: the
// channel holds nothing, or less than max.
func (c *Channel) NeedsDeposit(max *big.Int) bool {
	return c.Balance.Sign() == 0 || max.Cmp(c.Balance) > 0
}

// DepositFor is what to deposit for a voucher of max: preferred when not
// nil, else the seller's extra.minDeposit (when at least the price), else
// DefaultDepositMultiplier x price; never less than max - Balance.
func (c *Channel) DepositFor(max, price, preferred *big.Int) *big.Int {
	needed := new(big.Int).Sub(max, c.Balance)
	target := new(big.Int).Mul(price, big.NewInt(DefaultDepositMultiplier))
	if s, ok := c.Accepted.Extra["minDeposit"].(string); ok {
		if v, ok := parseAmount(s); ok && v.Cmp(price) >= 0 {
			target = v
		}
	}
	if preferred != nil {
		target = preferred
	}
	if needed.Cmp(target) > 0 {
		target = needed
	}
	return target
}

// Permit2Deposits reports whether the seller takes deposits by Permit2
// (extra.assetTransferMethod "permit2").
func (c *Channel) Permit2Deposits() bool {
	m, _ := c.Accepted.Extra["assetTransferMethod"].(string)
	return m == "permit2"
}

// validFor is the offer's maxTimeoutSeconds, 300 when it gives none.
func (c *Channel) validFor() int64 {
	if c.Accepted.MaxTimeoutSeconds <= 0 {
		return 300
	}
	return c.Accepted.MaxTimeoutSeconds
}

// SignDeposit is the payload's deposit of amount, valid for the offer's
// maxTimeoutSeconds. On a Permit2 route (Permit2Deposits), as
// createBatchSettlementPermit2DepositPayload: a Permit2 witness transfer
// to the Permit2 deposit collector, witness the channel id, with a random
// nonce (the key must have approved Permit2 on the token). Otherwise an
// EIP-3009 ReceiveWithAuthorization to the ERC-3009 deposit collector
// under the token's domain (extra name and version), with a new salt (the
// authorization's nonce is keccak256(channelId, salt)).
func (c *Channel) SignDeposit(amount *big.Int) (map[string]any, error) {
	if c.Permit2Deposits() {
		return c.signPermit2Deposit(amount)
	}
	dom := c.Accepted.Domain()
	if dom == nil {
		return nil, ErrNoTokenDomain
	}
	var salt [32]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return nil, err
	}
	before := big.NewInt(time.Now().Unix() + c.validFor())
	d := batch.ERC3009Deposit{From: c.Config.Payer, Value: amount, ValidAfter: new(big.Int), ValidBefore: before,
		Salt: new(big.Int).SetBytes(salt[:]), ChannelID: c.ID}
	sig, err := batch.SignERC3009Deposit(c.Key, evm.Domain{Name: dom.Name, Version: dom.Version, ChainID: c.ChainID, VerifyingContract: c.Config.Token}, d)
	if err != nil {
		return nil, fmt.Errorf("signing the deposit: %w", err)
	}
	return map[string]any{"amount": amount.String(), "authorization": map[string]any{"erc3009Authorization": map[string]any{
		"validAfter": "0", "validBefore": before.String(), "salt": hexutil.Encode(salt[:]), "signature": hexutil.Encode(sig)}}}, nil
}

// signPermit2Deposit is SignDeposit on a Permit2 route.
func (c *Channel) signPermit2Deposit(amount *big.Int) (map[string]any, error) {
	var n [32]byte
	if _, err := rand.Read(n[:]); err != nil {
		return nil, err
	}
	nonce := new(big.Int).SetBytes(n[:])
	deadline := big.NewInt(time.Now().Unix() + c.validFor())
	d := batch.Permit2Deposit{Token: c.Config.Token, Amount: amount, Nonce: nonce, Deadline: deadline, ChannelID: c.ID}
	sig, err := batch.SignPermit2Deposit(c.Key, c.ChainID, d)
	if err != nil {
		return nil, fmt.Errorf("signing the Permit2 deposit: %w", err)
	}
	return map[string]any{"amount": amount.String(), "authorization": map[string]any{"permit2Authorization": map[string]any{
		"from": c.Config.Payer.Hex(), "permitted": map[string]any{"token": c.Config.Token.Hex(), "amount": amount.String()},
		"spender": batch.Permit2CollectorAddress.Hex(), "nonce": nonce.String(), "deadline": deadline.String(),
		"witness": map[string]any{"channelId": c.ID.Hex()}, "signature": hexutil.Encode(sig)}}}, nil
}

// Settled takes a paid answer's settle response into the channel, as the
// published client's updateChannelFromSettle: a deposit (not nil when the
// payment carried one) adds to the balance; charged grows by
// extra.chargedAmount (at most price), only when the seller's
// channelState.chargedCumulativeAmount agrees. It returns the amount
// charged, nil when the answer reports no successful charge; with an
// error saying what was not taken (the amount is then nil for a bad
// chargedAmount, the amount reported for a cumulative that disagrees).
func (c *Channel) Settled(sr *x402.ReferenceSettleResponse, deposit, price *big.Int) (*big.Int, error) {
	if sr == nil || !sr.Success {
		return nil, nil
	}
	if deposit != nil {
		c.Balance = new(big.Int).Add(c.Balance, deposit)
	}
	amount := new(big.Int)
	if s, ok := sr.Extra["chargedAmount"].(string); ok {
		v, ok := parseAmount(s)
		if !ok || v.Cmp(price) > 0 {
			return nil, fmt.Errorf("the seller reports chargedAmount %q, not an amount up to the price %s: the channel record keeps charged %s", s, price, c.Charged)
		}
		amount = v
	}
	next := new(big.Int).Add(c.Charged, amount)
	cs, _ := sr.Extra["channelState"].(map[string]any)
	if s, ok := cs["chargedCumulativeAmount"].(string); ok {
		if v, ok := parseAmount(s); !ok || v.Cmp(next) != 0 {
			return amount, fmt.Errorf("the seller reports charged cumulative %q, not %s: the channel record keeps %s; the next payment resynchronises", s, next, c.Charged)
		}
	}
	c.Charged = next
	return amount, nil
}

// Refunded takes a refund's answer into the channel: the balance goes
// down by the amount refunded (the seller's channelState balance when it
// names no amount; all that was left when neither is given).
func (c *Channel) Refunded(sr *x402.ReferenceSettleResponse) {
	if v, ok := parseAmount(sr.Amount); ok && v.Cmp(c.Balance) <= 0 {
		c.Balance = new(big.Int).Sub(c.Balance, v)
		return
	}
	cs, _ := sr.Extra["channelState"].(map[string]any)
	if s, ok := cs["balance"].(string); ok {
		if v, ok := parseAmount(s); ok {
			c.Balance = v
			return
		}
	}
	c.Balance = new(big.Int).Set(c.Charged)
}

// HasChannelState reports whether a 402 carries a channel's state to
// resynchronise from.
func HasChannelState(pr *x402.PaymentRequiredV2) bool {
	for _, a := range pr.Accepts {
		if _, ok := a.Extra["channelState"].(map[string]any); ok {
			return true
		}
	}
	return false
}

// Resync takes the seller's corrective 402 into the channel, as the
// published client's processCorrectivePaymentRequired: a charged amount is
// taken only when a voucher of ours at least as high backs it (the
// voucherState's signature recovers to our payer authorizer), and, with
// chain (nil when the chain is not read), when it is not below what the
// chain has claimed, the balance then coming from the chain. Without a
// voucher, only the chain or our own last voucher is trusted: an unbacked
// charge wraps ErrUnbackedCharge, a missing balance ErrNoChannelBalance.
// The channel is unchanged on error.
func (c *Channel) Resync(pr *x402.PaymentRequiredV2, chain func() (batch.ChannelState, error)) error {
	var acc *x402.RequirementsV2
	for i := range pr.Accepts {
		if pr.Accepts[i].Scheme == x402.SchemeBatchSettlement && strings.EqualFold(pr.Accepts[i].Network, c.Accepted.Network) {
			acc = &pr.Accepts[i]
			break
		}
	}
	if acc == nil {
		return fmt.Errorf("payment refused: %s, and the corrective 402 offers no batch-settlement on %s to resynchronise from", pr.Error, c.Accepted.Network)
	}
	cs, _ := acc.Extra["channelState"].(map[string]any)
	vs, _ := acc.Extra["voucherState"].(map[string]any)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	if id := str(cs, "channelId"); id != "" && !strings.EqualFold(id, c.ID.Hex()) {
		return fmt.Errorf("payment refused: %s for channel %s, not ours (%s): not resynchronising", pr.Error, id, c.HexID())
	}
	charged, okC := parseAmount(str(cs, "chargedCumulativeAmount"))
	balance, okB := parseAmount(str(cs, "balance"))
	if !okC {
		return fmt.Errorf("payment refused: %s without the channel's chargedCumulativeAmount: cannot resynchronise", pr.Error)
	}
	signed, okS := parseAmount(str(vs, "signedMaxClaimable"))
	sig, errSig := hexutil.Decode(str(vs, "signature"))
	hasVoucher := okS && errSig == nil && len(sig) > 0
	backed := false
	if hasVoucher {
		if charged.Cmp(signed) > 0 {
			return fmt.Errorf("payment refused: %s; the seller says charged %s above its voucher of %s: not trusted, not paying", pr.Error, charged, signed)
		}
		got, err := batch.RecoverVoucherSigner(c.ChainID, c.ID, signed, sig)
		if err != nil || got != c.Config.PayerAuthorizer {
			return fmt.Errorf("payment refused: %s; the seller's voucher of %s for channel %s is not signed by %s: not trusted, not paying", pr.Error, signed, c.HexID(), c.Config.PayerAuthorizer.Hex())
		}
		backed = true
	} else if c.SignedMax != nil && charged.Cmp(c.SignedMax) <= 0 {
		backed = true // our own last voucher covers it
	}
	if chain != nil {
		st, err := chain()
		if err != nil {
			return err
		}
		if !backed {
			charged = st.TotalClaimed // the published client's recoverFromOnChainState
		} else if charged.Cmp(st.TotalClaimed) < 0 {
			return fmt.Errorf("payment refused: %s; the seller says charged %s, below the %s the chain has claimed: not trusted, not paying", pr.Error, charged, st.TotalClaimed)
		}
		balance, okB = st.Balance, true
	} else if !backed && charged.Sign() > 0 {
		return &kindError{fmt.Sprintf("payment refused: %s; the seller says channel %s is charged %s but shows no voucher of ours for it", pr.Error, c.HexID(), charged), ErrUnbackedCharge}
	}
	if !okB {
		return &kindError{fmt.Sprintf("payment refused: %s without the channel's balance", pr.Error), ErrNoChannelBalance}
	}
	c.Charged, c.Balance = charged, balance
	if hasVoucher {
		c.SignedMax, c.Signature = signed, sig
	}
	return nil
}

// parseAmount parses a decimal amount of at most 256 bits.
func parseAmount(s string) (*big.Int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return nil, false
	}
	v, ok := new(big.Int).SetString(s, 10)
	return v, ok && v.BitLen() <= 256
}

// ReadState reads the channel from the batch settlement contract: what a
// buyer checks a seller's corrective 402 against (Resync). caller is any
// client of the channel's chain (an ethclient.Client); the caller checks
// that it is the right chain.
func (c *Channel) ReadState(ctx context.Context, caller ethereum.ContractCaller) (batch.ChannelState, error) {
	var out [3][]byte
	for i, data := range batch.ChannelReadCalls(c.ID) {
		to := batch.SettlementAddress
		var err error
		if out[i], err = caller.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil); err != nil {
			return batch.ChannelState{}, fmt.Errorf("reading channel %s: %w", c.HexID(), err)
		}
	}
	st, err := batch.UnpackChannelState(out)
	if err != nil {
		return st, fmt.Errorf("reading channel %s (is the batch settlement contract %s on this chain?): %w", c.HexID(), batch.SettlementAddress.Hex(), err)
	}
	return st, nil
}
