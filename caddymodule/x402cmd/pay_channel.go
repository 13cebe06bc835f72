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
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// SchemeChannel is the x402 scheme of a payment channel route.
const SchemeChannel = x402.SchemeBatchSettlement

// channelFlags are the channel flags of "caddy x402 pay", checked before
// any request.
type channelFlags struct {
	dir        channelDir
	deposit    *big.Int // --deposit; nil: batchsettlement.DefaultDepositMultiplier x price
	maxDeposit *big.Int // --max-deposit; nil: batchsettlement.DefaultDepositMultiplier x --max-amount
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
	cf.maxDeposit = new(big.Int).Mul(maxAmount, big.NewInt(batchsettlement.DefaultDepositMultiplier))
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

// chanPay is one payment from a channel: the buyer's channel
// (batchsettlement.Channel, which signs and keeps the figures) and what the
// command adds to it.
type chanPay struct {
	*batchsettlement.Channel
	url    string
	price  *big.Int
	flags  *channelFlags
	rpc    string
	stderr io.Writer
	// approve is --approve-permit2 (a Permit2 route's deposit).
	approve string

	// recovering: no record was found and the chain was not read, so
	// charged and balance are zero until the seller says more; probe:
	// the next payment is a voucher alone, even without a balance.
	recovering, probe bool
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
	ch, err := batchsettlement.NewChannel(key, accepted, resource, o.chans.salt)
	if err != nil {
		return nil, fmt.Errorf("refusing to pay: %w", err)
	}
	if o.PaymentID != "" {
		fmt.Fprintf(stderr, "x402: a channel payment carries no payment id (a voucher is charged once by its cumulative amount): paying without --payment-id\n")
	}
	return &chanPay{Channel: ch, url: url, price: price, flags: o.chans, rpc: o.RPC, stderr: stderr, approve: o.ApprovePermit2}, nil
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
			case !probed && c.recovering && refused.Error == batchsettlement.ErrCumulativeAmountBelowClaimed && !batchsettlement.HasChannelState(&refused):
				// A deposit of a channel we hold no record of, refused
				// as below what the chain has claimed without the
				// seller's state: a voucher alone gets the corrective
				// 402 with it.
				probed, c.probe = true, true
				fmt.Fprintf(stderr, "x402: channel %s has been claimed beyond what we know: asking the seller for its state\n", c.HexID())
				continue
			case !retried && (refused.Error == batchsettlement.ErrCumulativeMismatch || refused.Error == batchsettlement.ErrCumulativeAmountBelowClaimed):
				retried = true
				if err := c.resync(ctx, &refused); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "x402: the seller's record of channel %s differs from ours: resynchronised (charged %s, balance %s); paying again\n", c.HexID(), c.Charged, c.Balance)
				continue
			case !retried && refused.Error == batchsettlement.ErrCumulativeExceedsBalance && deposit == nil:
				retried = true
				// Our balance was wrong (a refund or withdrawal we did not
				// see): read it again, or deposit.
				if err := c.rebalance(ctx); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "x402: channel %s has less balance than recorded: now %s; paying again\n", c.HexID(), c.Balance)
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
				charged, c.HexID(), c.Charged, c.Balance, new(big.Int).Sub(c.Balance, c.Charged), c.flags.dir.file(c.ID))
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
		o.check.maxCumulative = max
		return o.check.receipt(settlementJSON(settlement))
	}
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
	return c.flags.dir.lock(ctx, c.ID, func() {
		fmt.Fprintf(c.stderr, "x402: waiting for another caddy x402 pay on channel %s\n", c.HexID())
	})
}

// load reads the channel's record; without one, the chain's state with
// --rpc (the published client's recoverChannel), else an empty channel:
// the first payment then deposits, and a seller that knows the channel
// answers a corrective 402 before anything is settled.
func (c *chanPay) load(ctx context.Context) error {
	rec, err := c.flags.dir.load(c.ID)
	if err != nil {
		return err
	}
	if rec != nil {
		c.Charged, _ = parseAmount(rec.Charged)
		c.Balance, _ = parseAmount(rec.Balance)
		if rec.SignedMax != "" {
			if v, ok := parseAmount(rec.SignedMax); ok {
				if sig, err := hexutil.Decode(rec.Signature); err == nil {
					c.SignedMax, c.Signature = v, sig
				}
			}
		}
		return nil
	}
	c.Charged, c.Balance = new(big.Int), new(big.Int)
	if c.rpc == "" {
		c.recovering = true
		return nil
	}
	st, err := c.chainState(ctx)
	if err != nil {
		return err
	}
	c.Charged, c.Balance = st.TotalClaimed, st.Balance
	fmt.Fprintf(c.stderr, "x402: no record of channel %s here: the chain says balance %s, claimed %s\n", c.HexID(), st.Balance, st.TotalClaimed)
	return nil
}

// save writes the channel's record.
func (c *chanPay) save() error {
	rec := &channelRecord{Network: c.Accepted.Network, Config: c.Config, Charged: c.Charged.String(), Balance: c.Balance.String(), URL: c.url}
	if c.SignedMax != nil {
		rec.SignedMax, rec.Signature = c.SignedMax.String(), hexutil.Encode(c.Signature)
	}
	return c.flags.dir.save(c.ID, rec)
}

