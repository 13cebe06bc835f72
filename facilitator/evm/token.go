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

// TokenABI is the part of an EIP-3009 (FiatToken-style) token the
// facilitator calls. The v, r, s form of transferWithAuthorization is in
// every FiatTokenV2 version, so it is the one submitted for EOAs; the bytes
// form (FiatToken v2.2, "transferWithAuthorization0" in the parsed ABI) is
// submitted for smart-contract wallets.
const tokenABIJSON = `[
 {"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
 {"type":"function","name":"version","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
 {"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"type":"uint8"}]},
 {"type":"function","name":"DOMAIN_SEPARATOR","stateMutability":"view","inputs":[],"outputs":[{"type":"bytes32"}]},
 {"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"account","type":"address"}],"outputs":[{"type":"uint256"}]},
 {"type":"function","name":"authorizationState","stateMutability":"view","inputs":[{"name":"authorizer","type":"address"},{"name":"nonce","type":"bytes32"}],"outputs":[{"type":"bool"}]},
 {"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[
  {"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},
  {"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},
  {"name":"v","type":"uint8"},{"name":"r","type":"bytes32"},{"name":"s","type":"bytes32"}],"outputs":[]},
 {"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[
  {"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},
  {"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},
  {"name":"signature","type":"bytes"}],"outputs":[]}
]`

// TokenABI is the part of an EIP-3009 token the facilitator calls.
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
	data, err := TokenABI.Pack(method, args...)
	if err != nil {
		panic(err) // the arguments are typed by the callers
	}
	out := new(hexutil.Bytes)
	return rpc.BatchElem{
		Method: "eth_call",
		Args:   []any{CallArgs{To: token, Data: data}, "latest"},
		Result: out,
	}, out
}

// ViewCallAt is ViewCall at a given block number rather than the latest.
func ViewCallAt(token common.Address, block uint64, method string, args ...any) (rpc.BatchElem, *hexutil.Bytes) {
	el, out := ViewCall(token, method, args...)
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
