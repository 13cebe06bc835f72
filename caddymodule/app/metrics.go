package app

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
)

// facilitatorCollector reports the embedded facilitator's state at scrape
// time: from the health snapshot (no RPC call of its own) and the RPC
// endpoints' counters.
type facilitatorCollector struct {
	f *facilitator.Facilitator
}

var (
	descPending = prometheus.NewDesc("x402_settlements_pending",
		"Settlements broadcast and waiting for their block, by network.", []string{"network"}, nil)
	descCanSettle = prometheus.NewDesc("x402_network_can_settle",
		"1 when the network can settle now (RPC answers, recent head, a signer with gas), else 0.", []string{"network"}, nil)
	descGas = prometheus.NewDesc("x402_signer_gas_balance_wei",
		"Native balance of each signer key that pays settlement gas, in wei.", []string{"network", "signer"}, nil)
	descNonceLag = prometheus.NewDesc("x402_signer_nonce_lag",
		"Transactions of each signer key that the node holds but has not mined (pending nonce minus mined nonce); one that keeps growing means settlements are stuck.", []string{"network", "signer"}, nil)
	descRPCRequests = prometheus.NewDesc("x402_rpc_requests_total",
		"JSON-RPC round trips (a batch counts once) by network and endpoint (credentials redacted).", []string{"network", "endpoint"}, nil)
	descRPCErrors = prometheus.NewDesc("x402_rpc_errors_total",
		"JSON-RPC round trips that failed, by network and endpoint (credentials redacted).", []string{"network", "endpoint"}, nil)
	descWalletPays = prometheus.NewDesc("x402_smart_wallet_payments_total",
		"Settled payments from smart-contract wallets that were deployed already (EIP-1271), by network.", []string{"network"}, nil)
	descDeployments = prometheus.NewDesc("x402_smart_wallet_deployments_total",
		"Smart-contract wallets deployed by the facilitator to settle their ERC-6492 payments, by network.", []string{"network"}, nil)
	descDeploymentGas = prometheus.NewDesc("x402_smart_wallet_deployment_gas_total",
		"Gas used by the transactions that deployed a wallet and settled its payment, paid by the facilitator, by network.", []string{"network"}, nil)
	descDeploymentFee = prometheus.NewDesc("x402_smart_wallet_deployment_fee_wei_total",
		"What those transactions cost the facilitator, in wei, by network.", []string{"network"}, nil)
	descReverted = prometheus.NewDesc("x402_settlements_reverted_total",
		"Settlements whose transaction was mined and reverted (the gas paid, nothing moved), by network.", []string{"network"}, nil)
	descRevertGas = prometheus.NewDesc("x402_settlement_revert_gas_total",
		"Gas used by settlement transactions that reverted, paid by the facilitator for nothing, by network.", []string{"network"}, nil)
	descRevertFee = prometheus.NewDesc("x402_settlement_revert_fee_wei_total",
		"What those transactions cost the facilitator, in wei, by network.", []string{"network"}, nil)
	descCoolOffs = prometheus.NewDesc("x402_smart_wallet_cool_offs_total",
		"Reverted settlements of smart-contract wallets that started or lengthened a cooling-off of the wallet (and of its code), by network.", []string{"network"}, nil)
	descCoolOffRefusals = prometheus.NewDesc("x402_smart_wallet_cooling_off_refusals_total",
		"Smart-contract wallet payments refused because the wallet, or its code, cools off after a revert, by network.", []string{"network"}, nil)
	descBusyRefusals = prometheus.NewDesc("x402_smart_wallet_busy_refusals_total",
		"Smart-contract wallet payments refused because another payment of the wallet was being settled, by network.", []string{"network"}, nil)
)

// Describe implements prometheus.Collector.
func (c facilitatorCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPending, descCanSettle, descGas, descNonceLag, descRPCRequests, descRPCErrors,
		descWalletPays, descDeployments, descDeploymentGas, descDeploymentFee,
		descReverted, descRevertGas, descRevertFee, descCoolOffs, descCoolOffRefusals, descBusyRefusals} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c facilitatorCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for _, n := range c.f.Health(ctx, time.Now()).Networks {
		ch <- prometheus.MustNewConstMetric(descPending, prometheus.GaugeValue, float64(n.PendingSettlements), n.Network)
		can := 0.0
		if n.CanSettle {
			can = 1
		}
		ch <- prometheus.MustNewConstMetric(descCanSettle, prometheus.GaugeValue, can, n.Network)
		for _, s := range n.Signers {
			if b, ok := new(big.Float).SetString(s.GasBalance); ok {
				f, _ := b.Float64()
				ch <- prometheus.MustNewConstMetric(descGas, prometheus.GaugeValue, f, n.Network, strings.ToLower(s.Address))
			}
			if s.NonceLag != nil {
				ch <- prometheus.MustNewConstMetric(descNonceLag, prometheus.GaugeValue, float64(*s.NonceLag), n.Network, strings.ToLower(s.Address))
			}
		}
	}
	for _, n := range c.f.RPCStats() {
		seen := map[string]int{}
		for _, e := range n.Endpoints {
			label := e.URL
			if seen[e.URL]++; seen[e.URL] > 1 { // two endpoints alike once redacted
				label = fmt.Sprintf("%s#%d", e.URL, seen[e.URL])
			}
			ch <- prometheus.MustNewConstMetric(descRPCRequests, prometheus.CounterValue, float64(e.Requests), n.Network, label)
			ch <- prometheus.MustNewConstMetric(descRPCErrors, prometheus.CounterValue, float64(e.Errors), n.Network, label)
		}
	}
	for _, n := range exact.WalletStats(c.f) {
		fee, _ := new(big.Float).SetInt(n.DeploymentFeeWei).Float64()
		ch <- prometheus.MustNewConstMetric(descWalletPays, prometheus.CounterValue, float64(n.Payments), n.Network)
		ch <- prometheus.MustNewConstMetric(descDeployments, prometheus.CounterValue, float64(n.Deployments), n.Network)
		ch <- prometheus.MustNewConstMetric(descDeploymentGas, prometheus.CounterValue, float64(n.DeploymentGas), n.Network)
		ch <- prometheus.MustNewConstMetric(descDeploymentFee, prometheus.CounterValue, fee, n.Network)
	}
	for _, n := range exact.RevertCounts(c.f) {
		fee, _ := new(big.Float).SetInt(n.FeeWei).Float64()
		ch <- prometheus.MustNewConstMetric(descReverted, prometheus.CounterValue, float64(n.Reverted), n.Network)
		ch <- prometheus.MustNewConstMetric(descRevertGas, prometheus.CounterValue, float64(n.GasUsed), n.Network)
		ch <- prometheus.MustNewConstMetric(descRevertFee, prometheus.CounterValue, fee, n.Network)
		ch <- prometheus.MustNewConstMetric(descCoolOffs, prometheus.CounterValue, float64(n.Strikes), n.Network)
		ch <- prometheus.MustNewConstMetric(descCoolOffRefusals, prometheus.CounterValue, float64(n.CoolingOffRefusals), n.Network)
		ch <- prometheus.MustNewConstMetric(descBusyRefusals, prometheus.CounterValue, float64(n.BusyRefusals), n.Network)
	}
}

// registerFacilitatorMetrics registers the app's facilitator collector in
// the config's registry.
func registerFacilitatorMetrics(ctx caddy.Context, f *facilitator.Facilitator) error {
	return httpx.Register(ctx.GetMetricsRegistry(), facilitatorCollector{f: f})
}
