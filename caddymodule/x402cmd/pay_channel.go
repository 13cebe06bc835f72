package x402cmd

// "caddy x402 pay" on a batch-settlement route (a payment channel): the
// first payment deposits into the buyer's channel with a voucher for the
// first request, later ones sign the next cumulative voucher from the
// channel's local record (channel_file.go) without a chain call; a
// corrective 402 resynchronises the record as the published client
// (@x402/evm 2.27 BatchSettlementEvmScheme) does, trusting only figures its
// own signature (or the chain, with --rpc) backs, and pays again once.

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// SchemeChannel is the x402 scheme of a payment channel route.
const SchemeChannel = x402.SchemeBatchSettlement

// DefaultDepositMultiplier is, without --deposit, how many times the price
// a new channel (or a top-up) deposits, as the published client's default
// depositMultiplier.
const DefaultDepositMultiplier = 5

// The refusals of a channel route that "caddy x402 pay" acts on.
const (
	reasonCumulativeMismatch     = "invalid_batch_settlement_evm_cumulative_amount_mismatch"
	reasonCumulativeBelowClaimed = "invalid_batch_settlement_evm_cumulative_below_claimed"
	reasonExceedsBalance         = "invalid_batch_settlement_evm_cumulative_exceeds_balance"
)

// channelFlags are the channel flags of "caddy x402 pay", checked before
// any request.
type channelFlags struct {
	dir        channelDir
	deposit    *big.Int // --deposit; nil: DefaultDepositMultiplier x price
	maxDeposit *big.Int // --max-deposit; nil: DefaultDepositMultiplier x --max-amount
	salt       common.Hash
}

// parseChannelFlags checks --channels, --deposit, --max-deposit and
// --channel-salt.
func parseChannelFlags(o PayOptions, maxAmount *big.Int) (*channelFlags, error) {
	cf := &channelFlags{dir: channelDir(o.Channels)}
	if o.Channels == "" {
		d, err := defaultChannelDir()
		if err != nil {
			return nil, err
		}
		cf.dir = d
	}
	if o.Deposit != "" {
		v, err := x402.ParseAmount(o.Deposit)
		if err != nil {
			return nil, fmt.Errorf("--deposit %q: %w (smallest units)", o.Deposit, err)
		}
		cf.deposit = v
	}
	cf.maxDeposit = new(big.Int).Mul(maxAmount, big.NewInt(DefaultDepositMultiplier))
	if o.MaxDeposit != "" {
		v, err := x402.ParseAmount(o.MaxDeposit)
		if err != nil {
			return nil, fmt.Errorf("--max-deposit %q: %w (smallest units)", o.MaxDeposit, err)
		}
		cf.maxDeposit = v
	}
	if cf.deposit != nil && cf.deposit.Cmp(cf.maxDeposit) > 0 {
		return nil, fmt.Errorf("--deposit %s is more than --max-deposit %s", cf.deposit, cf.maxDeposit)
	}
	if o.ChannelSalt != "" {
		s, ok := new(big.Int).SetString(o.ChannelSalt, 0)
		if !ok || s.Sign() < 0 || s.BitLen() > 256 {
			return nil, fmt.Errorf("--channel-salt %q is not a salt (a whole number, decimal or 0x hex, below 2^256)", o.ChannelSalt)
		}
		cf.salt = common.BigToHash(s)
	}
	return cf, nil
}

// chanPay is one payment from a channel.
type chanPay struct {
	url      string
	key      *ecdsa.PrivateKey
	accepted x402.RequirementsV2
	resource *x402.ResourceInfo
	price    *big.Int
	chainID  *big.Int
	cfg      batch.ChannelConfig
	id       common.Hash
	flags    *channelFlags
	rpc      string
	stderr   io.Writer
	// approve is --approve-permit2 (a Permit2 route's deposit).
	approve string

	// recovering: no record was found and the chain was not read, so
	// charged and balance are zero until the seller says more; probe:
	// the next payment is a voucher alone, even without a balance.
	recovering, probe bool

	// The channel as the buyer knows it.
	charged, balance *big.Int
	signedMax        *big.Int
	signature        []byte
}

