package batchsettlement

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// payment is a checked batch-settlement payload (deposit, voucher or
// refund) and, once verified, the channel's state.
type payment struct {
	kind string
	cfg  batch.ChannelConfig
	id   common.Hash
	max  *big.Int
	// A deposit's amount, window, salt, signature and EIP-3009 nonce.
	amount, validAfter, validBefore, salt *big.Int
	depositSig                            []byte
	nonce                                 common.Hash
	// A Permit2 deposit (permit2.go): its nonce (validBefore is its
	// deadline) and the EIP-2612 permit to Permit2 it may bring.
	permit2 bool
	p2nonce *big.Int
	permit  *permit2.EIP2612Permit
	// state is the channel as read by Verify; valid says Verify found
	// the payload valid.
	state *batch.ChannelState
	valid bool
	// A claim's rows and authorizer signature (also an enriched refund's).
	claims   []batch.VoucherClaim
	claimSig []byte
	// A settle's receiver and token.
	receiver, token common.Address
	// An enriched refund, and the reason a verify of it gives (its
	// config against the requirements, which its settle does not check).
	refund       *refundReq
	verifyReason string
}

// refundReq is what an enriched refund adds to a refund payload.
type refundReq struct {
	amount, nonce *big.Int
	sig           []byte
}

func (c *payment) Payer() common.Address { return c.cfg.Payer }
func (c *payment) Nonce() [32]byte       { return c.nonce }
func (c *payment) Value() *big.Int {
	if c.amount == nil {
		return new(big.Int)
	}
	return c.amount
}

// ReceiverOp implements scheme.ReceiverOp: a claim, settle or refund acts
// for the receivers of its channels (a settle: its receiver).
func (c *payment) ReceiverOp() (string, []common.Address) {
	switch c.kind {
	case "claim", "settle", "refund":
	default:
		return "", nil
	}
	var out []common.Address
	add := func(a common.Address) {
		for _, o := range out {
			if o == a {
				return
			}
		}
		out = append(out, a)
	}
	if c.kind == "settle" {
		add(c.receiver)
	} else if c.kind == "refund" {
		add(c.cfg.Receiver)
	}
	for _, r := range c.claims {
		add(r.Voucher.Channel.Receiver)
	}
	return c.kind, out
}

var _ scheme.VerifyExtra = (*payment)(nil)

// VerifyPayer is the verify answer's payer: the channel's.
func (c *payment) VerifyPayer() string { return c.cfg.Payer.Hex() }

// VerifyExtra is a valid answer's channel state, as the published
// facilitator gives it.
func (c *payment) VerifyExtra() map[string]any {
	if !c.valid || c.state == nil {
		return nil
	}
	return channelStateExtra(c.id, *c.state)
}

func channelStateExtra(id common.Hash, s batch.ChannelState) map[string]any {
	return map[string]any{
		"channelId":           id.Hex(),
		"balance":             s.Balance.String(),
		"totalClaimed":        s.TotalClaimed.String(),
		"withdrawRequestedAt": s.WithdrawRequestedAt,
		"refundNonce":         s.RefundNonce.String(),
	}
}

// requirementsExtra is the seller's requirements' extra (v2), else what the
// payment's accepted echoes.
func requirementsExtra(req *x402.Request, p *x402.Payment) map[string]any {
	if req.RequirementsV2 != nil && req.RequirementsV2.Extra != nil {
		return req.RequirementsV2.Extra
	}
	if p.Accepted != nil {
		return p.Accepted.Extra
	}
	return nil
}

