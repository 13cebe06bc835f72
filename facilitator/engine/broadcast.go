package engine

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// Broadcasting signed transactions: one, or a batch of them, within a
// deadline, each answer classified (sendResult, sendClass).

// Broadcast results.
type sendResult int

const (
	sentOK    sendResult = iota // the node has the transaction
	sentMaybe                   // the node may have it: an answer was lost
	sentNot                     // the node certainly does not have it
)

// broadcast sends a signed transaction, within the send timeout. Once an
// attempt may have delivered it (a transport failure after connecting),
// every later answer may be about that delivery ("nonce too low" once it
// is mined, "invalid nonce" on Ethermint), so the result is sentMaybe
// unless the node says it has the transaction.
func (e *Engine) broadcast(ctx context.Context, tx *types.Transaction) (sendResult, sendClass, error) {
	return e.broadcastBy(ctx, tx, time.Time{})
}

// minSendTime is the least time a broadcast is given, however close its
// deadline.
const minSendTime = 250 * time.Millisecond

// broadcastBy is broadcast cut at deadline (when set), but never given
// less than minSendTime.
func (e *Engine) broadcastBy(ctx context.Context, tx *types.Transaction, deadline time.Time) (sendResult, sendClass, error) {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return sentNot, sendRejected, err
	}
	timeout := e.cfg.SendTimeout
	if !deadline.IsZero() {
		timeout = min(timeout, max(time.Until(deadline), minSendTime))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var reached bool
	err = e.cfg.Pool.Do(ctx, func(ctx context.Context, c *rpc.Client) error {
		err := c.CallContext(ctx, nil, "eth_sendRawTransaction", hexutil.Bytes(raw))
		if err != nil && evm.IsTransportError(err) && !isDialError(err) {
			reached = true
		}
		return err
	})
	if err == nil {
		return sentOK, sendRejected, nil
	}
	class := classifySend(err)
	switch {
	case class == sendDuplicate:
		return sentOK, class, nil
	case reached:
		return sentMaybe, class, err
	}
	return sentNot, class, err
}

// sendOutcome is the fate of one transaction of a batch.
type sendOutcome struct {
	res   sendResult
	class sendClass
	err   error
}

// maxSendBatch bounds the transactions sent in one JSON-RPC batch.
const maxSendBatch = 256

// broadcastAll sends signed transactions in nonce order, in JSON-RPC
// batches (a node runs a batch's calls in order), within the send timeout
// (cut at deadline when set). Each result is read as broadcast reads a
// single one.
func (e *Engine) broadcastAll(ctx context.Context, txs []*types.Transaction, deadline time.Time) []sendOutcome {
	out := make([]sendOutcome, len(txs))
	timeout := e.cfg.SendTimeout
	if !deadline.IsZero() {
		timeout = min(timeout, max(time.Until(deadline), minSendTime))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for lo := 0; lo < len(txs); lo += maxSendBatch {
		chunk := txs[lo:min(lo+maxSendBatch, len(txs))]
		elems := make([]rpc.BatchElem, len(chunk))
		hashes := make([]common.Hash, len(chunk)) // the node's answers, read but not needed
		for i, tx := range chunk {
			raw, err := tx.MarshalBinary()
			if err != nil {
				raw = nil
			}
			// A batch element needs a result to decode into: without one,
			// go-ethereum reports every answer as an unmarshal error.
			elems[i] = rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(raw)}, Result: &hashes[i]}
		}
		var reached bool
		err := e.cfg.Pool.Do(ctx, func(ctx context.Context, c *rpc.Client) error {
			for i := range elems {
				elems[i].Error = nil
			}
			err := c.BatchCallContext(ctx, elems)
			if err != nil && evm.IsTransportError(err) && !isDialError(err) {
				reached = true
			}
			return err
		})
		for i := range chunk {
			o := &out[lo+i]
			switch {
			case err != nil && reached:
				o.res, o.err = sentMaybe, err
			case err != nil:
				o.res, o.err = sentNot, err
			case elems[i].Error == nil:
				o.res = sentOK
			default:
				o.err, o.class = elems[i].Error, classifySend(elems[i].Error)
				switch {
				case o.class == sendDuplicate:
					o.res = sentOK
				case reached || evm.IsTransportError(elems[i].Error):
					o.res = sentMaybe
				default:
					o.res = sentNot
				}
			}
		}
	}
	return out
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
