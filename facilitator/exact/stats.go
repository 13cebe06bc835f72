package exact

import (
	"math/big"
	"sync"

	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// SmartWalletStats are a network's smart-contract wallet settlements
// since the facilitator started, as this instance answered them.
type SmartWalletStats struct {
	// Network is the network's name.
	Network string
	// Payments are settled payments from wallets that had code before
	// their transaction (EIP-1271).
	Payments uint64
	// Deployments are settled ERC-6492 payments whose transaction
	// deployed the wallet. Their gas is read from the receipt in the
	// background, shortly after the settle answer.
	Deployments uint64
	// DeploymentGas is the gas used by those transactions (the deployment
	// and the transfer, which are one transaction), paid by the
	// facilitator.
	DeploymentGas uint64
	// DeploymentFeeWei is what those transactions cost, in wei.
	DeploymentFeeWei *big.Int
}

// RevertStats are a network's settlements that were mined and reverted,
// and the smart-contract wallet payments refused for it, since the
// facilitator started, as this instance saw them.
type RevertStats struct {
	// Network is the network's name.
	Network string
	// Reverted are settlements whose transaction was mined and reverted
	// (any payer, any cause); GasUsed is the gas they used and FeeWei what
	// they cost, paid by the facilitator.
	Reverted uint64
	GasUsed  uint64
	FeeWei   *big.Int
	// Strikes are the reverts that started (or lengthened) a
	// smart-contract wallet's cooling-off.
	Strikes uint64
	// CoolingOffRefusals are payments refused because their wallet (or
	// its code) cools off; BusyRefusals those refused because another
	// payment of the wallet was being settled.
	CoolingOffRefusals uint64
	BusyRefusals       uint64
}

// WalletStats returns the smart-wallet counts of each network exact is
// bound to in f (a facilitator.Facilitator), for metrics.
func WalletStats(f scheme.Bindings) []SmartWalletStats {
	var out []SmartWalletStats
	for _, n := range exactOnly(f.Bounds(x402.SchemeExact)) {
		w := n.smart
		out = append(out, SmartWalletStats{Network: n.Cfg.Name, Payments: w.walletPays.Load(), Deployments: w.deployments.Load(),
			DeploymentGas: w.deploymentGas.Load(), DeploymentFeeWei: copyLocked(&w.feeMu, &w.deploymentFee)})
	}
	return out
}

// RevertCounts returns the revert counts of each network exact is bound
// to in f (a facilitator.Facilitator), for metrics.
func RevertCounts(f scheme.Bindings) []RevertStats {
	var out []RevertStats
	for _, n := range exactOnly(f.Bounds(x402.SchemeExact)) {
		r := &n.reverts
		out = append(out, RevertStats{Network: n.Cfg.Name, Reverted: r.reverted.Load(), GasUsed: r.gas.Load(), FeeWei: copyLocked(&r.feeMu, &r.fee),
			Strikes: r.strikes.Load(), CoolingOffRefusals: r.refused.Load(), BusyRefusals: r.busy.Load()})
	}
	return out
}

// exactOnly keeps exact's own among bounds, in their order.
func exactOnly(bounds []scheme.Bound) []*bound {
	var out []*bound
	for _, sb := range bounds {
		if b, ok := sb.(*bound); ok {
			out = append(out, b)
		}
	}
	return out
}

// copyLocked copies v under mu.
func copyLocked(mu *sync.Mutex, v *big.Int) *big.Int {
	mu.Lock()
	defer mu.Unlock()
	return new(big.Int).Set(v)
}
