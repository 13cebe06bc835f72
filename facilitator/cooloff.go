package facilitator

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Reverted settlements and the cooling-off of smart-contract wallets.
//
// A smart-contract wallet's signature is checked by the wallet's own code,
// which may answer a simulation (an eth_call, a gas estimate: no gas
// price) otherwise than a mined transaction: such a wallet passes verify
// and the settle's checks and then reverts in every transaction, at the
// facilitator's cost, for free. So:
//
//   - a wallet settles one payment at a time (engine HoldPayer, across
//     instances with a shared journal): refused with ReasonWalletBusy;
//   - when a mined settlement of a wallet reverts though its authorization
//     is unused, the wallet cools off (store.CoolOffs, beside the journal,
//     so on every instance): its payments are refused with
//     ReasonCoolingOff, before anything is sent (and before a paywall
//     that settles after its upstream runs the upstream), for
//     RevertCoolOff, doubled at each further revert up to
//     RevertCoolOffMax. When the wallet still held the payment's value at
//     the revert's block, it was its signature check that failed, so every
//     wallet with the same code cools off too. Strikes are forgotten
//     coolOffForget after their cooling-off ends.
//
// Every reverted settlement (of any payer) is counted with the gas it
// cost (RevertStats, the metrics).

// Defaults of the cooling-off.
const (
	// DefaultRevertCoolOff is the first cooling-off of a wallet whose
	// settlement reverted.
	DefaultRevertCoolOff = 15 * time.Minute
	// DefaultRevertCoolOffMax is the longest cooling-off.
	DefaultRevertCoolOffMax = 24 * time.Hour
	// coolOffForget is how long a wallet's strikes are remembered after
	// its cooling-off ended.
	coolOffForget = 7 * 24 * time.Hour
	// strikeTimeout bounds the reads and the store write of a strike.
	strikeTimeout = 10 * time.Second
)

// Cooling-off refusal texts (package x402).
var (
	// ReasonWalletBusy refuses a smart-contract wallet's payment while
	// another payment of the wallet is being settled.
	ReasonWalletBusy = x402.ReasonWalletBusy
	// ReasonCoolingOff refuses a smart-contract wallet's payment while
	// the wallet, or its code, cools off.
	ReasonCoolingOff = x402.ReasonCoolingOff
)

// coolOff is the facilitator's cooling-off state: the store and its
// settings.
type coolOff struct {
	store     store.CoolOffs
	base, max time.Duration
}

// newCoolOff keeps the cooling-offs beside the journal (in memory for a
// journal that keeps none).
func newCoolOff(j Journal, first, longest time.Duration) *coolOff {
	c := &coolOff{store: store.CoolOffsOf(j), base: orDefault(first, DefaultRevertCoolOff), max: orDefault(longest, DefaultRevertCoolOffMax)}
	if c.store == nil {
		c.store = store.NewMemoryCoolOffs()
	}
	c.max = max(c.max, c.base)
	return c
}

// payerCoolKey and codeCoolKey name a payer, and a wallet code, on a chain
// in the cooling-offs.
func payerCoolKey(chainID int64, from common.Address) string {
	return fmt.Sprintf("payer:%d/%s", chainID, strings.ToLower(from.Hex()))
}

func codeCoolKey(chainID int64, code common.Hash) string {
	return fmt.Sprintf("code:%d/%s", chainID, code.Hex())
}

// revertStats are a network's reverted settlements since the facilitator
// started.
type revertStats struct {
	reverted atomic.Uint64 // settlements mined and reverted
	gas      atomic.Uint64 // the gas they used
	feeMu    sync.Mutex
	fee      big.Int       // wei they cost
	strikes  atomic.Uint64 // reverts that started or lengthened a cooling-off
	refused  atomic.Uint64 // payments refused while cooling off
	busy     atomic.Uint64 // payments refused while the wallet had one in flight
}