// payment signs the next payment: a voucher for charged + price, with a
// deposit when the balance does not cover it (nil deposit otherwise).
func (c *chanPay) payment() (string, *big.Int, *big.Int, error) {
	max := new(big.Int).Add(c.Charged, c.price)
	var deposit *big.Int
	var d map[string]any
	if c.probe {
		c.probe = false
		fmt.Fprintf(c.stderr, "x402: sending a voucher for %s on channel %s to learn the seller's state\n", max, c.HexID())
	} else if c.NeedsDeposit(max) {
		var err error
		if deposit, err = c.depositAmount(max); err != nil {
			return "", nil, nil, err
		}
		if d, err = c.signDeposit(deposit); err != nil {
			return "", nil, nil, err
		}
		what := "opening channel"
		if c.Balance.Sign() > 0 {
			what = "topping up channel"
		}
		fmt.Fprintf(c.stderr, "x402: %s %s to %s: depositing %s smallest units of %s on %s from %s (withdraw delay %d s), with a voucher for %s (price %s)\n",
			what, c.HexID(), c.Accepted.PayTo, deposit, c.Accepted.Asset, c.Accepted.Network, c.Config.Payer.Hex(), c.Config.WithdrawDelay, max, c.price)
	} else {
		fmt.Fprintf(c.stderr, "x402: paying %s smallest units from channel %s: voucher for %s (x402 version 2, batch-settlement)\n", c.price, c.HexID(), max)
	}
	h, err := c.Pay(max, d)
	if err != nil {
		return "", nil, nil, err
	}
	return h, deposit, max, nil
}

// depositAmount is what to deposit for a voucher of max
// (batchsettlement.Channel.DepositFor, --deposit preferred), refused above
// --max-deposit.
func (c *chanPay) depositAmount(max *big.Int) (*big.Int, error) {
	target := c.DepositFor(max, c.price, c.flags.deposit)
	if target.Cmp(c.flags.maxDeposit) > 0 {
		return nil, fmt.Errorf("refusing to pay: the channel deposit of %s smallest units is more than --max-deposit %s; give a larger --max-deposit (or --max-amount) to deposit it", target, c.flags.maxDeposit)
	}
	return target, nil
}

// signDeposit is the payload's deposit (batchsettlement.Channel.SignDeposit).
// On a Permit2 route, --approve-permit2 first approves Permit2 on the
// token (one transaction, skipped when the allowance covers the deposit);
// without it, a wallet that never approved Permit2 is refused by the
// seller (permit2_allowance_required).
func (c *chanPay) signDeposit(amount *big.Int) (map[string]any, error) {
	if c.Permit2Deposits() && c.approve != "" {
		if err := approvePermit2(context.Background(), c.approve, c.Key, c.Accepted, amount, c.stderr); err != nil {
			return nil, err
		}
	}
	d, err := c.SignDeposit(amount)
	if errors.Is(err, batchsettlement.ErrNoTokenDomain) {
		return nil, fmt.Errorf("refusing to pay: %w", err)
	}
	return d, err
}

// settled takes a paid answer's PAYMENT-RESPONSE into the channel
// (batchsettlement.Channel.Settled), saying on stderr what it did not
// take. It returns the amount charged, nil when none was reported.
func (c *chanPay) settled(settlement string, deposit, max *big.Int) *big.Int {
	var sr x402.ReferenceSettleResponse
	if settlement == "" || x402.DecodeBase64JSON(settlement, &sr) != nil {
		return nil
	}
	charged, err := c.Settled(&sr, deposit, c.price)
	if err != nil {
		fmt.Fprintf(c.stderr, "x402: %v\n", err)
	}
	return charged
}

// resync takes the seller's corrective 402 into the channel
// (batchsettlement.Channel.Resync), reading the chain with --rpc, and
// saves the record.
func (c *chanPay) resync(ctx context.Context, pr *x402.PaymentRequiredV2) error {
	var chain func() (batch.ChannelState, error)
	if c.rpc != "" {
		chain = func() (batch.ChannelState, error) { return c.chainState(ctx) }
	}
	err := c.Resync(pr, chain)
	switch {
	case errors.Is(err, batchsettlement.ErrUnbackedCharge):
		return fmt.Errorf("%v: give --rpc URL to read the channel from the chain", err)
	case errors.Is(err, batchsettlement.ErrNoChannelBalance):
		return fmt.Errorf("%v: give --rpc URL to read it from the chain", err)
	case err != nil:
		return err
	}
	c.recovering = false
	return c.save()
}

// rebalance, after a voucher refused as beyond the channel's balance,
// reads the balance from the chain (--rpc) or takes it as spent, so that
// the next payment deposits.
func (c *chanPay) rebalance(ctx context.Context) error {
	if c.rpc == "" {
		c.Balance = new(big.Int).Set(c.Charged)
		return c.save()
	}
	st, err := c.chainState(ctx)
	if err != nil {
		return err
	}
	c.Balance = st.Balance
	if c.Balance.Cmp(new(big.Int).Add(c.Charged, c.price)) >= 0 {
		return fmt.Errorf("payment refused: %s, but the chain says channel %s holds %s for a voucher of %s", batchsettlement.ErrCumulativeExceedsBalance, c.HexID(), st.Balance, new(big.Int).Add(c.Charged, c.price))
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
	if id, err := cl.ChainID(ctx); err != nil || id.Cmp(c.ChainID) != 0 {
		return batch.ChannelState{}, fmt.Errorf("--rpc: %s is not chain %s (chain id %v, %v)", c.rpc, c.ChainID, id, err)
	}
	st, err := c.ReadState(ctx, cl)
	if err != nil {
		return st, fmt.Errorf("--rpc: %w", err)
	}
	return st, nil
}
