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
		out = append(out, n.walletStats())
	}
	return out
}

// RevertCounts returns the revert counts of each network exact is bound
// to in f (a facilitator.Facilitator), for metrics.
func RevertCounts(f scheme.Bindings) []RevertStats {
	var out []RevertStats
	for _, n := range exactOnly(f.Bounds(x402.SchemeExact)) {
		out = append(out, n.revertStats())
	}
	return out
}

// walletStats reads the bound's smart-wallet counts.
func (b *bound) walletStats() SmartWalletStats {
	w := b.smart
	return SmartWalletStats{Network: b.Cfg.Name, Payments: w.walletPays.Load(), Deployments: w.deployments.Load(),
		DeploymentGas: w.deploymentGas.Load(), DeploymentFeeWei: copyLocked(&w.feeMu, &w.deploymentFee)}
}

// revertStats reads the bound's revert counts.
func (b *bound) revertStats() RevertStats {
	r := &b.reverts
	return RevertStats{Network: b.Cfg.Name, Reverted: r.reverted.Load(), GasUsed: r.gas.Load(), FeeWei: copyLocked(&r.feeMu, &r.fee),
		Strikes: r.strikes.Load(), CoolingOffRefusals: r.refused.Load(), BusyRefusals: r.busy.Load()}
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

var _ scheme.Counted = (*bound)(nil)

// Counts are exact's counts on its network, for metrics (scheme.Counted):
// the smart-wallet settlements and the reverted settlements, read as
// WalletStats and RevertCounts read them.
func (b *bound) Counts() []scheme.Count {
	w, r := b.walletStats(), b.revertStats()
	wei := func(v *big.Int) float64 {
		f, _ := new(big.Float).SetInt(v).Float64()
		return f
	}
	return []scheme.Count{
		{Name: "x402_smart_wallet_payments_total", Help: "Settled payments from smart-contract wallets that were deployed already (EIP-1271), by network.", Value: float64(w.Payments)},
		{Name: "x402_smart_wallet_deployments_total", Help: "Smart-contract wallets deployed by the facilitator to settle their ERC-6492 payments, by network.", Value: float64(w.Deployments)},
		{Name: "x402_smart_wallet_deployment_gas_total", Help: "Gas used by the transactions that deployed a wallet and settled its payment, paid by the facilitator, by network.", Value: float64(w.DeploymentGas)},
		{Name: "x402_smart_wallet_deployment_fee_wei_total", Help: "What those transactions cost the facilitator, in wei, by network.", Value: wei(w.DeploymentFeeWei)},
		{Name: "x402_settlements_reverted_total", Help: "Settlements whose transaction was mined and reverted (the gas paid, nothing moved), by network.", Value: float64(r.Reverted)},
		{Name: "x402_settlement_revert_gas_total", Help: "Gas used by settlement transactions that reverted, paid by the facilitator for nothing, by network.", Value: float64(r.GasUsed)},
		{Name: "x402_settlement_revert_fee_wei_total", Help: "What those transactions cost the facilitator, in wei, by network.", Value: wei(r.FeeWei)},
		{Name: "x402_smart_wallet_cool_offs_total", Help: "Reverted settlements of smart-contract wallets that started or lengthened a cooling-off of the wallet (and of its code), by network.", Value: float64(r.Strikes)},
		{Name: "x402_smart_wallet_cooling_off_refusals_total", Help: "Smart-contract wallet payments refused because the wallet, or its code, cools off after a revert, by network.", Value: float64(r.CoolingOffRefusals)},
		{Name: "x402_smart_wallet_busy_refusals_total", Help: "Smart-contract wallet payments refused because another payment of the wallet was being settled, by network.", Value: float64(r.BusyRefusals)},
	}
}
