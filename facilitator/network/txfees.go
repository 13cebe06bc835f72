package network

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
)

// TxFees joins a settle's read of the gas prices to the batch of its other
// reads, sharing the network's quote (Fees) with the settles of the
// moment: at most one read per QuoteTTL, and the settles that come while
// one is on its way wait for it.
type TxFees struct {
	n     *Network
	q     *FeeQuote
	wait  <-chan struct{}
	read  *FeeRead
	first int // index of read's elements in the batch
}

// JoinFees appends the gas-price read to elems when this settle is the
// one to read them; call Answered with the batch's elements and error.
func (n *Network) JoinFees(elems []rpc.BatchElem) (*TxFees, []rpc.BatchElem) {
	t := &TxFees{n: n}
	var fetch bool
	t.q, fetch, t.wait = n.Fees.Get()
	if fetch {
		t.read, t.first = NewFeeRead(), len(elems)
		elems = append(elems, t.read.Elems...)
	}
	return t, elems
}

// Answered ends the read joined to the batch (elems as answered, err the
// batch's error): its quote serves the other settles.
func (t *TxFees) Answered(elems []rpc.BatchElem, err error) {
	if t.read == nil {
		return
	}
	if err == nil {
		t.q = t.read.Quote(elems[t.first:])
	}
	t.n.Fees.Put(t.q)
}

// gasMarginPercent is added to eth_estimateGas's figure.
const gasMarginPercent = 25

// Fees are the first transaction's gas parameters for a gas estimate:
// the estimate plus a quarter; an EIP-1559 fee cap of twice the base fee
// (room for six full blocks of rises) plus the tip, or the legacy gas
// price. An error when no gas price could be read.
func (t *TxFees) Fees(ctx context.Context, gas uint64) (*engine.Fees, error) {
	q := t.q
	if t.wait != nil {
		q = t.n.Fees.Await(ctx, t.wait, t.n.Pool)
	}
	if q == nil || q.Err != nil {
		err := errors.New("no gas price read")
		if q != nil {
			err = q.Err
		}
		return nil, err
	}
	fe := &engine.Fees{GasLimit: gas * (100 + gasMarginPercent) / 100}
	if q.BaseFee != nil {
		fe.TipCap = new(big.Int).Set(q.Tip)
		fe.FeeCap = new(big.Int).Add(new(big.Int).Mul(q.BaseFee, big.NewInt(2)), fe.TipCap)
	} else {
		fe.GasPrice = new(big.Int).Set(q.GasPrice)
	}
	return fe, nil
}
