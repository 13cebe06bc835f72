package engine

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Recover reconciles this network's pending records of the journal with
// the chain at start. Each is held (so the same authorization is not
// settled again), handed to the watcher (mined ones get their outcome at
// the next poll) and its newest transaction is broadcast again in nonce
// order, so that one lost before it reached a node fills its nonce and the
// signer's counter, read from the pending nonce, resumes past them all.
//
// Records are recovered once per network name in the life of the core: an
// engine that joined a running core (Start) under a name the core has
// recovered already recovers nothing, as the core has followed every
// record written since.
func (e *Engine) Recover(ctx context.Context, recs []*store.Record) {
	if !e.core.firstRecovery(e.cfg.Network) {
		return
	}
	e.follow(ctx, recs)
}

// Adopt follows this network's pending settlements that the shared journal
// handed over from an instance that died (TakeOver), as Recover follows the
// journal's at start: to their blocks, with their transactions sent again.
func (e *Engine) Adopt(ctx context.Context, recs []*store.Record) {
	e.follow(ctx, recs)
}

// follow holds the records' authorizations, hands them to the watcher and
// broadcasts their newest transactions again, in nonce order.
func (e *Engine) follow(ctx context.Context, recs []*store.Record) {
	for _, rec := range recs {
		if rec.Network != e.cfg.Network {
			continue
		}
		log := e.logger.With(zap.String("id", rec.ID), zap.Uint64("tx_nonce", rec.TxNonce))
		from, nonce, ok := recordAuthorization(rec)
		if !ok {
			log.Error("unreadable journal record; left as it is")
			continue
		}
		st := &settlement{key: authKey{from, nonce, e.spaceOf(rec.Scheme)}, s: e.signerByAddress(common.HexToAddress(rec.Signer)), rec: rec, scheme: rec.Scheme, done: make(chan struct{})}
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
		st.calldata = st.current().Data()
		if to := st.txs[0].To(); to != nil {
			st.to = *to
		}
		st.fee = feesOf(st.current())
		st.firstFee = feesOf(st.txs[0])
		if e.cfg.Serial && st.s != nil {
			st.s.serial.Lock()
			st.serial = true
		}
		if !e.core.settling.acquire(st.key) {
			log.Info("a pending settlement from the journal is followed already")
			continue
		}
		e.reserveFollowed(ctx, st, log)
		e.core.watch.add(st)
		res, _, err := e.broadcast(ctx, st.current())
		st.unclear.Store(res == sentMaybe)
		log.Info("reconciling a pending settlement from the journal", zap.String("tx", st.current().Hash().Hex()), zap.NamedError("rebroadcast", err))
	}
}

// recordAuthorization reads back a record's (from, nonce).
func recordAuthorization(r *store.Record) (common.Address, [32]byte, bool) {
	var nonce [32]byte
	b, err := hexutil.Decode(r.Nonce)
	if err != nil || len(b) != 32 || !common.IsHexAddress(r.From) {
		return common.Address{}, nonce, false
	}
	copy(nonce[:], b)
	return common.HexToAddress(r.From), nonce, true
}

// reserveFollowed reserves a followed record's value against its payer, as
// its settle did before it was broadcast: the reservations of settlements in
// flight are rebuilt from the journal (reserve.go).
func (e *Engine) reserveFollowed(ctx context.Context, st *settlement, log *zap.Logger) {
	v, ok := new(big.Int).SetString(st.rec.Value, 10)
	if !ok {
		log.Error("journal record with an unreadable value; its payer's other settlements are not held against it", zap.String("value", st.rec.Value))
		return
	}
	if e.shared == nil {
		e.core.payers.reserve(st.key, v, nil, nil, e.now())
		return
	}
	held, err := e.shared.ReserveSettlement(ctx, st.rec.ID, e.payerKey(st.key.from), v, nil, nil)
	if err != nil {
		log.Warn("cannot reserve a followed settlement's value in the shared store; the payer's other settlements are not held against it", zap.Error(err))
	}
	st.sharedHold = held
}
