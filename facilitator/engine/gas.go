package engine

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
)

// RefreshGas reads every signer's balance and the gas price in one round
// trip and marks the signers that cannot pay for one settlement
// (doctor.MinGasUnits at the price: the chain doctor's check, which
// `caddy x402 doctor` runs too), so that they are skipped. A send refused
// for lack of funds marks its signer too; the marks are read again every
// gasCheckInterval while any is set.
func (e *Engine) RefreshGas(ctx context.Context) {
	if len(e.signers) == 0 {
		return
	}
	addrs := make([]common.Address, len(e.signers))
	for i, s := range e.signers {
		addrs[i] = s.addr
	}
	g, err := doctor.ReadGas(ctx, e.cfg.Pool, addrs)
	if err != nil {
		return
	}
	for i, s := range e.signers {
		ok, known := g.CanSettle(i)
		if !known {
			continue
		}
		low := !ok
		if s.noGas.Swap(low) != low {
			e.logger.Warn("signer gas money", zap.String("signer", s.addr.Hex()), zap.Bool("too_low_to_settle", low), zap.String("balance_wei", g.Balances[i].String()))
		}
	}
}

// gasCheckInterval is how often signers marked as without gas money are
// checked again.
const gasCheckInterval = 5 * time.Second

func (c *core) watchGas(ctx context.Context) {
	t := time.NewTicker(gasCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, s := range c.allSigners() {
				if s.noGas.Load() {
					c.active().RefreshGas(ctx)
					break
				}
			}
		}
	}
}
