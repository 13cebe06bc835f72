package exact

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Smart-contract wallets. A payment whose signature does not recover to
// its payer by ECDSA may come from a contract: verify and settle then read
// the payer's code in the batch they send anyway, and ask the wallet
// (EIP-1271 isValidSignature) or, for an ERC-6492 signature of a wallet
// not deployed yet, simulate the deployment and then ask it. Such payments
// settle through the bytes-signature overload of transferWithAuthorization
// (FiatToken v2.2); an undeployed wallet is deployed through its factory
// in the same transaction (a contract creation that runs the factory and
// then the transfer, evm.DeployAndTransferCode), only for factories the
// operator listed and payments at or above the network's floor.

// walletSig is a payment signed otherwise than by the payer's ECDSA key.
type walletSig struct {
	// sig is the wallet's own signature: the payment's, or the one inside
	// its ERC-6492 wrapper.
	sig []byte
	// full is the payment's signature as sent (the ERC-6492 wrapper too).
	full []byte
	// wrap is the ERC-6492 wrapper, nil without one.
	wrap *evm.ERC6492
	// digest is the EIP-712 digest the wallet is asked about.
	digest common.Hash
}

// checkSignature checks a payment's signature off-chain: nil and "" for
// the payer's own ECDSA signature; a walletSig when it may be a
// smart-contract wallet's (decided on chain); a reason when it cannot be
// valid.
func (n *bound) checkSignature(a *x402.Authorization, sig []byte) (*walletSig, string) {
	w, wrapped, err := evm.ParseERC6492(sig)
	if err != nil {
		return nil, x402.ReasonInvalidSignature
	}
	if !wrapped {
		if signer, err := n.hasher.Recover(a, sig); err == nil && signer == a.From {
			return nil, ""
		}
	}
	d, err := n.hasher.Digest(a)
	if err != nil {
		return nil, x402.ReasonInvalidSignature
	}
	sp := &walletSig{sig: sig, full: sig, wrap: w, digest: d}
	if w != nil {
		sp.sig = w.Signature
	}
	return sp, ""
}

// walletPolicy is a network's smart-wallet settings and state.
type walletPolicy struct {
	factories map[common.Address]bool
	floor     *big.Int // the smallest payment that pays for a deployment

	probeMu  sync.Mutex
	overload atomic.Int32 // probeUnknown, probeYes, probeNo

	deployments   atomic.Uint64 // settled transactions that deployed a wallet
	deploymentGas atomic.Uint64 // gas used by them
	walletPays    atomic.Uint64 // settled payments from wallets deployed before
	feeMu         sync.Mutex
	deploymentFee big.Int // wei paid for their transactions
}

const (
	probeUnknown int32 = iota
	probeYes
	probeNo
)

// newWalletPolicy reads the configuration (validated before).
func newWalletPolicy(nc *network.Config) *walletPolicy {
	s := &walletPolicy{factories: map[common.Address]bool{}}
	for _, f := range nc.SmartWalletFactories {
		s.factories[common.HexToAddress(f)] = true
	}
	switch {
	case nc.SmartWalletMinAmount != nil:
		s.floor = new(big.Int).Set(nc.SmartWalletMinAmount)
	case nc.Decimals >= 2:
		s.floor = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(nc.Decimals)-2), nil) // 0.01 token
	default:
		s.floor = new(big.Int)
	}
	return s
}

// probeOverload asks the token once whether it has the bytes overload,
// and remembers the answer; a chain that cannot be asked leaves it
// unknown, to be asked again at the next smart-wallet payment.
func (n *bound) probeOverload(ctx context.Context, logger *zap.Logger) (bool, error) {
	switch n.smart.overload.Load() {
	case probeYes:
		return true, nil
	case probeNo:
		return false, nil
	}
	n.smart.probeMu.Lock()
	defer n.smart.probeMu.Unlock()
	if v := n.smart.overload.Load(); v != probeUnknown {
		return v == probeYes, nil
	}
	has, err := ProbeBytesOverload(ctx, n.Pool, n.Token)
	if err != nil {
		return false, err
	}
	if has {
		n.smart.overload.Store(probeYes)
	} else {
		n.smart.overload.Store(probeNo)
		logger.Warn("the network's token has no transferWithAuthorization(..., bytes signature): payments from smart-contract wallets (EIP-1271, ERC-6492) are refused",
			zap.String("network", n.Cfg.Name), zap.String("token", n.Token.Hex()))
	}
	return has, nil
}

