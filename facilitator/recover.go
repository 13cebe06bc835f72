package facilitator

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"go.uber.org/zap"
)

// recover reconciles the journal's pending settlements with the chain at
// start. Each is held (so the same authorization is not settled again),
// handed to its network's watcher (mined ones get their outcome at the
// next poll) and its newest transaction is broadcast again in nonce order,
// so that one lost before it reached a node fills its nonce and the
// signer's counter, read from the pending nonce, resumes past them all.
func (f *Facilitator) recover(ctx context.Context) error {
	recs, err := f.journal.Pending()
	if err != nil {
		return err
	}
	for _, rec := range recs {
		log := f.logger.With(zap.String("id", rec.ID), zap.Uint64("tx_nonce", rec.TxNonce))
		n := f.network(rec.Network)
		if n == nil {
			log.Warn("journal holds a pending settlement for a network that is no longer configured; left as it is")
			continue
		}
		p, err := paymentFromRecord(rec)
		if err != nil {
			log.Error("unreadable journal record; left as it is", zap.Error(err))
			continue
		}
		st := &settlement{
			n: n, c: &checked{n: n, p: p}, key: keyOf(p), requested: rec.RequestedNetwork,
			s: n.signerByAddress(common.HexToAddress(rec.Signer)), rec: rec, done: make(chan struct{}),
		}
		for _, jt := range rec.Txs {
			raw, err := hexutil.Decode(jt.Raw)
			tx := new(types.Transaction)
			if err == nil {
				err = tx.UnmarshalBinary(raw)
			}
			if err != nil {
				log.Error("unreadable transaction in the journal", zap.String("tx", jt.Hash), zap.Error(err))
				continue
			}
			st.txs = append(st.txs, tx)
		}
		if len(st.txs) == 0 {
			log.Error("pending journal record without a transaction; left as it is")
			continue
		}
		st.fee = feesOf(st.current())
		n.settling.acquire(st.key)
		n.watch.add(st)
		err = sendRaw(ctx, n.rpc, st.current())
		log.Info("reconciling a pending settlement from the journal", zap.String("tx", st.current().Hash().Hex()), zap.NamedError("rebroadcast", err))
	}
	return nil
}

// feesOf reads back the fee parameters of a signed transaction.
func feesOf(tx *types.Transaction) *fees {
	if tx.Type() == types.LegacyTxType {
		return &fees{gasLimit: tx.Gas(), gasPrice: tx.GasPrice()}
	}
	return &fees{gasLimit: tx.Gas(), tipCap: tx.GasTipCap(), feeCap: tx.GasFeeCap()}
}
