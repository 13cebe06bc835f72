package facilitator

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// ChainHead is the newest block number of a network.
func (f *Facilitator) ChainHead(ctx context.Context, network string) (uint64, error) {
	n := f.networkNamed(network)
	if n == nil {
		return 0, fmt.Errorf("no network %q", network)
	}
	var head hexutil.Uint64
	if err := n.Pool.Call(ctx, &head, "eth_blockNumber"); err != nil {
		return 0, err
	}
	return uint64(head), nil
}
