package engine

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// signer is one gas-paying key of a network. Its send loop hands out
// transaction nonces from a local counter (initialised from the pending
// nonce, resynchronised after a send error or a lost transaction), so many
// settlements ride in one block. Settlements that queue up while a batch is
// being sent go out together: one journal write for the whole group, then
// the transactions in nonce order.
type signer struct {
	key      *ecdsa.PrivateKey
	addr     common.Address
	txSigner types.Signer
	queue    chan *sendReq

	// serial holds a signer to one settlement at a time, send to
	// confirmation: the baseline the pipelined engine is measured against.
	serial sync.Mutex
	resync atomic.Bool // set by the watcher when the chain disagrees

	// Owned by the send loop.
	nonce uint64
	known bool
}

func newSigner(key *ecdsa.PrivateKey, chainID *big.Int) *signer {
	return &signer{
		key:      key,
		addr:     crypto.PubkeyToAddress(key.PublicKey),
		txSigner: types.LatestSignerForChainID(chainID),
		queue:    make(chan *sendReq, 1024),
	}
}

// sendReq asks the send loop to sign, journal and broadcast a settlement.
type sendReq struct {
	st       *settlement
	done     chan error
	attempts int
}

// submit queues a settlement for sending and waits until it is broadcast
// (nil) or certainly not (a *NotSentError).
func (s *signer) submit(st *settlement) error {
	r := &sendReq{st: st, done: make(chan error, 1)}
	s.queue <- r
	return <-r.done
}

// Fees are the gas price parameters of a transaction: EIP-1559 when the
// chain has a base fee, legacy otherwise.
type Fees struct {
	// GasLimit is the transaction's gas limit.
	GasLimit uint64
	// TipCap and FeeCap are the EIP-1559 fees (nil on a legacy chain).
	TipCap *big.Int
	FeeCap *big.Int
	// GasPrice is the legacy gas price.
	GasPrice *big.Int
}

func (f *Fees) txData(nonce uint64, to common.Address, data []byte, chainID *big.Int) types.TxData {
	if f.TipCap != nil {
		return &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: f.TipCap, GasFeeCap: f.FeeCap, Gas: f.GasLimit, To: &to, Data: data}
	}
	return &types.LegacyTx{Nonce: nonce, GasPrice: f.GasPrice, Gas: f.GasLimit, To: &to, Data: data}
}

// bumped returns the fees raised by a quarter, above the 10% that nodes
// require of a replacement.
func (f *Fees) bumped() *Fees {
	up := func(v *big.Int) *big.Int {
		if v == nil {
			return nil
		}
		b := new(big.Int).Mul(v, big.NewInt(125))
		b.Div(b, big.NewInt(100))
		if b.Cmp(v) <= 0 {
			b.Add(v, big.NewInt(1))
		}
		return b
	}
	return &Fees{GasLimit: f.GasLimit, TipCap: up(f.TipCap), FeeCap: up(f.FeeCap), GasPrice: up(f.GasPrice)}
}

// loop is the signer's send loop; it ends with ctx, failing what is queued.
func (s *signer) loop(ctx context.Context, e *Engine) {
	for {
		select {
		case <-ctx.Done():
			for {
				select {
				case r := <-s.queue:
					r.done <- &NotSentError{Err: errors.New("the facilitator is shutting down")}
				default:
					return
				}
			}
		case r := <-s.queue:
			batch := []*sendReq{r}
		drain:
			for len(batch) < 256 {
				select {
				case r := <-s.queue:
					batch = append(batch, r)
				default:
					break drain
				}
			}
			s.sendBatch(ctx, e, batch)
		}
	}
}

