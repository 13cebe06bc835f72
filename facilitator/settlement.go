package facilitator

import (
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// settlement is one authorization on its way to the chain: its journal
// record, its signed transactions (the first, then fee-bumped
// replacements with the same nonce) and, once known, its outcome.
type settlement struct {
	n         *network
	c         *checked
	key       authKey
	requested string // the network string the seller sent
	s         *signer
	fee       *fees

	mu       sync.Mutex
	rec      *Record
	txs      []*types.Transaction
	sentHead uint64 // head block when the newest transaction went out; 0 = not yet seen

	done   chan struct{} // closed when the outcome is known
	result *SettleResponse
}

func newSettlement(c *checked, requested string, s *signer, fee *fees, now time.Time) *settlement {
	a := &c.p.Authorization
	return &settlement{
		n: c.n, c: c, key: keyOf(c.p), requested: requested, s: s, fee: fee,
		done: make(chan struct{}),
		rec: &Record{
			ID:               recordID(c.n.cfg.Name, a.From, a.Nonce),
			Network:          c.n.cfg.Name,
			RequestedNetwork: requested,
			From:             a.From.Hex(),
			To:               a.To.Hex(),
			Value:            a.Value.String(),
			ValidAfter:       a.ValidAfter.String(),
			ValidBefore:      a.ValidBefore.String(),
			Nonce:            hexutil.Encode(a.Nonce[:]),
			Signature:        hexutil.Encode(c.p.Signature),
			Signer:           s.addr.Hex(),
			Status:           StatusPending,
			CreatedAt:        now,
			UpdatedAt:        now,
		},
	}
}

func recordID(network string, from common.Address, nonce [32]byte) string {
	return strings.ToLower(fmt.Sprintf("%s/%s/%s", network, from.Hex(), hexutil.Encode(nonce[:])))
}

// setFirstTx records the transaction about to be broadcast first. A
// transaction signed earlier but never sent is replaced, not kept.
func (st *settlement) setFirstTx(tx *types.Transaction, now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.txs = []*types.Transaction{tx}
	st.rec.TxNonce = tx.Nonce()
	st.rec.Txs = []JournalTx{journalTx(tx, now)}
	st.rec.UpdatedAt = now
}

// addReplacement records a fee-bumped transaction with the same nonce.
func (st *settlement) addReplacement(tx *types.Transaction, now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.txs = append(st.txs, tx)
	st.rec.Txs = append(st.rec.Txs, journalTx(tx, now))
	st.rec.UpdatedAt = now
}

func journalTx(tx *types.Transaction, now time.Time) JournalTx {
	raw, _ := tx.MarshalBinary()
	return JournalTx{Hash: tx.Hash().Hex(), Raw: hexutil.Encode(raw), SentAt: now}
}

// current is the newest transaction.
func (st *settlement) current() *types.Transaction {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.txs) == 0 {
		return nil
	}
	return st.txs[len(st.txs)-1]
}

// hashes lists every transaction hash of the settlement.
func (st *settlement) hashes() []common.Hash {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]common.Hash, len(st.txs))
	for i, tx := range st.txs {
		out[i] = tx.Hash()
	}
	return out
}

// finish sets the record's outcome.
func (st *settlement) finish(status, txHash string, block uint64, errText string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.rec.Status = status
	st.rec.TxHash = txHash
	st.rec.BlockNumber = block
	st.rec.Error = errText
	st.rec.UpdatedAt = time.Now()
}

// response is the settle answer for a record. Its timestamp is the
// record's own: when its outcome was recorded (within a poll of its block),
// or, while pending, when it last changed.
func (r *Record) response() *SettleResponse {
	network := r.RequestedNetwork
	if network == "" {
		network = r.Network
	}
	res := &SettleResponse{X402Version: X402Version, Network: network, Timestamp: Timestamp(r.UpdatedAt), TxHash: r.TxHash}
	switch r.Status {
	case StatusSettled:
		block := r.BlockNumber
		res.Event, res.From, res.To, res.Value, res.BlockNumber = EventSettled, r.From, r.To, r.Value, &block
	case StatusFailed:
		res.Event, res.Error = EventFailed, r.Error
		if strings.HasPrefix(r.Error, "not broadcast: ") {
			res.Error = ErrTextFailedOnChain
		}
	default:
		res.Event, res.Error = EventFailed, ErrTextPending
		res.TxHash = r.latestHash()
	}
	return res
}

// paymentFromRecord rebuilds the payment of a journal record (recovery).
func paymentFromRecord(r *Record) (*Payment, error) {
	p := &Payment{X402Version: X402Version, Scheme: SchemeExact, Network: r.Network}
	a := &p.Authorization
	if !IsAddress(r.From) || !IsAddress(r.To) {
		return nil, fmt.Errorf("record %s: bad addresses", r.ID)
	}
	a.From, a.To = common.HexToAddress(r.From), common.HexToAddress(r.To)
	var ok1, ok2, ok3 bool
	a.Value, ok1 = new(big.Int).SetString(r.Value, 10)
	a.ValidAfter, ok2 = new(big.Int).SetString(r.ValidAfter, 10)
	a.ValidBefore, ok3 = new(big.Int).SetString(r.ValidBefore, 10)
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("record %s: bad numbers", r.ID)
	}
	nonce, err := hexutil.Decode(r.Nonce)
	if err != nil || len(nonce) != 32 {
		return nil, fmt.Errorf("record %s: bad nonce", r.ID)
	}
	copy(a.Nonce[:], nonce)
	if p.Signature, err = hexutil.Decode(r.Signature); err != nil || len(p.Signature) != 65 {
		return nil, fmt.Errorf("record %s: bad signature", r.ID)
	}
	p.Value = r.Value
	return p, nil
}
