package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"
)

// Channel states.
const (
	// ChannelOpen: vouchers are charged against the channel.
	ChannelOpen = "open"
	// ChannelRefunding: a cooperative refund is under way; nothing more
	// is charged.
	ChannelRefunding = "refunding"
	// ChannelClosed: refunded (or withdrawn); nothing more is charged.
	ChannelClosed = "closed"
)

// ChannelConfig is a payment channel's immutable configuration (the
// x402 batch-settlement `channelConfig`), addresses as 0x hex in lower
// case. Package batch hashes it into the channel id.
type ChannelConfig struct {
	Payer              string `json:"payer"`
	PayerAuthorizer    string `json:"payerAuthorizer"`
	Receiver           string `json:"receiver"`
	ReceiverAuthorizer string `json:"receiverAuthorizer"`
	Token              string `json:"token"`
	// WithdrawDelay is the seconds between a payer's withdraw request and
	// its completion.
	WithdrawDelay uint64 `json:"withdrawDelay"`
	// Salt is the 32-byte salt, 0x hex.
	Salt string `json:"salt"`
}

// ChainState is what a read of the chain (at Block) says of a channel:
// the store keeps the reading of the newest block, so a reading delivered
// twice or late changes nothing (a deposit is idempotent by the balance
// read from the chain, not by its transaction hash).
type ChainState struct {
	// Balance is the channel's balance (deposited minus refunded and
	// withdrawn; claimed funds stay in it).
	Balance *big.Int
	// Claimed is the channel's totalClaimed.
	Claimed *big.Int
	// WithdrawRequestedAt is when the payer asked to withdraw; zero when
	// no withdrawal is pending.
	WithdrawRequestedAt time.Time
	// Block is the block the reading was made at.
	Block uint64
	// RefundNonce is the channel's refundNonce: the nonce the next
	// cooperative refund must carry (nil: 0). It only rises.
	RefundNonce *big.Int
}

// Channel is the paywall's record of one payment channel.
type Channel struct {
	// ID is the channel id (its config's EIP-712 hash), 0x hex, lower case.
	ID string
	// Network is the network the channel lives on.
	Network string
	// Config is the channel's configuration.
	Config ChannelConfig
	// Balance is the balance last read from the chain (ChainState).
	Balance *big.Int
	// Charged is the cumulative amount the served vouchers charged: what
	// the seller claims.
	Charged *big.Int
	// VoucherMax and VoucherSignature are the last charged voucher (its
	// maxClaimableAmount, at least Charged, and signature); nil before the
	// first charge.
	VoucherMax       *big.Int
	VoucherSignature []byte
	// Claimed is the channel's totalClaimed on chain (never decreases).
	Claimed *big.Int
	// Block is the block of the chain reading the record holds.
	Block uint64
	// WithdrawRequestedAt is when the payer asked to withdraw; zero when
	// no withdrawal is pending.
	WithdrawRequestedAt time.Time
	// LastActivity is when the channel was last charged (or its record made).
	LastActivity time.Time
	// State is ChannelOpen, ChannelRefunding or ChannelClosed.
	State string
	// RefundNonce is the highest refundNonce read from the chain (never
	// decreases): the nonce the next cooperative refund signs.
	RefundNonce *big.Int
	// RefundSlotAt is when the last refund on a public voucher of the
	// channel was let through (TakeRefundSlot); zero: none.
	RefundSlotAt time.Time
	// Claiming is the highest total a claim round fenced for a claim it
	// sends (FenceClaim; nil: none): no charge takes Charged below it, as
	// none takes it below Claimed, so that a claim under way never takes
	// more than the receipts of any instance state.
	Claiming *big.Int
}

// Floor is the least Charged may be charged down to: Claimed, or the
// total of a claim under way (Claiming) when that is more.
func (c *Channel) Floor() *big.Int {
	if c.Claiming != nil && c.Claiming.Cmp(c.Claimed) > 0 {
		return c.Claiming
	}
	return c.Claimed
}

// ChannelVoucher is a signed voucher as a charge stores it.
type ChannelVoucher struct {
	// Max is the voucher's maxClaimableAmount (cumulative).
	Max *big.Int
	// Signature is the payer's (or its authorizer's) signature.
	Signature []byte
}