// RevertStats are a network's settlements that were mined and reverted,
// and the smart-contract wallet payments refused for it, since the
// facilitator started, as this instance saw them.
type RevertStats struct {
	// Network is the network's name.
	Network string
	// Reverted are settlements whose transaction was mined and reverted
	// (any payer, any cause); GasUsed is the gas they used and FeeWei what
	// they cost, paid by the facilitator.
	Reverted uint64
	GasUsed  uint64
	FeeWei   *big.Int
	// Strikes are the reverts that started (or lengthened) a
	// smart-contract wallet's cooling-off.
	Strikes uint64
	// CoolingOffRefusals are payments refused because their wallet (or
	// its code) cools off; BusyRefusals those refused because another
	// payment of the wallet was being settled.
	CoolingOffRefusals uint64
	BusyRefusals       uint64
}

// RevertStats returns every network's revert counts, for metrics.
func (f *Facilitator) RevertStats() []RevertStats {
	out := make([]RevertStats, len(f.networks))
	for i, n := range f.networks {
		r := &n.reverts
		r.feeMu.Lock()
		fee := new(big.Int).Set(&r.fee)
		r.feeMu.Unlock()
		out[i] = RevertStats{Network: n.Cfg.Name, Reverted: r.reverted.Load(), GasUsed: r.gas.Load(), FeeWei: fee,
			Strikes: r.strikes.Load(), CoolingOffRefusals: r.refused.Load(), BusyRefusals: r.busy.Load()}
	}
	return out
}

// holdPayer holds a smart-contract wallet's payment's payer for one
// settlement (c.payerHeld): ReasonWalletBusy when another settlement of it
// holds it.
func (f *Facilitator) holdPayer(ctx context.Context, c *checked) (string, error) {
	n, from := c.n, c.p.Authorization.From
	ok, err := n.Engine.HoldPayer(ctx, from)
	if err != nil {
		f.logger.Error("the shared settlement store cannot be reached; nothing was broadcast", zap.String("network", n.Cfg.Name), zap.Error(err))
		return "", unavailable(textStoreUnreachable, err)
	}
	if !ok {
		n.reverts.busy.Add(1)
		return ReasonWalletBusy, nil
	}
	c.payerHeld = true
	return "", nil
}

// releasePayer gives back the payer held for a payment that is not
// submitted.
func (c *checked) releasePayer() {
	if c.payerHeld {
		c.payerHeld = false
		c.n.Engine.ReleasePayer(c.p.Authorization.From)
	}
}

// coolingOff is the refusal of a smart-contract wallet's payment while the
// wallet or its code cools off ("" when neither does). ws is the wallet as
// the payment's checks read it.
func (f *Facilitator) coolingOff(ctx context.Context, c *checked, ws *evm.WalletState) (string, error) {
	n := c.n
	keys := []string{payerCoolKey(n.Cfg.ChainID, c.p.Authorization.From)}
	if ws.Deployed {
		keys = append(keys, codeCoolKey(n.Cfg.ChainID, ws.CodeIdentity))
	}
	co, err := f.cool.store.CoolingOff(ctx, keys, f.now())
	if err != nil {
		f.logger.Error("reading the cooling-offs of smart-contract wallets failed; the payment is not taken", zap.String("network", n.Cfg.Name), zap.Error(err))
		return "", unavailable(textStoreUnreachable, err)
	}
	if co == nil {
		return "", nil
	}
	n.reverts.refused.Add(1)
	return ReasonCoolingOff(co.Until, co.TxHash, strings.HasPrefix(co.Key, "code:")), nil
}

// onRevert is network n's engine's Config.Reverted: it counts a reverted
// settlement and, for a payer that is a smart-contract wallet whose
// authorization stayed unused, makes it cool off (in the background; the
// payer's hold is given back once the cooling-off is stored, so that its
// next payment sees it).
func (f *Facilitator) onRevert(n *exactNetwork) func(*engine.Revert) {
	return func(rv *engine.Revert) {
		r := &n.reverts
		r.reverted.Add(1)
		r.gas.Add(rv.GasUsed)
		if rv.GasPrice != nil {
			r.feeMu.Lock()
			r.fee.Add(&r.fee, new(big.Int).Mul(rv.GasPrice, new(big.Int).SetUint64(rv.GasUsed)))
			r.feeMu.Unlock()
		}
		if rv.AuthorizationUsed || f.ctx.Err() != nil {
			rv.Release()
			return
		}
		// The settle waiting for this outcome answers once the strike is
		// stored (strikeDone), so that the payer's next payment is refused
		// with it rather than as busy.
		id, done := rv.Record.ID, make(chan struct{})
		f.striking.Store(id, done)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.strike(n, rv)
			rv.Release()
			f.striking.Delete(id)
			close(done)
		}()
	}
}