// openChanPay makes the payment's chanPay, holds its channel's lock (the
// returned unlock lets it go) and loads its record.
func openChanPay(ctx context.Context, url string, key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo,
	price *big.Int, o PayOptions, stderr io.Writer) (*chanPay, func(), error) {
	c, err := newChanPay(url, key, accepted, resource, price, o, stderr)
	if err != nil {
		return nil, nil, err
	}
	if err := c.flags.dir.prepare(); err != nil {
		return nil, nil, err
	}
	unlock, err := c.lock(ctx, o.Timeout)
	if err != nil {
		return nil, nil, err
	}
	if err := c.load(ctx); err != nil {
		unlock()
		return nil, nil, err
	}
	return c, unlock, nil
}

// newChanPay builds the buyer's channel for a batch-settlement offer: the
// config the published client builds (payer and payer authorizer the key's
// address, salt --channel-salt, 0 by default), refusing offers it cannot
// pay.
func newChanPay(url string, key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo, price *big.Int, o PayOptions, stderr io.Writer) (*chanPay, error) {
	if o.wallet != nil {
		return nil, errors.New("refusing to pay: the route takes scheme batch-settlement (a payment channel), which --smart-wallet does not pay here; pay from the key's own address")
	}
	chainID, ok := x402.ParseCAIP2(accepted.Network)
	if !ok {
		return nil, fmt.Errorf("refusing to pay: batch-settlement on %q, not an eip155 network", accepted.Network)
	}
	ra, _ := accepted.Extra["receiverAuthorizer"].(string)
	if !x402.IsAddress(ra) || common.HexToAddress(ra) == (common.Address{}) {
		return nil, errors.New("refusing to pay: the seller's batch-settlement offer names no receiverAuthorizer (extra.receiverAuthorizer)")
	}
	delay := uint64(batch.MinWithdrawDelay)
	if d, ok := accepted.Extra["withdrawDelay"].(float64); ok {
		if d != float64(uint64(d)) || d < batch.MinWithdrawDelay || d > batch.MaxWithdrawDelay {
			return nil, fmt.Errorf("refusing to pay: the seller's withdrawDelay %v is not a whole number of seconds from %d to %d", d, batch.MinWithdrawDelay, batch.MaxWithdrawDelay)
		}
		delay = uint64(d)
	}
	if m, _ := accepted.Extra["assetTransferMethod"].(string); m != "" && m != "eip3009" && m != "permit2" {
		return nil, fmt.Errorf("refusing to pay: the seller takes channel deposits by %s; this command deposits by eip3009 or permit2 only", m)
	}
	if !x402.IsAddress(accepted.PayTo) || !x402.IsAddress(accepted.Asset) {
		return nil, fmt.Errorf("refusing to pay: the offer's payTo %q or asset %q is not an address", accepted.PayTo, accepted.Asset)
	}
	if o.PaymentID != "" {
		fmt.Fprintf(stderr, "x402: a channel payment carries no payment id (a voucher is charged once by its cumulative amount): paying without --payment-id\n")
	}
	payer := crypto.PubkeyToAddress(key.PublicKey)
	c := &chanPay{url: url, key: key, accepted: accepted, resource: resource, price: price, chainID: big.NewInt(chainID),
		flags: o.chans, rpc: o.RPC, stderr: stderr, approve: o.ApprovePermit2,
		cfg: batch.ChannelConfig{Payer: payer, PayerAuthorizer: payer, Receiver: common.HexToAddress(accepted.PayTo),
			ReceiverAuthorizer: common.HexToAddress(ra), Token: common.HexToAddress(accepted.Asset), WithdrawDelay: delay, Salt: o.chans.salt}}
	id, err := c.cfg.ID(c.chainID)
	if err != nil {
		return nil, fmt.Errorf("refusing to pay: the channel config: %w", err)
	}
	c.id = id
	return c, nil
}