// sendBatch signs the group with consecutive nonces, journals it in one
// write, then broadcasts in nonce order. When one is certainly not
// broadcast, the rest are signed again with fresh nonces, so no gap is
// left behind.
func (s *signer) sendBatch(ctx context.Context, e *Engine, reqs []*sendReq) {
	failAll := func(err error) {
		for _, r := range reqs {
			r.done <- &NotSentError{Err: err}
		}
	}
	for len(reqs) > 0 {
		if s.resync.Swap(false) {
			s.known = false
		}
		if !s.known {
			var pending hexutil.Uint64
			if err := e.cfg.Pool.Call(ctx, &pending, "eth_getTransactionCount", s.addr, "pending"); err != nil {
				failAll(fmt.Errorf("reading the signer's nonce: %w", err))
				return
			}
			s.nonce, s.known = uint64(pending), true
		}
		recs := make([]*Record, len(reqs))
		for i, r := range reqs {
			tx, err := types.SignNewTx(s.key, s.txSigner, r.st.fee.txData(s.nonce+uint64(i), e.cfg.Token, r.st.calldata, e.cfg.ChainID))
			if err != nil {
				failAll(err)
				return
			}
			r.st.setFirstTx(tx, e.now())
			recs[i] = r.st.rec
		}
		if err := e.cfg.Journal.Put(recs...); err != nil {
			e.logger.Error("writing the settlement journal failed; nothing was broadcast", zap.Error(err))
			failAll(fmt.Errorf("writing the settlement journal: %w", err))
			return
		}
		var rest []*sendReq
		for i, r := range reqs {
			tx := r.st.current()
			err := sendRaw(ctx, e.cfg.Pool, tx)
			var maybe *maybeSentError
			if err == nil || isAlreadyKnown(err) || errors.As(err, &maybe) {
				// An ambiguous failure counts as broadcast: the watcher
				// sends it again if it never shows up.
				if err != nil {
					e.logger.Warn("broadcast may have failed; the settlement will be re-sent if it does not appear",
						zap.String("tx", tx.Hash().Hex()), zap.Error(err))
				}
				s.nonce = tx.Nonce() + 1
				r.done <- nil
				continue
			}
			s.known = false
			if isNonceError(err) && r.attempts == 0 {
				r.attempts++
				rest = reqs[i:]
				break
			}
			r.st.finish(StatusFailed, "", 0, "not broadcast: "+err.Error(), e.now())
			if jerr := e.cfg.Journal.Put(r.st.rec); jerr != nil {
				e.logger.Error("recording a settlement that was not broadcast failed; it may be re-sent on restart", zap.Error(jerr))
			}
			r.done <- &NotSentError{Err: err, NoGas: isInsufficientFunds(err)}
			rest = reqs[i+1:]
			break
		}
		reqs = rest
	}
}

// maybeSentError is a broadcast whose fate is unknown: the request may
// have reached the node before the connection failed.
type maybeSentError struct{ err error }

func (e *maybeSentError) Error() string { return e.err.Error() }
func (e *maybeSentError) Unwrap() error { return e.err }

// sendRaw broadcasts a signed transaction. A failure to connect means it
// was certainly not sent; other transport failures are *maybeSentError.
func sendRaw(ctx context.Context, pool *evm.Pool, tx *types.Transaction) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	var maybeSent bool
	err = pool.Do(ctx, func(ctx context.Context, c *rpc.Client) error {
		err := c.CallContext(ctx, nil, "eth_sendRawTransaction", hexutil.Bytes(raw))
		if err != nil && evm.IsTransportError(err) && !isDialError(err) {
			maybeSent = true
		}
		return err
	})
	if err != nil && maybeSent && evm.IsTransportError(err) {
		return &maybeSentError{err: err}
	}
	return err
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func rpcMessage(err error) string {
	var re rpc.Error
	if errors.As(err, &re) {
		return strings.ToLower(re.Error())
	}
	return ""
}

func isAlreadyKnown(err error) bool {
	m := rpcMessage(err)
	return strings.Contains(m, "already known") || strings.Contains(m, "known transaction")
}

func isNonceError(err error) bool {
	m := rpcMessage(err)
	return strings.Contains(m, "nonce too low") || strings.Contains(m, "nonce too high") ||
		strings.Contains(m, "replacement transaction underpriced") || strings.Contains(m, "invalid nonce")
}

func isInsufficientFunds(err error) bool {
	return strings.Contains(rpcMessage(err), "insufficient funds")
}
