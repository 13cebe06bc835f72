package doctor

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// Code is whether one address holds code.
type Code struct {
	Address common.Address
	// Has is true when the address holds code.
	Has bool
	// Err is the chain's error for this address alone (its code is then
	// unknown).
	Err error
}

// CodeAt reads the code of addrs in one batch (eth_getCode at latest). An
// error means the batch got no answer; an address whose read failed has
// its Err.
func CodeAt(ctx context.Context, b Batcher, addrs ...common.Address) ([]Code, error) {
	codes := make([]hexutil.Bytes, len(addrs))
	elems := make([]rpc.BatchElem, len(addrs))
	for i, a := range addrs {
		elems[i] = rpc.BatchElem{Method: "eth_getCode", Args: []any{a, "latest"}, Result: &codes[i]}
	}
	if err := b.Batch(ctx, elems); err != nil {
		return nil, err
	}
	out := make([]Code, len(addrs))
	for i, a := range addrs {
		out[i] = Code{Address: a, Has: elems[i].Error == nil && len(codes[i]) > 0, Err: elems[i].Error}
	}
	return out, nil
}

// Addresses lists the contracts' addresses, in order.
func Addresses(cs []Contract) []common.Address {
	out := make([]common.Address, len(cs))
	for i, c := range cs {
		out[i] = c.Address
	}
	return out
}

// CheckContracts checks that each contract a scheme needs holds code: one
// finding per contract.
func CheckContracts(ctx context.Context, b Batcher, network, scheme string, cs []Contract) []Finding {
	if len(cs) == 0 {
		return nil
	}
	codes, err := CodeAt(ctx, b, Addresses(cs)...)
	out := make([]Finding, len(cs))
	for i, c := range cs {
		f := Finding{Network: network, Scheme: scheme, Check: KindCode, Subject: c.Name + " " + c.Address.Hex(), Address: c.Address.Hex()}
		switch {
		case err != nil:
			f.Status, f.Detail, f.Fix = Unknown, "the chain did not answer eth_getCode: "+err.Error(), "check the RPC endpoint and run again"
		case codes[i].Err != nil:
			f.Status, f.Detail, f.Fix = Unknown, "the chain refused eth_getCode: "+codes[i].Err.Error(), "check the RPC endpoint and run again"
		case !codes[i].Has:
			f.Status = Missing
			f.Detail = fmt.Sprintf("no contract at %s", c.Address.Hex())
			f.Fix = fmt.Sprintf("deploy %s at its canonical address %s on this chain (or ask the chain's operators to), or do not serve %s here", c.Name, c.Address.Hex(), scheme)
		default:
			f.Status = OK
		}
		out[i] = f
	}
	return out
}
