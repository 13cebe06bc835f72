package evm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// tokenABIJSON is the generic ERC-20 part of a token (EIP-20, plus the
// EIP-712 domain views of tokens that sign: version, DOMAIN_SEPARATOR).
// A scheme's own methods (EIP-3009's transferWithAuthorization and
// authorizationState) live with the scheme (facilitator/exact).
const tokenABIJSON = `[
 {"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
 {"type":"function","name":"version","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
 {"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"type":"uint8"}]},
 {"type":"function","name":"DOMAIN_SEPARATOR","stateMutability":"view","inputs":[],"outputs":[{"type":"bytes32"}]},
 {"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"account","type":"address"}],"outputs":[{"type":"uint256"}]},
 {"type":"function","name":"allowance","stateMutability":"view","inputs":[{"name":"owner","type":"address"},{"name":"spender","type":"address"}],"outputs":[{"type":"uint256"}]},
 {"type":"function","name":"transfer","stateMutability":"nonpayable","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]}
]`

// TokenABI is the generic ERC-20 part of a token the facilitator reads.
var TokenABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(tokenABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// CallArgs is the eth_call / eth_estimateGas argument object.
type CallArgs struct {
	From common.Address `json:"from"`
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

// ViewCall is an eth_call batch element of a token view function, and
// where its answer goes.
func ViewCall(token common.Address, method string, args ...any) (rpc.BatchElem, *hexutil.Bytes) {
	return CallData(token, packView(method, args))
}

// ViewCallAt is ViewCall at a given block number rather than the latest.
func ViewCallAt(token common.Address, block uint64, method string, args ...any) (rpc.BatchElem, *hexutil.Bytes) {
	return CallDataAt(token, block, packView(method, args))
}

// packView packs a call of a TokenABI method.
func packView(method string, args []any) []byte {
	data, err := TokenABI.Pack(method, args...)
	if err != nil {
		panic(err) // the arguments are typed by the callers
	}
	return data
}

// CallData is an eth_call batch element of data sent to a contract at the
// latest block (any ABI: a scheme packs its own methods), and where its
// answer goes.
func CallData(to common.Address, data []byte) (rpc.BatchElem, *hexutil.Bytes) {
	out := new(hexutil.Bytes)
	return rpc.BatchElem{
		Method: "eth_call",
		Args:   []any{CallArgs{To: to, Data: data}, "latest"},
		Result: out,
	}, out
}

// CallDataAt is CallData at a given block number rather than the latest.
func CallDataAt(to common.Address, block uint64, data []byte) (rpc.BatchElem, *hexutil.Bytes) {
	el, out := CallData(to, data)
	el.Args[1] = hexutil.EncodeUint64(block)
	return el, out
}

// RevertReason extracts the revert reason from a JSON-RPC error answer of
// eth_call or eth_estimateGas; ok is false when err is not a revert.
func RevertReason(err error) (reason string, ok bool) {
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, isStr := de.ErrorData().(string); isStr {
			if data, derr := hexutil.Decode(s); derr == nil {
				if r, uerr := abi.UnpackRevert(data); uerr == nil {
					return r, true
				}
				return "execution reverted", true
			}
		}
	}
	msg := err.Error()
	if rest, found := strings.CutPrefix(msg, "execution reverted: "); found {
		return rest, true
	}
	if msg == "execution reverted" {
		return msg, true
	}
	return "", false
}

// ReadString calls a string-returning view function (name, version) of a token.
func ReadString(ctx context.Context, pool *Pool, token common.Address, method string) (string, error) {
	data, _ := TokenABI.Pack(method)
	var out hexutil.Bytes
	if err := pool.Call(ctx, &out, "eth_call", CallArgs{To: token, Data: data}, "latest"); err != nil {
		return "", err
	}
	return UnpackString(token, method, out)
}

// UnpackString reads the answer out of a string-returning view of the
// token, such as name() or version().
func UnpackString(token common.Address, method string, out []byte) (string, error) {
	vals, err := TokenABI.Unpack(method, out)
	if err != nil {
		return "", fmt.Errorf("token %s did not answer %s() with a string: %w", token.Hex(), method, err)
	}
	return vals[0].(string), nil
}

// ReadDomainSeparator calls the token's DOMAIN_SEPARATOR().
func ReadDomainSeparator(ctx context.Context, pool *Pool, token common.Address) (common.Hash, error) {
	data, _ := TokenABI.Pack("DOMAIN_SEPARATOR")
	var out hexutil.Bytes
	if err := pool.Call(ctx, &out, "eth_call", CallArgs{To: token, Data: data}, "latest"); err != nil {
		return common.Hash{}, err
	}
	return UnpackDomainSeparator(token, out)
}

// UnpackDomainSeparator reads the answer of the token's
// DOMAIN_SEPARATOR().
func UnpackDomainSeparator(token common.Address, out []byte) (common.Hash, error) {
	vals, err := TokenABI.Unpack("DOMAIN_SEPARATOR", out)
	if err != nil {
		return common.Hash{}, fmt.Errorf("token %s did not answer DOMAIN_SEPARATOR() with a bytes32: %w", token.Hex(), err)
	}
	return common.Hash(vals[0].([32]byte)), nil
}

// ReadDecimals calls the token's decimals().
func ReadDecimals(ctx context.Context, pool *Pool, token common.Address) (uint8, error) {
	data, err := TokenABI.Pack("decimals")
	if err != nil {
		return 0, err
	}
	var out hexutil.Bytes
	if err := pool.Call(ctx, &out, "eth_call", CallArgs{To: token, Data: data}, "latest"); err != nil {
		return 0, err
	}
	vals, err := TokenABI.Unpack("decimals", out)
	if err != nil {
		return 0, fmt.Errorf("token %s did not answer decimals() with a uint8: %w", token.Hex(), err)
	}
	return vals[0].(uint8), nil
}
