package engine

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"
)

// minGasUnits is the gas a signer must be able to pay for at the current
// gas price to count as funded: one transfer with room to spare.
const minGasUnits = 150_000

// RefreshGas reads every signer's balance and the gas price in one round
// trip and marks the signers that cannot pay for one settlement, so that
// they are skipped. A send refused for lack of funds marks its signer too;
// the marks are read again every gasCheckInterval while any is set.
func (e *Engine) RefreshGas(ctx context.Context) {
	if len(e.signers) == 0 {
		return
	}
	var price hexutil.Big
	bals := make([]hexutil.Big, len(e.signers))
	elems := []rpc.BatchElem{{Method: "eth_gasPrice", Result: &price}}
	for i, s := range e.signers {
		elems = append(elems, rpc.BatchElem{Method: "eth_getBalance", Args: []any{s.addr, "latest"}, Result: &bals[i]})
	}
	if err := e.cfg.Pool.Batch(ctx, elems); err != nil || elems[0].Error != nil {
		return
	}
	need := new(big.Int).Mul((*big.Int)(&price), big.NewInt(minGasUnits))
	for i, s := range e.signers {
		if elems[i+1].Error != nil {
			continue
		}
		low := (*big.Int)(&bals[i]).Cmp(need) < 0
		if s.noGas.Swap(low) != low {
			e.logger.Warn("signer gas money", zap.String("signer", s.addr.Hex()), zap.Bool("too_low_to_settle", low), zap.String("balance_wei", (*big.Int)(&bals[i]).String()))
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
