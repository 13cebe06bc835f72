package x402cmd

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Which of a seller's offers "caddy x402 pay" pays: the first it can,
// within --max-amount and on --network / --chain-id when they are given;
// otherwise every offer's reason not to, in one error.

// chooseV1 picks the first entry of a version 1 402 answer this buyer can
// pay: scheme exact, on the network asked for (any, when none is), whose
// chain ID is known (by its name, or --chain-id), with a valid amount
// within maxAmount.
func chooseV1(pr *x402.PaymentRequired, maxAmount *big.Int, network string, chainID int64) (x402.PaymentRequirements, *big.Int, error) {
	entries := pr.Accepts
	if len(entries) == 0 && pr.PaymentRequirements != nil {
		entries = []x402.PaymentRequirements{*pr.PaymentRequirements}
	}
	if len(entries) == 0 {
		_, err := pr.Requirements()
		return x402.PaymentRequirements{}, nil, err
	}
	var why []string
	for _, a := range entries {
		id, known := networkChainID(a.Network)
		value, err := x402.ParseAmount(a.MaxAmountRequired)
		switch {
		case a.Scheme != x402.SchemeExact:
			why = append(why, fmt.Sprintf("%s on %s: scheme not supported", a.Scheme, a.Network))
		case network != "" && !sameNetwork(a.Network, network):
			why = append(why, fmt.Sprintf("%s: not --network %s", a.Network, network))
		case chainID != 0 && known && id != chainID:
			why = append(why, fmt.Sprintf("%s: not chain %d (--chain-id)", a.Network, chainID))
		case chainID == 0 && !known:
			why = append(why, fmt.Sprintf("%s: chain ID unknown; give --chain-id to pay on it", a.Network))
		case err != nil:
			why = append(why, fmt.Sprintf("%s: invalid amount %q", a.Network, a.MaxAmountRequired))
		case value.Cmp(maxAmount) > 0:
			why = append(why, fmt.Sprintf("%s: %s smallest units is more than --max-amount %s; give a larger --max-amount to pay it", a.Network, value, maxAmount))
		default:
			return a, value, nil
		}
	}
	if len(entries) == 1 {
		return x402.PaymentRequirements{}, nil, fmt.Errorf("refusing to pay: %s", why[0])
	}
	return x402.PaymentRequirements{}, nil, fmt.Errorf("refusing to pay: no acceptable way to pay (%s)", strings.Join(why, "; "))
}

// networkChainID is the chain ID a network name stands for: an
// eip155:<chainId> id, a version 1 name, or a built-in network's.
func networkChainID(name string) (int64, bool) {
	if id, ok := x402.ChainIDOf(name); ok {
		return id, true
	}
	if b, ok := network.Builtin(name); ok {
		return b.ChainID, true
	}
	return 0, false
}

// sameNetwork reports whether an offered network is the one asked for:
// the same name, or names of the same chain (base-sepolia and
// eip155:84532).
func sameNetwork(offered, wanted string) bool {
	if strings.EqualFold(strings.TrimSpace(offered), strings.TrimSpace(wanted)) {
		return true
	}
	a, okA := networkChainID(offered)
	b, okB := networkChainID(wanted)
	return okA && okB && a == b
}

// chooseV2 picks the first entry of accepts this buyer can pay: scheme
// exact, upto (its amount is the maximum) or batch-settlement (its amount
// is the price of one request, paid from a channel), an eip155 network (the given chain id's and network's, when they
// are given), a valid amount within maxAmount.
func chooseV2(accepts []x402.RequirementsV2, maxAmount *big.Int, chainID int64, network string) (x402.RequirementsV2, *big.Int, error) {
	var why []string
	for _, a := range accepts {
		id, ok := x402.ParseCAIP2(a.Network)
		value, err := x402.ParseAmount(a.Amount)
		switch {
		case a.Scheme != x402.SchemeExact && a.Scheme != x402.SchemeUpto && a.Scheme != SchemeChannel:
			why = append(why, fmt.Sprintf("%s on %s: scheme not supported", a.Scheme, a.Network))
		case !ok:
			why = append(why, fmt.Sprintf("%s: not an eip155 network", a.Network))
		case network != "" && !sameNetwork(a.Network, network):
			why = append(why, fmt.Sprintf("%s: not --network %s", a.Network, network))
		case chainID != 0 && id != chainID:
			why = append(why, fmt.Sprintf("%s: not chain %d (--chain-id)", a.Network, chainID))
		case err != nil:
			why = append(why, fmt.Sprintf("%s: invalid amount %q", a.Network, a.Amount))
		case value.Cmp(maxAmount) > 0:
			why = append(why, fmt.Sprintf("%s: %s smallest units is more than --max-amount %s; give a larger --max-amount to pay it", a.Network, value, maxAmount))
		default:
			return a, value, nil
		}
	}
	if len(why) == 0 {
		return x402.RequirementsV2{}, nil, fmt.Errorf("the 402 answer accepts no payment")
	}
	return x402.RequirementsV2{}, nil, fmt.Errorf("refusing to pay: no acceptable way to pay (%s)", strings.Join(why, "; "))
}
