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
)

// Describe implements prometheus.Collector.
func (c facilitatorCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPending, descCanSettle, descGas, descNonceLag, descRPCRequests, descRPCErrors} {
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
}

// schemeCollector reports the counts the embedded facilitator's schemes
// keep (scheme.Counted: exact's smart-wallet and revert counts), each
// under the name and help its scheme gives. It is an unchecked collector
// (Describe sends nothing): the schemes, not the app, define the metrics.
type schemeCollector struct {
	f *facilitator.Facilitator
}

// Describe implements prometheus.Collector.
func (schemeCollector) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector.
func (c schemeCollector) Collect(ch chan<- prometheus.Metric) {
	descs := map[string]*prometheus.Desc{}
	for _, n := range c.f.Counts() {
		for _, k := range n.Counts {
			d := descs[k.Name]
			if d == nil {
				d = prometheus.NewDesc(k.Name, k.Help, []string{"network"}, nil)
				descs[k.Name] = d
			}
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, k.Value, n.Network)
		}
	}
}

// registerFacilitatorMetrics registers the app's facilitator collector in
// the config's registry.
func registerFacilitatorMetrics(ctx caddy.Context, f *facilitator.Facilitator) error {
	if err := httpx.Register(ctx.GetMetricsRegistry(), facilitatorCollector{f: f}); err != nil {
		return err
	}
	return httpx.Register(ctx.GetMetricsRegistry(), schemeCollector{f: f})
}