// Channels keeps the paywall's payment channels, keyed by channel id. It
// lives beside the redemption records (a redemption store that keeps them
// implements Channels), so that every
// instance sharing a PostgreSQL database charges one channel's headroom
// once. A record is created only by Sync, from a deposit the caller
// verified on chain: requests without one create nothing.
type Channels interface {
	// Sync records a chain reading of a channel: it creates the record
	// (state open, charged = the claimed read) when there is none, and otherwise
	// takes the reading unless the record holds one of a newer block
	// (network and config stay: the id binds them). Claimed never
	// decreases. It returns the record as stored. The caller has verified
	// the channel on chain (a deposit): nothing else makes a record.
	Sync(ctx context.Context, id, network string, cfg ChannelConfig, cs ChainState) (*Channel, error)
	// Charge moves the channel's charged cumulative from prev to charged
	// and stores v, in one conditional write: only when the stored charged
	// is exactly prev, the channel is open, and Floor() (Claimed, or a
	// claim's fence) <= charged <= min(v.Max, Balance). Of concurrent
	// charges from one prev, on every instance, exactly one succeeds. It returns the record after the write
	// or, when it refuses (ErrChannelConflict, ErrChannelBalance,
	// ErrChannelNotOpen), the current record, for the corrective 402.
	// ErrChannelNotFound when there is no record, ErrBadCharge for
	// amounts out of range. charged may be below prev (a metered request
	// settling below the price it reserved), never below Floor(). A
	// PostgreSQL store out of reach answers ErrUnavailable: the write
	// happened or not, and Channel tells which.
	Charge(ctx context.Context, id string, prev, charged *big.Int, v ChannelVoucher) (*Channel, error)
	// Channel returns a record, or nil when there is none.
	Channel(ctx context.Context, id string) (*Channel, error)
	// MarkClaimed records that the chain's totalClaimed of the channel is
	// at least claimed (never lowering it). Claimed never passes Charged:
	// a claimed total above it raises Charged too (as Sync does).
	MarkClaimed(ctx context.Context, id string, claimed *big.Int) error
	// FenceClaim records, before a claim of total is sent, that one is
	// under way: from then on no charge takes the channel's Charged below
	// total (ErrBadCharge, as below Claimed), on any instance, so that
	// a request that would give back part of its reservation after the
	// claim read the record keeps it, and its receipt says so. The fence
	// only rises (a claim sent before may still land) and stops mattering
	// once Claimed reaches it. False, and nothing written, when Charged is
	// already below total (a charge was lowered since the record was
	// read: a later round claims it) or there is no record.
	FenceClaim(ctx context.Context, id string, total *big.Int) (bool, error)
	// TakeRefundSlot takes the channel's one refund on a public voucher
	// per window (the paywall's refund_window: a refund whose voucher
	// anyone may have read from a claim's calldata), for every instance
	// sharing the store: it sets RefundSlotAt to at unless it is less
	// than window before at. False, and nothing written, when the slot is
	// taken or there is no record. at is kept to the microsecond.
	TakeRefundSlot(ctx context.Context, id string, at time.Time, window time.Duration) (bool, error)
	// ReturnRefundSlot gives back the slot taken at at (a refund that sent
	// nothing), unless another was taken since.
	ReturnRefundSlot(ctx context.Context, id string, at time.Time) error
	// SetChannelState moves a channel from state from to state to; false
	// when it was not in from (or there is no record).
	SetChannelState(ctx context.Context, id, from, to string) (bool, error)
	// ToClaim lists up to limit channels on network whose charged
	// exceeds their claimed, the least recently active first.
	ToClaim(ctx context.Context, network string, limit int) ([]*Channel, error)
	// Idle lists up to limit open channels last active before t, the
	// least recently active first.
	Idle(ctx context.Context, before time.Time, limit int) ([]*Channel, error)
	// Withdrawing lists up to limit channels whose payer asked to
	// withdraw, the earliest request first (then by id), after the
	// channel after (nil: from the first): a caller pages through them
	// all by passing the last channel of one page to get the next.
	Withdrawing(ctx context.Context, after *Channel, limit int) ([]*Channel, error)
	// Refunding lists up to limit channels in state ChannelRefunding (a
	// refund under way or to retry), the least recently active first.
	Refunding(ctx context.Context, limit int) ([]*Channel, error)
	// ChannelStats sums the channels by network, for metrics.
	ChannelStats(ctx context.Context) (map[string]ChannelStats, error)
	// PruneChannels removes the closed channels last active before t and
	// says how many. A later deposit to one makes its record anew.
	PruneChannels(ctx context.Context, before time.Time) (int, error)
}