// Check decodes the payload and runs the published facilitator's off-chain
// checks in its order: the channel config against the requirements, then
// for a deposit its ERC-3009 authorization, then the voucher's signature.
func (b *bound) Check(req *x402.Request, p *x402.Payment) (scheme.Payment, string) {
	r := &req.PaymentRequirements
	if !common.IsHexAddress(r.Asset) || common.HexToAddress(r.Asset) != b.Token {
		return nil, x402.ReasonUnsupportedAsset(r.Asset)
	}
	raw, err := p.PayloadJSON()
	if err != nil {
		return nil, x402.ReasonOf(err)
	}
	var pl payloadJSON
	if err := json.Unmarshal(raw, &pl); err != nil {
		return nil, ErrInvalidPayloadType
	}
	switch pl.Type {
	case "claim":
		c := &payment{kind: pl.Type, claimSig: pl.ClaimAuthorizerSignature}
		var ok bool
		if c.claims, ok = rows(pl.Claims); !ok || len(c.claims) == 0 || pl.Claims == nil {
			return nil, ErrInvalidPayloadType
		}
		c.cfg.Payer = c.claims[0].Voucher.Channel.Payer
		return c, ""
	case "settle":
		if pl.Receiver == nil || pl.Token == nil {
			return nil, ErrInvalidPayloadType
		}
		c := &payment{kind: pl.Type, receiver: *pl.Receiver, token: *pl.Token}
		c.cfg.Payer = *pl.Receiver
		return c, ""
	}
	if pl.ChannelConfig == nil || pl.Voucher == nil {
		return nil, ErrInvalidPayloadType
	}
	switch pl.Type {
	case "deposit":
		if pl.Deposit == nil {
			return nil, ErrInvalidPayloadType
		}
	case "voucher", "refund":
	default:
		return nil, ErrInvalidPayloadType
	}
	c := &payment{kind: pl.Type, cfg: *pl.ChannelConfig}
	var ok bool
	if c.max, ok = parseUint(pl.Voucher.MaxClaimableAmount, 128); !ok {
		return nil, ErrInvalidPayloadType
	}
	extra := requirementsExtra(req, p)
	if pl.Type == "refund" && pl.Amount != nil && pl.RefundNonce != nil && pl.Claims != nil {
		// An enriched refund is the seller's own request to settle (its
		// channel manager sends requirements with an empty extra): as the
		// published facilitator, only its channel id is checked here; who
		// signs it is checked at settle.
		if id, err := c.cfg.ID(b.ChainID); err != nil || id != pl.Voucher.ChannelID {
			return nil, ErrChannelIDMismatch
		}
		// Verify (the published verifyVoucher) still checks it against the
		// requirements.
		c.verifyReason = b.checkConfig(c, pl.Voucher.ChannelID, r, extra)
		c.id = pl.Voucher.ChannelID
		return b.checkRefund(c, &pl)
	}
	if reason := b.checkConfig(c, pl.Voucher.ChannelID, r, extra); reason != "" {
		return nil, reason
	}
	if c.kind == "deposit" {
		if reason := b.checkDeposit(c, pl.Deposit, extra, p); reason != "" {
			return nil, reason
		}
	}
	signer := c.cfg.PayerAuthorizer
	if signer == (common.Address{}) {
		signer = c.cfg.Payer
	}
	if got, err := batch.RecoverVoucherSigner(b.ChainID, c.id, c.max, pl.Voucher.Signature); err != nil || got != signer {
		return nil, ErrInvalidVoucherSignature
	}
	return c, ""
}

// checkRefund reads an enriched refund's amount, nonce and claims.
func (b *bound) checkRefund(c *payment, pl *payloadJSON) (scheme.Payment, string) {
	r := &refundReq{sig: pl.RefundAuthorizerSignature}
	var ok [3]bool
	r.amount, ok[0] = parseUint(*pl.Amount, 128)
	r.nonce, ok[1] = parseUint(*pl.RefundNonce, 256)
	c.claims, ok[2] = rows(pl.Claims)
	if !ok[0] || !ok[1] || !ok[2] {
		return nil, ErrInvalidPayloadType
	}
	c.refund, c.claimSig = r, pl.ClaimAuthorizerSignature
	return c, ""
}

