package network

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// WalletSignature asks a contract wallet on the network, in one eth_call,
// whether it accepts sig over hash (EIP-1271 isValidSignature; for an
// ERC-6492 signature, after a simulated deployment). An error means the
// chain could not be asked.
func (n *Network) WalletSignature(ctx context.Context, wallet common.Address, hash common.Hash, sig []byte) (evm.WalletVerdict, error) {
	return evm.WalletSignature(ctx, n.Pool, wallet, hash, sig)
}
