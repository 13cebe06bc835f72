package x402cmd

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	_ "github.com/caddy-x402/caddy-x402/facilitator/schemes" // the schemes the facilitator serves, with their Needs
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// networkReport is what the doctor found on one network.
type networkReport struct {
	Network string `json:"network"`
	ChainID int64  `json:"chainId"`
	Token   string `json:"token"`
	// Findings are the checks every scheme shares: the RPC, the token
	// and its domain, the signers.
	Findings []doctor.Finding `json:"findings"`
	// Schemes are the facilitator's schemes, offered or not.
	Schemes []schemeReport `json:"schemes"`
	// Required are the schemes routes take here; RemoteRoutes the routes
	// a remote facilitator serves (not checked).
	Required     []string `json:"required"`
	RemoteRoutes int      `json:"remoteRoutes,omitempty"`
}

// schemeReport is one scheme on one network.
type schemeReport struct {
	Scheme string `json:"scheme"`
	// Offered: its own findings and the network's have no failure.
	Offered  bool             `json:"offered"`
	Findings []doctor.Finding `json:"findings,omitempty"`
}

// served reports whether scheme s can be served on the network.
func (r *networkReport) served(s string) bool {
	for _, sr := range r.Schemes {
		if sr.Scheme == s {
			return sr.Offered
		}
	}
	return false
}

// known reports whether s is a scheme of the facilitator.
func (r *networkReport) known(s string) bool {
	for _, sr := range r.Schemes {
		if sr.Scheme == s {
			return true
		}
	}
	return false
}

// networkFailed reports whether a network-wide finding fails.
func (r *networkReport) networkFailed() bool {
	for _, f := range r.Findings {
		if f.Failed() {
			return true
		}
	}
	return false
}

// schemeOrder is the order schemes are listed in: as the docs give them.
var schemeOrder = map[string]int{x402.SchemeExact: 1, x402.SchemeExactPermit2: 2, x402.SchemeUpto: 3, x402.SchemeBatchSettlement: 4, x402.SchemeBatchSettlementPermit2: 5}

// mechanisms are the registered schemes of EVM networks, in schemeOrder.
func mechanisms() []scheme.Mechanism {
	var out []scheme.Mechanism
	for _, m := range scheme.All() {
		if m.Family() == "eip155" {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		oi, oj := schemeOrder[out[i].Name()], schemeOrder[out[j].Name()]
		if oi == 0 || oj == 0 {
			if oi != oj {
				return oi != 0
			}
			return out[i].Name() < out[j].Name()
		}
		return oi < oj
	})
	return out
}