// smartReason turns the on-chain facts of a smart-wallet payment into a
// verify reason ("" when all is well), in this order: a used
// authorization; a payer without code and no ERC-6492 wrapper (an EOA
// with a wrong signature); a token without the bytes overload; a
// deployment the operator does not pay for (factory not listed, amount
// below the floor); a signature the wallet refuses; the balance; the
// simulated transfer; a cooling-off of the wallet or its code (a mined
// settlement of it reverted though its simulation passed: cooloff.go).
func (b *bound) smartReason(ctx context.Context, c *payment, st *ChainState, ws *evm.WalletState, sim error) (string, error) {
	n, sp, value := c.b, c.smart, c.p.Authorization.Value
	if st.Used {
		return x402.ErrTextAlreadyUsed, nil
	}
	if !ws.Deployed && sp.wrap == nil {
		return x402.ReasonInvalidSignature, nil
	}
	has, err := n.probeOverload(ctx, b.env.Logger)
	if err != nil {
		return "", scheme.Unavailable("cannot reach the chain of network "+n.Cfg.Name+" to check the payment; try again shortly", err)
	}
	if !has {
		return x402.ReasonSmartWalletUnsupported(n.Cfg.Name), nil
	}
	if !ws.Deployed {
		if !n.smart.factories[sp.wrap.Factory] {
			return x402.ReasonFactoryNotAllowed(sp.wrap.Factory.Hex(), n.Cfg.Name), nil
		}
		if value.Cmp(n.smart.floor) < 0 {
			return x402.ReasonBelowDeploymentFloor(n.smart.floor.String(), n.Cfg.Name), nil
		}
	}
	if !ws.Valid {
		return x402.ReasonInvalidSignature, nil
	}
	if st.Balance.Cmp(value) < 0 {
		return x402.ErrTextInsufficientFunds, nil
	}
	if sim != nil {
		if r, ok := evm.RevertReason(sim); ok {
			return verifyTextForRevert(r), nil
		}
		return "", scheme.Unavailable("the node of network "+n.Cfg.Name+" could not simulate the transfer; try again shortly", sim)
	}
	return b.coolingOff(ctx, c, ws)
}

// deployCode is the creation code of the transaction that deploys the
// payer's wallet and makes the transfer.
func (c *payment) deployCode() []byte {
	return evm.DeployAndTransferCode(c.smart.wrap, c.p.Authorization.From, c.b.Token, c.transferCalldata())
}

// checkSmartOnchain is checkOnchain for a smart-wallet payment: the
// authorization state, the balance, the simulated transfer (for an
// ERC-6492 signature, the simulated deployment and transfer), the payer's
// code and the wallet's verdict on the signature, in one batch.
func (b *bound) checkSmartOnchain(ctx context.Context, c *payment) (string, *ChainState, error) {
	n := c.b
	sender := n.SimulationSender()
	bc := NewBatchChecks(n.Token, sender, &c.p.Authorization, nil)
	sim := rpc.BatchElem{Method: "eth_call", Args: []any{evm.CallArgs{From: sender, To: n.Token, Data: c.transferCalldata()}, "latest"}, Result: new(hexutil.Bytes)}
	if c.smart.wrap != nil {
		sim.Args = []any{evm.CreateArgs{From: sender, Data: c.deployCode()}, "latest"}
	}
	w := evm.NewWalletChecks(c.p.Authorization.From, c.smart.digest, c.smart.full, c.smart.wrap != nil)
	all := append(append(bc.Elems[:ChecksElems:ChecksElems], sim), w.Elems...)
	if err := n.Pool.BatchShared(ctx, all); err != nil {
		b.env.Logger.Warn("on-chain checks failed: RPC unreachable", zap.String("network", n.Cfg.Name), zap.Error(err))
		return "", nil, scheme.Unavailable("cannot reach the chain of network "+n.Cfg.Name+" to check the payment; try again shortly", err)
	}
	bc.Elems, w.Elems = all[:ChecksElems], all[ChecksElems+1:]
	st, err := bc.State()
	if err != nil {
		return "", nil, scheme.Unavailable("the chain of network "+n.Cfg.Name+" gave an unreadable answer; try again shortly", err)
	}
	ws, err := w.State()
	if err != nil {
		return "", nil, scheme.Unavailable("the chain of network "+n.Cfg.Name+" gave an unreadable answer; try again shortly", err)
	}
	reason, err := b.smartReason(ctx, c, st, ws, all[ChecksElems].Error)
	return reason, st, err
}

// walletReads is the part of settle's batch that a smart-wallet payment
// adds: the wallet checks and, for an ERC-6492 signature, the gas
// estimate of the deploying transaction.
type walletReads struct {
	w         *evm.WalletChecks
	deployGas hexutil.Uint64
	at        int // index of the first element in the batch
}

// smartElems appends the elements of walletReads to a batch.
func (c *payment) smartElems(signer common.Address, elems []rpc.BatchElem) (*walletReads, []rpc.BatchElem) {
	sp := &walletReads{w: evm.NewWalletChecks(c.p.Authorization.From, c.smart.digest, c.smart.full, c.smart.wrap != nil), at: len(elems)}
	elems = append(elems, sp.w.Elems...)
	if c.smart.wrap != nil {
		elems = append(elems, rpc.BatchElem{Method: "eth_estimateGas", Args: []any{evm.CreateArgs{From: signer, Data: c.deployCode()}}, Result: &sp.deployGas})
	}
	return sp, elems
}