// payChannel pays a batch-settlement route from the key's channel to its
// seller: it holds the channel's lock for the whole payment, deposits when
// the channel has no balance for the next voucher, and resynchronises
// once from a corrective 402.
func payChannel(ctx context.Context, url string, pr *x402.PaymentRequiredV2, accepted x402.RequirementsV2, price *big.Int, key *ecdsa.PrivateKey, o PayOptions,
	do func(string, string) (*http.Response, []byte, error), stdout, stderr io.Writer) error {
	c, unlock, err := openChanPay(ctx, url, key, accepted, pr.Resource, price, o, stderr)
	if err != nil {
		return err
	}
	defer unlock()
	// One resynchronisation (a corrective 402, or a balance found short)
	// and one voucher sent to learn a lost channel's state.
	retried, probed := false, false
	for {
		header, deposit, max, err := c.payment()
		if err != nil {
			return err
		}
		resp, data, err := do(x402.HeaderPaymentSignature, header)
		if err != nil {
			return fmt.Errorf("%w (the channel record is unchanged: the next payment resynchronises with the seller)", err)
		}
		settlement := resp.Header.Get(x402.HeaderPaymentResponseV2)
		if resp.StatusCode == http.StatusPaymentRequired {
			var refused x402.PaymentRequiredV2
			_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &refused)
			switch {
			case !probed && c.recovering && refused.Error == reasonCumulativeBelowClaimed && !hasChannelState(&refused):
				// A deposit of a channel we hold no record of, refused
				// as below what the chain has claimed without the
				// seller's state: a voucher alone gets the corrective
				// 402 with it.
				probed, c.probe = true, true
				fmt.Fprintf(stderr, "x402: channel %s has been claimed beyond what we know: asking the seller for its state\n", c.hexID())
				continue
			case !retried && (refused.Error == reasonCumulativeMismatch || refused.Error == reasonCumulativeBelowClaimed):
				retried = true
				if err := c.resync(ctx, &refused); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "x402: the seller's record of channel %s differs from ours: resynchronised (charged %s, balance %s); paying again\n", c.hexID(), c.charged, c.balance)
				continue
			case !retried && refused.Error == reasonExceedsBalance && deposit == nil:
				retried = true
				// Our balance was wrong (a refund or withdrawal we did not
				// see): read it again, or deposit.
				if err := c.rebalance(ctx); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "x402: channel %s has less balance than recorded: now %s; paying again\n", c.hexID(), c.balance)
				continue
			}
			reason := refused.Error
			if reason == "" {
				reason = strings.TrimSpace(string(data))
			}
			if deposit != nil {
				return fmt.Errorf("payment refused: %s (nothing was charged, and the deposit was not made)%s", reason, permit2Hint(reason))
			}
			return fmt.Errorf("payment refused: %s (nothing was charged)", reason)
		}
		charged := c.settled(settlement, deposit, max)
		if settlement != "" {
			fmt.Fprintf(stderr, "x402: settlement (PAYMENT-RESPONSE):\n%s\n", decodePaymentResponse(settlement))
		}
		if err := c.save(); err != nil {
			return err
		}
		if charged != nil {
			fmt.Fprintf(stderr, "x402: paid %s smallest units from channel %s: charged cumulative %s, balance %s, remaining %s (record %s)\n",
				charged, c.hexID(), c.charged, c.balance, new(big.Int).Sub(c.balance, c.charged), c.flags.dir.file(c.id))
		}
		if err := writeBody(stdout, data); err != nil {
			return err
		}
		if resp.StatusCode >= 400 {
			if charged != nil {
				return fmt.Errorf("%s answered %s after the voucher was charged (%s smallest units)", url, resp.Status, charged)
			}
			return fmt.Errorf("%s answered %s; the seller reported no charge", url, resp.Status)
		}
		if charged == nil {
			fmt.Fprintf(stderr, "x402: %s answered %s without a charge in PAYMENT-RESPONSE: the next payment resynchronises with the seller\n", url, resp.Status)
		}
		return nil
	}
}

// hasChannelState reports whether a 402 carries a channel's state to
// resynchronise from.
func hasChannelState(pr *x402.PaymentRequiredV2) bool {
	for _, a := range pr.Accepts {
		if _, ok := a.Extra["channelState"].(map[string]any); ok {
			return true
		}
	}
	return false
}

// lock takes the channel's lock, waiting for another command paying from
// it at most four request timeouts (its requests, a retry, a deposit's
// block); a command that dies lets go at once.
func (c *chanPay) lock(ctx context.Context, timeout time.Duration) (func(), error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 4*timeout)
		defer cancel()
	}
	return c.flags.dir.lock(ctx, c.id, func() {
		fmt.Fprintf(c.stderr, "x402: waiting for another caddy x402 pay on channel %s\n", c.hexID())
	})
}

// hexID is the channel id as the records name it.
func (c *chanPay) hexID() string { return strings.ToLower(c.id.Hex()) }

