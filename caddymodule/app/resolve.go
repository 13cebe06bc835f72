package app

import (
	"errors"

	"go.uber.org/zap"

	x402network "github.com/caddy-x402/caddy-x402/facilitator/network"
)

// ResolveNetworks is the configuration's networks as the facilitator
// would serve them (built-in constants, then what is set), with the RPC
// URLs and signer keys resolved from their placeholders in this process's
// environment: what `caddy x402 doctor` checks. It starts nothing. A
// config that runs the in-process devnet is refused: that chain exists
// only inside the Caddy that runs it.
func (a *App) ResolveNetworks() ([]x402network.Config, error) {
	if a.logger == nil {
		a.logger = zap.NewNop()
	}
	if err := a.validate(); err != nil {
		return nil, err
	}
	if a.Devnet != nil {
		return nil, errors.New("the config runs the in-process devnet, which has every contract and funded keys: there is no chain to check before Caddy starts; run the doctor on a config whose networks name a real chain's rpc")
	}
	nets, _, err := a.networkConfigs()
	return nets, err
}