// ChannelStats are the sums of a network's channels.
type ChannelStats struct {
	// Open counts the open channels.
	Open int
	// Unclaimed is what was charged and not claimed yet (the sum of
	// charged minus claimed where positive).
	Unclaimed *big.Int
	// Claimed is the sum of the channels' claimed totals.
	Claimed *big.Int
}

// AddChannelStats adds c to the sums by network.
func AddChannelStats(m map[string]ChannelStats, c *Channel) {
	st, ok := m[c.Network]
	if !ok {
		st = ChannelStats{Unclaimed: new(big.Int), Claimed: new(big.Int)}
	}
	if c.State == ChannelOpen {
		st.Open++
	}
	if c.Charged.Cmp(c.Claimed) > 0 {
		st.Unclaimed.Add(st.Unclaimed, new(big.Int).Sub(c.Charged, c.Claimed))
	}
	st.Claimed.Add(st.Claimed, c.Claimed)
	m[c.Network] = st
}

// IsPrunable says whether c may be pruned at before.
func IsPrunable(c *Channel, before time.Time) bool {
	return c.State == ChannelClosed && c.LastActivity.Before(before)
}

var (
	// ErrChannelNotFound: no channel with that id (no verified deposit).
	ErrChannelNotFound = errors.New("no such payment channel: open it with a deposit")
	// ErrChannelConflict: the channel's charged cumulative is not the one
	// the voucher was signed from (another request charged first); the
	// buyer resynchronises from the current state.
	ErrChannelConflict = errors.New("the channel's charged amount moved: sign the voucher from the current state")
	// ErrChannelBalance: the charge goes beyond the channel's balance.
	ErrChannelBalance = errors.New("the charge exceeds the channel's balance: top the channel up")
	// ErrChannelNotOpen: the channel is being refunded or is closed.
	ErrChannelNotOpen = errors.New("the channel is being refunded or is closed")
	// ErrBadCharge: amounts out of range (negative, above uint128, a
	// charge above its voucher, below what is claimed), a missing or
	// oversized signature, or a malformed id.
	ErrBadCharge = errors.New("invalid channel charge")
)

// Bounds of what a channel record holds.
const (
	// MaxVoucherSignature bounds a stored signature (an EIP-1271 or
	// EIP-6492 signature is longer than 65 bytes, but not this long).
	MaxVoucherSignature = 4096
	// maxChannelList bounds a list call.
	maxChannelList = 10_000
)

// maxUint128 is the largest amount a voucher carries.
var maxUint128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))

// lowerHex is s in lower case when it is 0x and digits hex digits (either
// case), else ok is false: a channel id or salt (64 digits) or an address
// (40). It allocates only for a string with upper case in it, and costs a
// voucher's charge no regexp.
func lowerHex(s string, digits int) (lower string, ok bool) {
	if len(s) != 2+digits || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return "", false
	}
	upper := s[1] == 'X'
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f':
		case 'A' <= c && c <= 'F':
			upper = true
		default:
			return "", false
		}
	}
	if upper {
		return strings.ToLower(s), true
	}
	return s, true
}

// AmountOK says whether v is an amount in 0..2^128-1.
func AmountOK(v *big.Int) bool { return v != nil && v.Sign() >= 0 && v.Cmp(maxUint128) <= 0 }

// ChannelKey is the stored key of a channel id (lower case), or an error.
func ChannelKey(id string) (string, error) {
	k, ok := lowerHex(id, 64)
	if !ok {
		return "", fmt.Errorf("%w: channel id %q is not 32 bytes of 0x hex", ErrBadCharge, id)
	}
	return k, nil
}

