package exact

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
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
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
//     instances with a shared journal): refused with x402.ReasonWalletBusy;
//   - when a mined settlement of a wallet reverts though its authorization
//     is unused, the wallet cools off (store.CoolOffs, beside the journal,
//     so on every instance): its payments are refused with
//     x402.ReasonCoolingOff, before anything is sent (and before a paywall
//     that settles after its upstream runs the upstream), for
//     RevertCoolOff, doubled at each further revert up to
//     RevertCoolOffMax. When the wallet still held the payment's value at
//     the revert's block, it was its signature check that failed, so every
//     wallet with the same code cools off too. Strikes are forgotten
//     coolOffForget after their cooling-off ends.
//
// Every reverted settlement (of any payer) is counted with the gas it
// cost (RevertStats, the metrics).

// strikeTimeout bounds the reads and the store write of a strike.
const strikeTimeout = 10 * time.Second

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

// holdPayer holds a smart-contract wallet's payment's payer for one
// settlement (c.payerHeld): x402.ReasonWalletBusy when another settlement of it
// holds it.
func (b *bound) holdPayer(ctx context.Context, c *payment) (string, error) {
	n, from := c.b, c.p.Authorization.From
	ok, err := n.Engine.HoldPayer(ctx, from)
	if err != nil {
		b.env.Logger.Error("the shared settlement store cannot be reached; nothing was broadcast", zap.String("network", n.Cfg.Name), zap.Error(err))
		return "", scheme.Unavailable(scheme.TextStoreUnreachable, err)
	}
	if !ok {
		n.reverts.busy.Add(1)
		return x402.ReasonWalletBusy, nil
	}
	c.payerHeld = true
	return "", nil
}

// releasePayer gives back the payer held for a payment that is not
// submitted.
func (c *payment) releasePayer() {
	if c.payerHeld {
		c.payerHeld = false
		c.b.Engine.ReleasePayer(c.p.Authorization.From)
	}
}

// coolingOff is the refusal of a smart-contract wallet's payment while the
// wallet or its code cools off ("" when neither does). ws is the wallet as
// the payment's checks read it.
func (b *bound) coolingOff(ctx context.Context, c *payment, ws *evm.WalletState) (string, error) {
	n := c.b
	keys := []string{payerCoolKey(n.Cfg.ChainID, c.p.Authorization.From)}
	if ws.Deployed {
		keys = append(keys, codeCoolKey(n.Cfg.ChainID, ws.CodeIdentity))
	}
	co, err := b.env.CoolOffs.CoolingOff(ctx, keys, b.env.Now())
	if err != nil {
		b.env.Logger.Error("reading the cooling-offs of smart-contract wallets failed; the payment is not taken", zap.String("network", n.Cfg.Name), zap.Error(err))
		return "", scheme.Unavailable(scheme.TextStoreUnreachable, err)
	}
	if co == nil {
		return "", nil
	}
	n.reverts.refused.Add(1)
	return x402.ReasonCoolingOff(co.Until, co.TxHash, strings.HasPrefix(co.Key, "code:")), nil
}

var _ scheme.RevertHandler = (*bound)(nil)

// Reverted is the network's engine's Config.Reverted: it counts a reverted
// settlement and, for a payer that is a smart-contract wallet whose
// authorization stayed unused, makes it cool off (in the background; the
// payer's hold is given back once the cooling-off is stored, so that its
// next payment sees it).
func (b *bound) Reverted(rv *engine.Revert) {
	r := &b.reverts
	r.reverted.Add(1)
	r.gas.Add(rv.GasUsed)
	if rv.GasPrice != nil {
		r.feeMu.Lock()
		r.fee.Add(&r.fee, new(big.Int).Mul(rv.GasPrice, new(big.Int).SetUint64(rv.GasUsed)))
		r.feeMu.Unlock()
	}
	if rv.AuthorizationUsed || b.env.Ctx.Err() != nil {
		rv.Release()
		return
	}
	// The settle waiting for this outcome answers once the strike is
	// stored (strikeDone), so that the payer's next payment is refused
	// with it rather than as busy.
	id, done := rv.Record.ID, make(chan struct{})
	b.striking.Store(id, done)
	b.env.WG.Add(1)
	go func() {
		defer b.env.WG.Done()
		b.strike(rv)
		rv.Release()
		b.striking.Delete(id)
		close(done)
	}()
}

// strikeDone waits, until deadline, for the strike of the reverted
// settlement id, when one is under way.
func (b *bound) strikeDone(ctx context.Context, id string, deadline time.Time) {
	v, ok := b.striking.Load(id)
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
func (b *bound) strike(rv *engine.Revert) {
	n := b
	rec := rv.Record
	from := common.HexToAddress(rec.From)
	log := b.env.Logger.With(zap.String("network", n.Cfg.Name), zap.String("payer", from.Hex()), zap.String("tx", rec.TxHash),
		zap.Uint64("gas_used", rv.GasUsed))
	ctx, cancel := context.WithTimeout(b.env.Ctx, strikeTimeout)
	defer cancel()
	balEl, bal := evm.ViewCallAt(n.Token, rec.BlockNumber, "balanceOf", from)
	idElems, identity := evm.WalletIdentityElems(from, hexutil.EncodeUint64(rec.BlockNumber))
	elems := append([]rpc.BatchElem{balEl}, idElems...)
	err := n.Pool.BatchShared(ctx, elems)
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
	cs, err := b.env.CoolOffs.Strike(ctx, keys, rec.TxHash, b.env.Now(), b.env.RevertCoolOff, b.env.RevertCoolOffMax)
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