// checkConfig is the published validateChannelConfig: the id, receiver,
// receiver authorizer, token and withdraw delay.
func (b *bound) checkConfig(c *payment, id common.Hash, r *x402.PaymentRequirements, extra map[string]any) string {
	got, err := c.cfg.ID(b.ChainID)
	if err != nil || got != id {
		return ErrChannelIDMismatch
	}
	c.id = id
	if !common.IsHexAddress(r.PayTo) || common.HexToAddress(r.PayTo) != c.cfg.Receiver {
		return ErrReceiverMismatch
	}
	ra, _ := extra["receiverAuthorizer"].(string)
	if !common.IsHexAddress(ra) || common.HexToAddress(ra) == (common.Address{}) || common.HexToAddress(ra) != c.cfg.ReceiverAuthorizer {
		return ErrReceiverAuthorizerMismatch
	}
	if c.cfg.Token != common.HexToAddress(r.Asset) {
		return ErrTokenMismatch
	}
	if wd, present := extra["withdrawDelay"]; present {
		if fmt.Sprint(wd) != fmt.Sprint(c.cfg.WithdrawDelay) {
			return ErrWithdrawDelayMismatch
		}
	}
	if c.cfg.WithdrawDelay < batch.MinWithdrawDelay || c.cfg.WithdrawDelay > batch.MaxWithdrawDelay {
		return ErrWithdrawDelayOutOfRange
	}
	return ""
}

// checkDeposit checks an ERC-3009 deposit authorization: present, the
// token's domain named, its window, its signature by the payer. The
// method is the requirements' assetTransferMethod, else the payload's; a
// Permit2 deposit is checked by checkPermit2Deposit where it is served
// (the flavour's bound), else refused: ErrInvalidPayloadType.
func (b *bound) checkDeposit(c *payment, d *depositJSON, extra map[string]any, p *x402.Payment) string {
	method, _ := extra["assetTransferMethod"].(string)
	a := d.Authorization.ERC3009
	if method == "permit2" || (method == "" && a == nil && d.Authorization.Permit2 != nil) {
		if !b.permit2 {
			return ErrInvalidPayloadType
		}
		return b.checkPermit2Deposit(c, d, c.id, p)
	}
	if a == nil {
		return ErrErc3009AuthorizationRequired
	}
	name, _ := extra["name"].(string)
	version, _ := extra["version"].(string)
	if name == "" || version == "" {
		return ErrMissingEip712Domain
	}
	var ok [3]bool
	c.amount, ok[0] = parseUint(d.Amount, 128)
	c.validAfter, ok[1] = parseUint(a.ValidAfter, 256)
	c.validBefore, ok[2] = parseUint(a.ValidBefore, 256)
	if !ok[0] || !ok[1] || !ok[2] || c.amount.Sign() == 0 {
		return ErrInvalidPayloadType
	}
	now := b.env.Now().Unix()
	if c.validBefore.Cmp(big.NewInt(now+6)) < 0 {
		return ErrValidBeforeExpired
	}
	if c.validAfter.Cmp(big.NewInt(now)) > 0 {
		return ErrValidAfterInFuture
	}
	c.salt = a.Salt.Big()
	c.depositSig = a.Signature
	dep := batch.ERC3009Deposit{From: c.cfg.Payer, Value: c.amount, ValidAfter: c.validAfter, ValidBefore: c.validBefore, Salt: c.salt, ChannelID: c.id}
	domain := b.Domain
	if !strings.EqualFold(domain.Name, name) || domain.Version != version {
		domain.Name, domain.Version = name, version // the payer signed under the seller's names
	}
	digest, err := batch.ERC3009DepositDigest(domain, dep)
	if err != nil {
		return ErrInvalidPayloadType
	}
	if got, err := evm.RecoverDigest(digest, c.depositSig); err != nil || got != c.cfg.Payer {
		return ErrInvalidReceiveAuthSignature
	}
	if c.nonce, err = batch.ERC3009DepositNonce(c.id, c.salt); err != nil {
		return ErrInvalidPayloadType
	}
	return ""
}