// CheckCharge validates a charge's own arguments.
func CheckCharge(prev, charged *big.Int, v ChannelVoucher) error {
	switch {
	case !AmountOK(prev) || !AmountOK(charged) || !AmountOK(v.Max):
		return fmt.Errorf("%w: amounts must be 0..2^128-1", ErrBadCharge)
	case charged.Cmp(v.Max) > 0:
		return fmt.Errorf("%w: charged %s above the voucher's maxClaimableAmount %s", ErrBadCharge, charged, v.Max)
	case len(v.Signature) == 0 || len(v.Signature) > MaxVoucherSignature:
		return fmt.Errorf("%w: a voucher signature of %d bytes (1..%d)", ErrBadCharge, len(v.Signature), MaxVoucherSignature)
	}
	return nil
}

// ChargeRefusal is why cur refuses the charge from prev to charged, or
// nil when it takes it.
func ChargeRefusal(cur *Channel, prev, charged *big.Int) error {
	switch {
	case cur.State != ChannelOpen:
		return ErrChannelNotOpen
	case cur.Charged.Cmp(prev) != 0:
		return ErrChannelConflict
	case charged.Cmp(cur.Balance) > 0:
		return ErrChannelBalance
	case charged.Cmp(cur.Floor()) < 0:
		return fmt.Errorf("%w: charged %s below %s, claimed or being claimed", ErrBadCharge, charged, cur.Floor())
	}
	return nil
}

// CheckSync validates a chain reading and normalises the config.
func CheckSync(network string, cfg *ChannelConfig, cs ChainState) error {
	for _, a := range []*string{&cfg.Payer, &cfg.PayerAuthorizer, &cfg.Receiver, &cfg.ReceiverAuthorizer, &cfg.Token} {
		l, ok := lowerHex(*a, 40)
		if !ok {
			return fmt.Errorf("%w: channel config address %q", ErrBadCharge, strings.ToLower(*a))
		}
		*a = l
	}
	salt, ok := lowerHex(cfg.Salt, 64)
	if !ok {
		return fmt.Errorf("%w: channel config salt %q", ErrBadCharge, strings.ToLower(cfg.Salt))
	}
	cfg.Salt = salt
	switch {
	case network == "" || len(network) > 100:
		return fmt.Errorf("%w: network %q", ErrBadCharge, network)
	case !AmountOK(cs.Balance) || !AmountOK(cs.Claimed):
		return fmt.Errorf("%w: chain balance and claimed must be 0..2^128-1", ErrBadCharge)
	case cs.RefundNonce != nil && (cs.RefundNonce.Sign() < 0 || cs.RefundNonce.BitLen() > 256):
		return fmt.Errorf("%w: refund nonce must be 0..2^256-1", ErrBadCharge)
	}
	return nil
}

// NewChannel is the record a first chain reading creates. What the chain
// says is claimed counts as charged already (a record made anew after a
// prune, or for a channel claimed elsewhere): vouchers go on from there.
func NewChannel(id, network string, cfg ChannelConfig, cs ChainState, now time.Time) *Channel {
	return &Channel{ID: id, Network: network, Config: cfg, Balance: new(big.Int).Set(cs.Balance),
		Charged: new(big.Int).Set(cs.Claimed), Claimed: new(big.Int).Set(cs.Claimed), Block: cs.Block,
		WithdrawRequestedAt: cs.WithdrawRequestedAt, LastActivity: now, State: ChannelOpen, RefundNonce: RefundNonceOf(cs)}
}

// RefundNonceOf is a reading's refund nonce (0 when it has none).
func RefundNonceOf(cs ChainState) *big.Int {
	if cs.RefundNonce == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(cs.RefundNonce)
}

// ApplySync takes a chain reading into c unless c holds a newer one.
func (c *Channel) ApplySync(cs ChainState) {
	c.RaiseClaimed(cs.Claimed)
	if n := RefundNonceOf(cs); c.RefundNonce == nil || n.Cmp(c.RefundNonce) > 0 {
		c.RefundNonce = n // the chain's refund nonce only rises
	}
	if cs.Block < c.Block {
		return
	}
	c.Balance, c.Block, c.WithdrawRequestedAt = new(big.Int).Set(cs.Balance), cs.Block, cs.WithdrawRequestedAt
}

// RaiseClaimed raises Claimed to claimed if that is more, and Charged
// with it: a total claimed on chain is charged (vouchers below it are
// worth nothing), so that Claimed <= Charged always.
func (c *Channel) RaiseClaimed(claimed *big.Int) {
	if claimed.Cmp(c.Claimed) > 0 {
		c.Claimed = new(big.Int).Set(claimed)
	}
	if c.Claimed.Cmp(c.Charged) > 0 {
		c.Charged = new(big.Int).Set(c.Claimed)
	}
}