// checkNetwork runs every check on one network within timeout.
func checkNetwork(ctx context.Context, t doctorTarget, timeout time.Duration) *networkReport {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc := t.Config
	r := &networkReport{Network: nc.Name, ChainID: nc.ChainID, Token: common.HexToAddress(nc.Token).Hex(), Required: t.Required, RemoteRoutes: t.Remote}
	rpcFinding := doctor.Finding{Network: nc.Name, Scheme: doctor.AllSchemes, Check: doctor.KindRPC, Subject: "rpc"}
	chainID := big.NewInt(nc.ChainID)
	pool, err := evm.NewPool(nc.Name, chainID, nc.RPCURLs, zap.NewNop())
	if err == nil {
		defer pool.Close()
		err = pool.CheckChainIDs(ctx)
	}
	if err != nil {
		rpcFinding.Status, rpcFinding.Detail = doctor.Missing, redactRPC(err.Error(), nc.RPCURLs)
		rpcFinding.Fix = fmt.Sprintf("point the network's rpc at a reachable endpoint of chain %d", nc.ChainID)
		r.Findings = append(r.Findings, rpcFinding)
		for _, m := range mechanisms() {
			r.Schemes = append(r.Schemes, schemeReport{Scheme: m.Name()})
		}
		return r
	}
	rpcFinding.Status, rpcFinding.Detail = doctor.OK, fmt.Sprintf("chain %d answers", nc.ChainID)
	r.Findings = append(r.Findings, rpcFinding)

	token := common.HexToAddress(nc.Token)
	cfg := evm.Domain{Name: nc.EIP712Name, Version: nc.EIP712Version, ChainID: chainID, VerifyingContract: token}
	if td, err := doctor.ReadTokenDomain(ctx, pool, token); err != nil {
		r.Findings = append(r.Findings, doctor.Finding{Network: nc.Name, Scheme: doctor.AllSchemes, Check: doctor.KindToken, Subject: "token " + token.Hex(),
			Address: token.Hex(), Status: doctor.Unknown, Detail: redactRPC(err.Error(), nc.RPCURLs), Fix: "check the RPC endpoint and run again"})
	} else {
		r.Findings = append(r.Findings, doctor.CheckDomain(nc.Name, cfg, td)...)
	}

	switch {
	case len(t.Signers) > 0:
		g, err := doctor.ReadGas(ctx, pool, t.Signers)
		if err != nil {
			err = fmt.Errorf("%s", redactRPC(err.Error(), nc.RPCURLs))
		}
		r.Findings = append(r.Findings, doctor.CheckGas(nc.Name, t.Signers, g, err)...)
	case t.Flags:
		r.Findings = append(r.Findings, doctor.Finding{Network: nc.Name, Scheme: doctor.AllSchemes, Check: doctor.KindSigner, Subject: "signers",
			Status: doctor.Warning, Detail: "not checked", Fix: "give --signer ADDRESS to check a signer's gas"})
	default:
		r.Findings = append(r.Findings, doctor.CheckSignerKeys(nc.Name, doctor.AllSchemes, 0))
	}

	var transient *doctor.Finding
	for _, m := range mechanisms() {
		sr := schemeReport{Scheme: m.Name()}
		if nd, ok := m.(scheme.Needer); ok {
			needs := nd.Needs()
			sr.Findings = append(sr.Findings, doctor.CheckContracts(ctx, pool, nc.Name, m.Name(), needs.Contracts)...)
			if needs.TransientStorage {
				if transient == nil {
					f := probeTransient(ctx, pool, nc.Name)
					transient = &f
				}
				f := *transient
				f.Scheme = m.Name()
				sr.Findings = append(sr.Findings, f)
			}
			if needs.SignerKey && len(t.Signers) == 0 && !t.Flags {
				sr.Findings = append(sr.Findings, doctor.CheckSignerKeys(nc.Name, m.Name(), 0))
			}
		}
		sr.Offered = !r.networkFailed()
		for _, f := range sr.Findings {
			if f.Failed() {
				sr.Offered = false
			}
		}
		r.Schemes = append(r.Schemes, sr)
	}
	redactFindings(r, nc.RPCURLs)
	return r
}

// redactFindings cuts the RPC URLs' secrets out of every finding's detail
// (a node's error may quote its URL).
func redactFindings(r *networkReport, urls []string) {
	for i := range r.Findings {
		r.Findings[i].Detail = redactRPC(r.Findings[i].Detail, urls)
	}
	for i := range r.Schemes {
		for j := range r.Schemes[i].Findings {
			r.Schemes[i].Findings[j].Detail = redactRPC(r.Schemes[i].Findings[j].Detail, urls)
		}
	}
}

// probeTransient runs the EIP-1153 probe on the pool's chain.
func probeTransient(ctx context.Context, pool *evm.Pool, network string) doctor.Finding {
	var f doctor.Finding
	_ = pool.Do(ctx, func(ctx context.Context, c *rpc.Client) error {
		f = doctor.CheckTransientStorage(ctx, ethclient.NewClient(c), network, "")
		if f.Status == doctor.Unknown {
			return fmt.Errorf("%s", f.Detail) // try the next endpoint
		}
		return nil
	})
	return f
}

// redactRPC removes the RPC URLs' secrets (credentials, API keys in the
// path or query) from a text.
func redactRPC(s string, urls []string) string {
	for _, u := range urls {
		s = evm.RedactText(s, u)
	}
	return s
}