// load reads the channel's record; without one, the chain's state with
// --rpc (the published client's recoverChannel), else an empty channel:
// the first payment then deposits, and a seller that knows the channel
// answers a corrective 402 before anything is settled.
func (c *chanPay) load(ctx context.Context) error {
	rec, err := c.flags.dir.load(c.id)
	if err != nil {
		return err
	}
	if rec != nil {
		c.charged, _ = parseAmount(rec.Charged)
		c.balance, _ = parseAmount(rec.Balance)
		if rec.SignedMax != "" {
			if v, ok := parseAmount(rec.SignedMax); ok {
				if sig, err := hexutil.Decode(rec.Signature); err == nil {
					c.signedMax, c.signature = v, sig
				}
			}
		}
		return nil
	}
	c.charged, c.balance = new(big.Int), new(big.Int)
	if c.rpc == "" {
		c.recovering = true
		return nil
	}
	st, err := c.chainState(ctx)
	if err != nil {
		return err
	}
	c.charged, c.balance = st.TotalClaimed, st.Balance
	fmt.Fprintf(c.stderr, "x402: no record of channel %s here: the chain says balance %s, claimed %s\n", c.hexID(), st.Balance, st.TotalClaimed)
	return nil
}

// save writes the channel's record.
func (c *chanPay) save() error {
	rec := &channelRecord{Network: c.accepted.Network, Config: c.cfg, Charged: c.charged.String(), Balance: c.balance.String(), URL: c.url}
	if c.signedMax != nil {
		rec.SignedMax, rec.Signature = c.signedMax.String(), hexutil.Encode(c.signature)
	}
	return c.flags.dir.save(c.id, rec)
}

// payment signs the next payment: a voucher for charged + price, with a
// deposit when the balance does not cover it (nil deposit otherwise).
func (c *chanPay) payment() (string, *big.Int, *big.Int, error) {
	max := new(big.Int).Add(c.charged, c.price)
	sig, err := batch.SignVoucher(c.key, c.chainID, c.id, max)
	if err != nil {
		return "", nil, nil, fmt.Errorf("signing the voucher: %w", err)
	}
	payload := map[string]any{"type": "voucher", "channelConfig": c.cfg,
		"voucher": map[string]any{"channelId": c.id.Hex(), "maxClaimableAmount": max.String(), "signature": hexutil.Encode(sig)}}
	var deposit *big.Int
	if c.probe {
		c.probe = false
		fmt.Fprintf(c.stderr, "x402: sending a voucher for %s on channel %s to learn the seller's state\n", max, c.hexID())
	} else if c.balance.Sign() == 0 || max.Cmp(c.balance) > 0 {
		if deposit, err = c.depositAmount(max); err != nil {
			return "", nil, nil, err
		}
		d, err := c.signDeposit(deposit)
		if err != nil {
			return "", nil, nil, err
		}
		payload["type"], payload["deposit"] = "deposit", d
		what := "opening channel"
		if c.balance.Sign() > 0 {
			what = "topping up channel"
		}
		fmt.Fprintf(c.stderr, "x402: %s %s to %s: depositing %s smallest units of %s on %s from %s (withdraw delay %d s), with a voucher for %s (price %s)\n",
			what, c.hexID(), c.accepted.PayTo, deposit, c.accepted.Asset, c.accepted.Network, c.cfg.Payer.Hex(), c.cfg.WithdrawDelay, max, c.price)
	} else {
		fmt.Fprintf(c.stderr, "x402: paying %s smallest units from channel %s: voucher for %s (x402 version 2, batch-settlement)\n", c.price, c.hexID(), max)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return "", nil, nil, err
	}
	h, err := x402.EncodeBase64JSON(x402.PaymentPayloadV2{X402Version: x402.Version2, Resource: c.resource, Accepted: c.accepted, Payload: raw})
	if err != nil {
		return "", nil, nil, err
	}
	c.signedMax, c.signature = max, sig
	return h, deposit, max, nil
}

// depositAmount is what to deposit for a voucher of max: --deposit, else
// the seller's extra.minDeposit (when at least the price), else
// DefaultDepositMultiplier x price, and never less than max - balance;
// refused above --max-deposit.
func (c *chanPay) depositAmount(max *big.Int) (*big.Int, error) {
	needed := new(big.Int).Sub(max, c.balance)
	target := new(big.Int).Mul(c.price, big.NewInt(DefaultDepositMultiplier))
	if s, ok := c.accepted.Extra["minDeposit"].(string); ok {
		if v, ok := parseAmount(s); ok && v.Cmp(c.price) >= 0 {
			target = v
		}
	}
	if c.flags.deposit != nil {
		target = c.flags.deposit
	}
	if needed.Cmp(target) > 0 {
		target = needed
	}
	if target.Cmp(c.flags.maxDeposit) > 0 {
		return nil, fmt.Errorf("refusing to pay: the channel deposit of %s smallest units is more than --max-deposit %s; give a larger --max-deposit (or --max-amount) to deposit it", target, c.flags.maxDeposit)
	}
	return target, nil
}