// smartTx reads the answers of a smart-wallet settle's batch: the verify
// reason, and for a wallet to deploy, the deploying transaction's gas
// (c.deploy is then set). est is the transfer's own gas estimate element.
func (b *bound) smartTx(ctx context.Context, c *payment, st *ChainState, sp *walletReads, elems []rpc.BatchElem, est *rpc.BatchElem, gas *hexutil.Uint64) (string, error) {
	sp.w.Elems = elems[sp.at : sp.at+evm.WalletElems]
	ws, err := sp.w.State()
	if err != nil {
		return "", scheme.Unavailable(fmt.Sprintf("the chain of network %s gave an unreadable answer; nothing was broadcast, try again shortly", c.b.Cfg.Name), err)
	}
	sim := est.Error
	if c.smart.wrap != nil && !ws.Deployed {
		c.deploy = true
		sim = elems[sp.at+evm.WalletElems].Error
		*gas = sp.deployGas
	}
	return b.smartReason(ctx, c, st, ws, sim)
}

// receiptTimeout bounds the read of a deploying transaction's receipt.
const receiptTimeout = 30 * time.Second

// countWalletSettled counts a settled smart-wallet payment. For one sent
// as a deploying transaction, its receipt is read in the background: the
// deployer's WalletDeployed log says whether it deployed the wallet (an
// earlier transaction of the same moment may have), and its gas and price
// are what the deployment cost.
func (b *bound) countWalletSettled(c *payment, rec *store.Record) {
	if rec.Status != store.StatusSettled {
		return
	}
	if !c.deploy {
		c.b.smart.walletPays.Add(1)
		return
	}
	if b.env.Ctx.Err() != nil {
		return
	}
	b.env.WG.Add(1)
	go func() {
		defer b.env.WG.Done()
		ctx, cancel := context.WithTimeout(b.env.Ctx, receiptTimeout)
		defer cancel()
		log := b.env.Logger.With(zap.String("network", c.b.Cfg.Name), zap.String("wallet", c.p.Authorization.From.Hex()), zap.String("tx", rec.TxHash))
		var r *struct {
			GasUsed hexutil.Uint64 `json:"gasUsed"`
			Price   *hexutil.Big   `json:"effectiveGasPrice"`
			Logs    []struct {
				Topics []common.Hash `json:"topics"`
			} `json:"logs"`
		}
		if err := c.b.Pool.Call(ctx, &r, "eth_getTransactionReceipt", common.HexToHash(rec.TxHash)); err != nil || r == nil {
			log.Warn("could not read the receipt of a smart-wallet deployment for its gas", zap.Error(err))
			return
		}
		deployed := false
		for _, l := range r.Logs {
			if len(l.Topics) > 1 && l.Topics[0] == evm.WalletDeployedTopic && l.Topics[1] == common.BytesToHash(c.p.Authorization.From.Bytes()) {
				deployed = true
			}
		}
		if !deployed {
			c.b.smart.walletPays.Add(1)
			return
		}
		c.b.smart.deployments.Add(1)
		c.b.smart.deploymentGas.Add(uint64(r.GasUsed))
		if r.Price != nil {
			c.b.smart.feeMu.Lock()
			c.b.smart.deploymentFee.Add(&c.b.smart.deploymentFee, new(big.Int).Mul(r.Price.ToInt(), new(big.Int).SetUint64(uint64(r.GasUsed))))
			c.b.smart.feeMu.Unlock()
		}
		log.Info("deployed a smart-contract wallet to settle its payment (ERC-6492); the facilitator paid the gas", zap.Uint64("gas_used", uint64(r.GasUsed)))
	}()
}

// ProbeBytesOverload tells whether token has the bytes-signature overload
// of transferWithAuthorization (FiatToken v2.2), by simulating a call of it
// with an authorization that expired at time 0: a token that has it
// reverts with a reason of its own ("FiatTokenV2: authorization is
// expired", or a pause or blacklist reason); one that has not reverts with
// no reason (no such function, no fallback). An error means the chain
// could not be asked.
func ProbeBytesOverload(ctx context.Context, pool *evm.Pool, token common.Address) (bool, error) {
	zero := big.NewInt(0)
	a := &x402.Authorization{From: common.Address{1}, To: common.Address{2}, Value: zero, ValidAfter: zero, ValidBefore: zero}
	var out hexutil.Bytes
	err := pool.Call(ctx, &out, "eth_call", evm.CallArgs{To: token, Data: TransferCalldataBytes(a, make([]byte, 65))}, "latest")
	if err == nil {
		return true, nil
	}
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, ok := de.ErrorData().(string); ok {
			if data, derr := hexutil.Decode(s); derr == nil {
				_, uerr := abi.UnpackRevert(data)
				return uerr == nil, nil
			}
		}
	}
	if r, reverted := evm.RevertReason(err); reverted {
		return r != "execution reverted", nil // a reason of its own, or none
	}
	return false, err
}