// AmountKey checks the arguments of a write of amount to channel id
// (MarkClaimed, FenceClaim): the record's key, or ErrBadCharge for an
// amount out of range.
func AmountKey(id string, amount *big.Int) (string, error) {
	k, err := ChannelKey(id)
	if err != nil {
		return "", err
	}
	if !AmountOK(amount) {
		return "", ErrBadCharge
	}
	return k, nil
}

// SlotTime is a refund slot's time as every store keeps it: UTC, to the
// microsecond (PostgreSQL's precision).
func SlotTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// TakeRefundSlot takes c's refund slot at at (Channels.TakeRefundSlot,
// at from SlotTime): false when it was taken less than window before.
func (c *Channel) TakeRefundSlot(at time.Time, window time.Duration) bool {
	if !c.RefundSlotAt.IsZero() && at.Sub(c.RefundSlotAt) < window {
		return false
	}
	c.RefundSlotAt = at
	return true
}

// ReturnRefundSlot gives back c's slot taken at at: false when another
// was taken since (nothing changed).
func (c *Channel) ReturnRefundSlot(at time.Time) bool {
	if !c.RefundSlotAt.Equal(at) {
		return false
	}
	c.RefundSlotAt = time.Time{}
	return true
}

// RaiseClaiming fences a claim of total (FenceClaim): false, and c
// unchanged, when Charged is below it.
func (c *Channel) RaiseClaiming(total *big.Int) bool {
	if c.Charged.Cmp(total) < 0 {
		return false
	}
	if c.Claiming == nil || total.Cmp(c.Claiming) > 0 {
		c.Claiming = new(big.Int).Set(total)
	}
	return true
}

// ListLimit bounds a list's limit.
func ListLimit(limit int) int {
	if limit <= 0 || limit > maxChannelList {
		return maxChannelList
	}
	return limit
}

// channelJSON is a record in the embedded stores: amounts as decimal
// strings, exact.
type channelJSON struct {
	ID                  string        `json:"id"`
	Network             string        `json:"network"`
	Config              ChannelConfig `json:"config"`
	Balance             string        `json:"balance"`
	Charged             string        `json:"charged"`
	VoucherMax          string        `json:"voucherMax,omitempty"`
	VoucherSignature    []byte        `json:"voucherSignature,omitempty"`
	Claimed             string        `json:"claimed"`
	Block               uint64        `json:"block"`
	WithdrawRequestedAt *time.Time    `json:"withdrawRequestedAt,omitempty"`
	LastActivity        time.Time     `json:"lastActivity"`
	State               string        `json:"state"`
	RefundNonce         string        `json:"refundNonce,omitempty"`
	Claiming            string        `json:"claiming,omitempty"`
	RefundSlotAt        *time.Time    `json:"refundSlotAt,omitempty"`
}