// signDeposit is the payload's deposit (on a Permit2 route,
// signPermit2Deposit's): an EIP-3009
// ReceiveWithAuthorization of amount to the ERC-3009 deposit collector
// under the token's domain (extra name and version), with a new salt (the
// authorization's nonce is keccak256(channelId, salt)), valid for the
// offer's maxTimeoutSeconds.
func (c *chanPay) signDeposit(amount *big.Int) (map[string]any, error) {
	if c.permit2Deposits() {
		return c.signPermit2Deposit(amount) // pay_channel_permit2.go
	}
	dom := c.accepted.Domain()
	if dom == nil {
		return nil, fmt.Errorf("refusing to pay: the seller's batch-settlement offer lacks the token's EIP-712 name and version (extra.name, extra.version) that a deposit is signed under")
	}
	var salt [32]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return nil, err
	}
	timeout := c.accepted.MaxTimeoutSeconds
	if timeout <= 0 {
		timeout = 300
	}
	before := big.NewInt(time.Now().Unix() + timeout)
	d := batch.ERC3009Deposit{From: c.cfg.Payer, Value: amount, ValidAfter: new(big.Int), ValidBefore: before,
		Salt: new(big.Int).SetBytes(salt[:]), ChannelID: c.id}
	sig, err := batch.SignERC3009Deposit(c.key, evm.Domain{Name: dom.Name, Version: dom.Version, ChainID: c.chainID, VerifyingContract: c.cfg.Token}, d)
	if err != nil {
		return nil, fmt.Errorf("signing the deposit: %w", err)
	}
	return map[string]any{"amount": amount.String(), "authorization": map[string]any{"erc3009Authorization": map[string]any{
		"validAfter": "0", "validBefore": before.String(), "salt": hexutil.Encode(salt[:]), "signature": hexutil.Encode(sig)}}}, nil
}

// settled takes a paid answer's PAYMENT-RESPONSE into the channel, as the
// published client's updateChannelFromSettle: charged grows by
// extra.chargedAmount (at most the price), only when the seller's
// channelState.chargedCumulativeAmount agrees; a deposit adds to the
// balance. It returns the amount charged, nil when none was reported.
func (c *chanPay) settled(settlement string, deposit, max *big.Int) *big.Int {
	var sr x402.ReferenceSettleResponse
	if settlement == "" || x402.DecodeBase64JSON(settlement, &sr) != nil || !sr.Success {
		return nil
	}
	if deposit != nil {
		c.balance = new(big.Int).Add(c.balance, deposit)
	}
	amount := new(big.Int)
	if s, ok := sr.Extra["chargedAmount"].(string); ok {
		v, ok := parseAmount(s)
		if !ok || v.Cmp(c.price) > 0 {
			fmt.Fprintf(c.stderr, "x402: the seller reports chargedAmount %q, not an amount up to the price %s: the channel record keeps charged %s\n", s, c.price, c.charged)
			return nil
		}
		amount = v
	}
	next := new(big.Int).Add(c.charged, amount)
	cs, _ := sr.Extra["channelState"].(map[string]any)
	if s, ok := cs["chargedCumulativeAmount"].(string); ok {
		if v, ok := parseAmount(s); !ok || v.Cmp(next) != 0 {
			fmt.Fprintf(c.stderr, "x402: the seller reports charged cumulative %q, not %s: the channel record keeps %s; the next payment resynchronises\n", s, next, c.charged)
			return amount
		}
	}
	c.charged = next
	return amount
}