// strikeDone waits, until deadline, for the strike of the reverted
// settlement id, when one is under way.
func (f *Facilitator) strikeDone(ctx context.Context, id string, deadline time.Time) {
	v, ok := f.striking.Load(id)
	if !ok {
		return
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-v.(chan struct{}):
	case <-t.C:
	case <-ctx.Done():
	}
}

// strike makes the payer of a reverted settlement cool off when it is a
// smart-contract wallet: it had code at the revert's block, or the
// settlement held it as one (PayerHeld; a wallet to deploy has no code
// yet). Its code cools off too when the wallet held the payment's value
// at that block (its signature check is what failed).
func (f *Facilitator) strike(n *exactNetwork, rv *engine.Revert) {
	rec := rv.Record
	from := common.HexToAddress(rec.From)
	log := f.logger.With(zap.String("network", n.Cfg.Name), zap.String("payer", from.Hex()), zap.String("tx", rec.TxHash),
		zap.Uint64("gas_used", rv.GasUsed))
	ctx, cancel := context.WithTimeout(f.ctx, strikeTimeout)
	defer cancel()
	balEl, bal := evm.ViewCallAt(n.Token, rec.BlockNumber, "balanceOf", from)
	idElems, identity := evm.WalletIdentityElems(from, hexutil.EncodeUint64(rec.BlockNumber))
	elems := append([]rpc.BatchElem{balEl}, idElems...)
	err := n.Pool.Gather(ctx, elems)
	copy(idElems, elems[1:])
	var code []byte
	var id common.Hash
	if err == nil {
		code, id, err = identity()
	}
	if err != nil {
		log.Warn("a settlement reverted on chain, and the payer's code could not be read to tell whether it is a smart-contract wallet to cool off",
			zap.Error(err))
		if !rv.PayerHeld {
			return
		}
	}
	if len(code) == 0 && !rv.PayerHeld {
		log.Warn("a settlement reverted on chain though its simulation passed (the payer is not a contract); the facilitator paid the gas")
		return
	}
	keys := []string{payerCoolKey(n.Cfg.ChainID, from)}
	value, ok := new(big.Int).SetString(rec.Value, 10)
	if len(code) > 0 && ok && elems[0].Error == nil {
		if v, err := evm.TokenABI.Unpack("balanceOf", *bal); err == nil && v[0].(*big.Int).Cmp(value) >= 0 {
			keys = append(keys, codeCoolKey(n.Cfg.ChainID, id))
		}
	}
	cs, err := f.cool.store.Strike(ctx, keys, rec.TxHash, f.now(), f.cool.base, f.cool.max)
	if err != nil {
		log.Error("a smart-contract wallet's settlement reverted on chain, and its cooling-off could not be stored: its next payments are not refused for it", zap.Error(err))
		return
	}
	n.reverts.strikes.Add(1)
	for _, c := range cs {
		log.Warn("a smart-contract wallet's settlement reverted on chain though its simulation passed; the facilitator paid the gas, and its payments are refused until the cooling-off ends",
			zap.String("cooling_off", c.Key), zap.Int("strikes", c.Strikes), zap.Time("until", c.Until))
	}
}

// pruneCoolOffs drops, every compactEvery, the cooling-offs that ended
// more than coolOffForget ago, with their strikes.
func (f *Facilitator) pruneCoolOffs() {
	f.every(compactEvery, func() {
		if n, err := f.cool.store.PruneCoolOffs(f.now().Add(-coolOffForget)); err != nil {
			f.logger.Warn("pruning the cooling-offs of smart-contract wallets failed; they stay until the next try", zap.Error(err))
		} else if n > 0 {
			f.logger.Info("cooling-offs of smart-contract wallets forgotten", zap.Int("removed", n))
		}
	}, false)
}
