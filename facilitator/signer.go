package facilitator

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// signer is one gas-paying key of a network with its transaction nonce
// counter. The counter starts from the pending nonce and is resynchronised
// from the chain after any send error, so consecutive settlements can ride
// in one block without colliding on a nonce.
type signer struct {
	key      *ecdsa.PrivateKey
	addr     common.Address
	txSigner types.Signer

	mu    sync.Mutex // held while a nonce is assigned and its transaction sent
	nonce uint64
	known bool
}

func newSigner(key *ecdsa.PrivateKey, chainID *big.Int) *signer {
	return &signer{key: key, addr: crypto.PubkeyToAddress(key.PublicKey), txSigner: types.LatestSignerForChainID(chainID)}
}

// pickSigner spreads settlements over the network's signers, round-robin.
func (n *network) pickSigner() *signer {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.signers[n.next%uint32(len(n.signers))]
	n.next++
	return s
}

// fees are the gas price parameters of a transaction: EIP-1559 when the
// chain has a base fee, legacy otherwise.
type fees struct {
	gasLimit uint64
	baseFee  *big.Int // nil on a legacy chain
	tip      *big.Int
	gasPrice *big.Int
}

func (f *fees) txData(nonce uint64, to common.Address, data []byte, chainID *big.Int) types.TxData {
	if f.baseFee != nil {
		feeCap := new(big.Int).Add(new(big.Int).Mul(f.baseFee, big.NewInt(2)), f.tip)
		return &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: f.tip, GasFeeCap: feeCap, Gas: f.gasLimit, To: &to, Data: data}
	}
	return &types.LegacyTx{Nonce: nonce, GasPrice: f.gasPrice, Gas: f.gasLimit, To: &to, Data: data}
}

// sendError describes a failed send. broadcast says the transaction may
// have reached a node (the hash must then be watched); otherwise nothing
// left this process.
type sendError struct {
	err       error
	broadcast bool
	noGas     bool
}

func (e *sendError) Error() string { return e.err.Error() }
func (e *sendError) Unwrap() error { return e.err }

// send assigns the next nonce, signs and broadcasts a transaction to the
// token. It retries once after resynchronising the nonce when the node
// says the nonce is stale.
func (s *signer) send(ctx context.Context, pool *rpcPool, chainID *big.Int, to common.Address, data []byte, f *fees) (*types.Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if !s.known {
			var n hexutil.Uint64
			if err := pool.call(ctx, &n, "eth_getTransactionCount", s.addr, "pending"); err != nil {
				return nil, &sendError{err: fmt.Errorf("reading the signer's nonce: %w", err)}
			}
			s.nonce, s.known = uint64(n), true
		}
		tx, err := types.SignNewTx(s.key, s.txSigner, f.txData(s.nonce, to, data, chainID))
		if err != nil {
			return nil, &sendError{err: err}
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			return nil, &sendError{err: err}
		}
		var maybeSent bool
		err = pool.do(ctx, func(ctx context.Context, c *rpc.Client) error {
			err := c.CallContext(ctx, nil, "eth_sendRawTransaction", hexutil.Bytes(raw))
			if err != nil && isTransportError(err) && !isDialError(err) {
				maybeSent = true
			}
			return err
		})
		if err == nil || isAlreadyKnown(err) {
			s.nonce++
			return tx, nil
		}
		s.known = false
		if maybeSent {
			return tx, &sendError{err: err, broadcast: true}
		}
		if isNonceError(err) && attempt == 0 {
			continue
		}
		return nil, &sendError{err: err, noGas: isInsufficientFunds(err)}
	}
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