// resync takes the seller's corrective 402 into the channel, as the
// published client's processCorrectivePaymentRequired: a charged amount is
// taken only when a voucher of ours at least as high backs it (the
// voucherState's signature recovers to our payer authorizer), and, with
// --rpc, when it is not below what the chain has claimed, the balance then
// coming from the chain. Without a voucher, only the chain (--rpc) or our
// own last voucher is trusted.
func (c *chanPay) resync(ctx context.Context, pr *x402.PaymentRequiredV2) error {
	var acc *x402.RequirementsV2
	for i := range pr.Accepts {
		if pr.Accepts[i].Scheme == SchemeChannel && strings.EqualFold(pr.Accepts[i].Network, c.accepted.Network) {
			acc = &pr.Accepts[i]
			break
		}
	}
	if acc == nil {
		return fmt.Errorf("payment refused: %s, and the corrective 402 offers no batch-settlement on %s to resynchronise from", pr.Error, c.accepted.Network)
	}
	cs, _ := acc.Extra["channelState"].(map[string]any)
	vs, _ := acc.Extra["voucherState"].(map[string]any)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	if id := str(cs, "channelId"); id != "" && !strings.EqualFold(id, c.id.Hex()) {
		return fmt.Errorf("payment refused: %s for channel %s, not ours (%s): not resynchronising", pr.Error, id, c.hexID())
	}
	charged, okC := parseAmount(str(cs, "chargedCumulativeAmount"))
	balance, okB := parseAmount(str(cs, "balance"))
	if !okC {
		return fmt.Errorf("payment refused: %s without the channel's chargedCumulativeAmount: cannot resynchronise", pr.Error)
	}
	signed, okS := parseAmount(str(vs, "signedMaxClaimable"))
	sig, errSig := hexutil.Decode(str(vs, "signature"))
	backed := false
	if okS && errSig == nil && len(sig) > 0 {
		if charged.Cmp(signed) > 0 {
			return fmt.Errorf("payment refused: %s; the seller says charged %s above its voucher of %s: not trusted, not paying", pr.Error, charged, signed)
		}
		got, err := batch.RecoverVoucherSigner(c.chainID, c.id, signed, sig)
		if err != nil || got != c.cfg.PayerAuthorizer {
			return fmt.Errorf("payment refused: %s; the seller's voucher of %s for channel %s is not signed by %s: not trusted, not paying", pr.Error, signed, c.hexID(), c.cfg.PayerAuthorizer.Hex())
		}
		backed = true
	} else if c.signedMax != nil && charged.Cmp(c.signedMax) <= 0 {
		backed = true // our own last voucher covers it
	}
	if c.rpc != "" {
		st, err := c.chainState(ctx)
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
		return fmt.Errorf("payment refused: %s; the seller says channel %s is charged %s but shows no voucher of ours for it: give --rpc URL to read the channel from the chain", pr.Error, c.hexID(), charged)
	}
	if !okB {
		return fmt.Errorf("payment refused: %s without the channel's balance: give --rpc URL to read it from the chain", pr.Error)
	}
	c.charged, c.balance, c.recovering = charged, balance, false
	if okS && errSig == nil && len(sig) > 0 {
		c.signedMax, c.signature = signed, sig
	}
	return c.save()
}

// rebalance, after a voucher refused as beyond the channel's balance,
// reads the balance from the chain (--rpc) or takes it as spent, so that
// the next payment deposits.
func (c *chanPay) rebalance(ctx context.Context) error {
	if c.rpc == "" {
		c.balance = new(big.Int).Set(c.charged)
		return c.save()
	}
	st, err := c.chainState(ctx)
	if err != nil {
		return err
	}
	c.balance = st.Balance
	if c.balance.Cmp(new(big.Int).Add(c.charged, c.price)) >= 0 {
		return fmt.Errorf("payment refused: %s, but the chain says channel %s holds %s for a voucher of %s", reasonExceedsBalance, c.hexID(), st.Balance, new(big.Int).Add(c.charged, c.price))
	}
	return c.save()
}

// chainState reads the channel from the settlement contract through --rpc.
func (c *chanPay) chainState(ctx context.Context) (batch.ChannelState, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, c.rpc)
	if err != nil {
		return batch.ChannelState{}, fmt.Errorf("--rpc: %w", err)
	}
	defer cl.Close()
	if id, err := cl.ChainID(ctx); err != nil || id.Cmp(c.chainID) != 0 {
		return batch.ChannelState{}, fmt.Errorf("--rpc: %s is not chain %s (chain id %v, %v)", c.rpc, c.chainID, id, err)
	}
	var out [3][]byte
	for i, data := range batch.ChannelReadCalls(c.id) {
		to := batch.SettlementAddress
		if out[i], err = cl.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil); err != nil {
			return batch.ChannelState{}, fmt.Errorf("--rpc: reading channel %s: %w", c.hexID(), err)
		}
	}
	st, err := batch.UnpackChannelState(out)
	if err != nil {
		return st, fmt.Errorf("--rpc: reading channel %s (is the batch settlement contract %s on this chain?): %w", c.hexID(), batch.SettlementAddress.Hex(), err)
	}
	return st, nil
}