// MarshalJSON encodes the record with exact decimal amounts.
func (c *Channel) MarshalJSON() ([]byte, error) {
	j := channelJSON{ID: c.ID, Network: c.Network, Config: c.Config, Balance: c.Balance.String(),
		Charged: c.Charged.String(), VoucherSignature: c.VoucherSignature, Claimed: c.Claimed.String(),
		Block: c.Block, LastActivity: c.LastActivity, State: c.State}
	if c.VoucherMax != nil {
		j.VoucherMax = c.VoucherMax.String()
	}
	if c.RefundNonce != nil && c.RefundNonce.Sign() > 0 {
		j.RefundNonce = c.RefundNonce.String()
	}
	if c.Claiming != nil && c.Claiming.Sign() > 0 {
		j.Claiming = c.Claiming.String()
	}
	if !c.WithdrawRequestedAt.IsZero() {
		j.WithdrawRequestedAt = &c.WithdrawRequestedAt
	}
	if !c.RefundSlotAt.IsZero() {
		j.RefundSlotAt = &c.RefundSlotAt
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes MarshalJSON's form.
func (c *Channel) UnmarshalJSON(data []byte) error {
	var j channelJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*c = Channel{ID: j.ID, Network: j.Network, Config: j.Config, VoucherSignature: j.VoucherSignature,
		Block: j.Block, LastActivity: j.LastActivity, State: j.State}
	var ok [4]bool
	c.Balance, ok[0] = new(big.Int).SetString(j.Balance, 10)
	c.Charged, ok[1] = new(big.Int).SetString(j.Charged, 10)
	c.Claimed, ok[2] = new(big.Int).SetString(j.Claimed, 10)
	ok[3] = true
	if j.VoucherMax != "" {
		c.VoucherMax, ok[3] = new(big.Int).SetString(j.VoucherMax, 10)
	}
	c.RefundNonce = new(big.Int)
	if j.RefundNonce != "" && ok[3] {
		c.RefundNonce, ok[3] = new(big.Int).SetString(j.RefundNonce, 10)
	}
	if j.Claiming != "" && ok[3] {
		c.Claiming, ok[3] = new(big.Int).SetString(j.Claiming, 10)
	}
	if !ok[0] || !ok[1] || !ok[2] || !ok[3] {
		return fmt.Errorf("channel record %s: an amount is not a decimal integer", j.ID)
	}
	if j.WithdrawRequestedAt != nil {
		c.WithdrawRequestedAt = *j.WithdrawRequestedAt
	}
	if j.RefundSlotAt != nil {
		c.RefundSlotAt = *j.RefundSlotAt
	}
	return nil
}

// SortChannels orders a list as the list calls do, by key, and cuts it.
func SortChannels(out []*Channel, key func(*Channel) time.Time, limit int) []*Channel {
	slices.SortFunc(out, func(a, b *Channel) int {
		if c := key(a).Compare(key(b)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Clone is a deep copy of c.
func (c *Channel) Clone() *Channel {
	out := *c
	cp := func(v *big.Int) *big.Int {
		if v == nil {
			return nil
		}
		return new(big.Int).Set(v)
	}
	out.Balance, out.Charged, out.VoucherMax, out.Claimed = cp(c.Balance), cp(c.Charged), cp(c.VoucherMax), cp(c.Claimed)
	out.RefundNonce, out.Claiming = cp(c.RefundNonce), cp(c.Claiming)
	out.VoucherSignature = slices.Clone(c.VoucherSignature)
	return &out
}

// ApplyCharge applies an accepted charge to c.
func (c *Channel) ApplyCharge(charged *big.Int, v ChannelVoucher, now time.Time) {
	c.Charged, c.VoucherMax = new(big.Int).Set(charged), new(big.Int).Set(v.Max)
	c.VoucherSignature, c.LastActivity = slices.Clone(v.Signature), now
}

// IsClaimable says whether c is on network with a charge not claimed yet
// (ToClaim lists it).
func IsClaimable(c *Channel, network string) bool {
	return c.Network == network && c.Charged.Cmp(c.Claimed) > 0
}

// IsIdle says whether c is open and was last active before before (Idle
// lists it).
func IsIdle(c *Channel, before time.Time) bool {
	return c.State == ChannelOpen && c.LastActivity.Before(before)
}

func withdrawing(c *Channel) bool { return !c.WithdrawRequestedAt.IsZero() }

// WithdrawingAfter keeps the channels withdrawing that come after the
// channel after in Withdrawing's order (all of them for nil).
func WithdrawingAfter(after *Channel) func(*Channel) bool {
	return func(c *Channel) bool {
		if !withdrawing(c) {
			return false
		}
		if after == nil {
			return true
		}
		if d := c.WithdrawRequestedAt.Compare(after.WithdrawRequestedAt); d != 0 {
			return d > 0
		}
		return c.ID > after.ID
	}
}

// IsRefunding says whether a refund of c is under way (Refunding lists it).
func IsRefunding(c *Channel) bool { return c.State == ChannelRefunding }

// LastActivityOf is the key SortChannels orders Idle, ToClaim and
// Refunding by.
func LastActivityOf(c *Channel) time.Time { return c.LastActivity }

// WithdrawRequestedOf is the key SortChannels orders Withdrawing by.
func WithdrawRequestedOf(c *Channel) time.Time { return c.WithdrawRequestedAt }

// CheckChannelState refuses a state that is not one of the Channel* states.
func CheckChannelState(s string) error {
	switch s {
	case ChannelOpen, ChannelRefunding, ChannelClosed:
		return nil
	}
	return fmt.Errorf("%w: channel state %q", ErrBadCharge, s)
}
