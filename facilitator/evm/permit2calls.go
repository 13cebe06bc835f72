package evm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The calls of payments through Permit2: the x402 proxies' settle, Permit2's
// nonceBitmap, the token's allowance, and the custom errors they revert
// with (for reasons).
const permit2CallsABIJSON = `[
 {"type":"function","name":"nonceBitmap","stateMutability":"view","inputs":[{"type":"address"},{"type":"uint256"}],"outputs":[{"type":"uint256"}]},
 {"type":"function","name":"allowance","stateMutability":"view","inputs":[{"name":"owner","type":"address"},{"name":"spender","type":"address"}],"outputs":[{"type":"uint256"}]},
 {"type":"function","name":"settle","stateMutability":"nonpayable","inputs":[
  {"name":"permit","type":"tuple","components":[{"name":"permitted","type":"tuple","components":[{"name":"token","type":"address"},{"name":"amount","type":"uint256"}]},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
  {"name":"amount","type":"uint256"},{"name":"owner","type":"address"},
  {"name":"witness","type":"tuple","components":[{"name":"to","type":"address"},{"name":"facilitator","type":"address"},{"name":"validAfter","type":"uint256"}]},
  {"name":"signature","type":"bytes"}],"outputs":[]},
 {"type":"error","name":"InvalidAmount","inputs":[{"name":"maxAmount","type":"uint256"}]},
 {"type":"error","name":"SignatureExpired","inputs":[{"name":"signatureDeadline","type":"uint256"}]},
 {"type":"error","name":"InvalidNonce","inputs":[]},
 {"type":"error","name":"InvalidSignatureLength","inputs":[]},
 {"type":"error","name":"InvalidSignature","inputs":[]},
 {"type":"error","name":"InvalidSigner","inputs":[]},
 {"type":"error","name":"InvalidContractSignature","inputs":[]},
 {"type":"error","name":"InvalidDestination","inputs":[]},
 {"type":"error","name":"PaymentTooEarly","inputs":[]},
 {"type":"error","name":"InvalidOwner","inputs":[]},
 {"type":"error","name":"Permit2612AmountMismatch","inputs":[]},
 {"type":"error","name":"ReentrancyGuardReentrantCall","inputs":[]},
 {"type":"error","name":"UnauthorizedFacilitator","inputs":[]},
 {"type":"error","name":"AmountExceedsPermitted","inputs":[]}
]`

// Permit2CallsABI is the part of Permit2, the x402 upto proxy and the
// token that Permit2 payments call.
var Permit2CallsABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(permit2CallsABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// permitTuple and uptoWitness are the ABI tuples of the upto proxy's settle.
type permitTuple struct {
	Permitted struct {
		Token  common.Address
		Amount *big.Int
	}
	Nonce    *big.Int
	Deadline *big.Int
}

type uptoWitness struct {
	To          common.Address
	Facilitator common.Address
	ValidAfter  *big.Int
}

// UptoSettleCalldata is the upto proxy's settle(permit, amount, owner,
// witness, signature) moving amount (at most a.Amount).
func UptoSettleCalldata(a *Permit2Authorization, amount *big.Int, sig []byte) ([]byte, error) {
	var p permitTuple
	p.Permitted.Token, p.Permitted.Amount = a.Token, a.Amount
	p.Nonce, p.Deadline = a.Nonce, a.Deadline
	return Permit2CallsABI.Pack("settle", p, amount, a.From, uptoWitness{a.To, a.Facilitator, a.ValidAfter}, sig)
}

// UptoSettleArgs reads an upto settle's calldata back: the authorization,
// the amount moved and the signature; ok is false for other calldata.
func UptoSettleArgs(input []byte) (a *Permit2Authorization, amount *big.Int, sig []byte, ok bool) {
	m, err := Permit2CallsABI.MethodById(input)
	if err != nil || m.Name != "settle" {
		return nil, nil, nil, false
	}
	args, err := m.Inputs.Unpack(input[4:])
	if err != nil || len(args) != 5 {
		return nil, nil, nil, false
	}
	p, okP := abi.ConvertType(args[0], new(permitTuple)).(*permitTuple)
	amount, okA := args[1].(*big.Int)
	owner, okO := args[2].(common.Address)
	w, okW := abi.ConvertType(args[3], new(uptoWitness)).(*uptoWitness)
	sig, okS := args[4].([]byte)
	if !okP || !okA || !okO || !okW || !okS {
		return nil, nil, nil, false
	}
	return &Permit2Authorization{From: owner, Token: p.Permitted.Token, Amount: p.Permitted.Amount, Spender: UptoPermit2ProxyAddress,
		Nonce: p.Nonce, Deadline: p.Deadline, To: w.To, Facilitator: w.Facilitator, ValidAfter: w.ValidAfter}, amount, sig, true
}

// Permit2NonceWord splits a Permit2 unordered nonce into its bitmap word
// position (nonce >> 8) and bit (nonce & 0xff).
func Permit2NonceWord(nonce [32]byte) (wordPos *big.Int, bit uint) {
	return new(big.Int).SetBytes(nonce[:31]), uint(nonce[31])
}

// NonceBitmapCall is the eth_call batch element of Permit2's
// nonceBitmap(owner, wordPos) at block (0: the latest).
func NonceBitmapCall(owner common.Address, nonce [32]byte, block uint64) (rpc.BatchElem, *hexutil.Bytes) {
	word, _ := Permit2NonceWord(nonce)
	data, err := Permit2CallsABI.Pack("nonceBitmap", owner, word)
	if err != nil {
		panic(err)
	}
	out := new(hexutil.Bytes)
	at := "latest"
	if block != 0 {
		at = hexutil.EncodeUint64(block)
	}
	return rpc.BatchElem{Method: "eth_call", Args: []any{CallArgs{To: Permit2Address, Data: data}, at}, Result: out}, out
}

// NonceUsed reads a nonceBitmap answer: whether the nonce's bit is set.
func NonceUsed(out hexutil.Bytes, nonce [32]byte) (bool, error) {
	v, err := Permit2CallsABI.Unpack("nonceBitmap", out)
	if err != nil {
		return false, fmt.Errorf("nonceBitmap: %w", err)
	}
	_, bit := Permit2NonceWord(nonce)
	return v[0].(*big.Int).Bit(int(bit)) == 1, nil
}

// AllowanceCall is the eth_call batch element of token.allowance(owner,
// Permit2).
func AllowanceCall(token, owner common.Address) (rpc.BatchElem, *hexutil.Bytes) {
	data, err := Permit2CallsABI.Pack("allowance", owner, Permit2Address)
	if err != nil {
		panic(err)
	}
	out := new(hexutil.Bytes)
	return rpc.BatchElem{Method: "eth_call", Args: []any{CallArgs{To: token, Data: data}, "latest"}, Result: out}, out
}

// ReadUint256 reads a uint256 answer of method.
func ReadUint256(method string, out hexutil.Bytes) (*big.Int, error) {
	v, err := Permit2CallsABI.Unpack(method, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return v[0].(*big.Int), nil
}

// Permit2RevertName names the custom error (Permit2's or a proxy's) or the
// reason string an eth_call or eth_estimateGas reverted with; ok is false
// when err is not a revert.
func Permit2RevertName(err error) (name string, ok bool) {
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, isStr := de.ErrorData().(string); isStr {
			if data, derr := hexutil.Decode(s); derr == nil && len(data) >= 4 {
				for _, e := range Permit2CallsABI.Errors {
					if string(e.ID[:4]) == string(data[:4]) {
						return e.Name, true
					}
				}
			}
		}
	}
	return RevertReason(err)
}

// permit2PayloadJSON is the payload of a Permit2 payment as the x402
// clients send it.
type permit2PayloadJSON struct {
	Signature     *string `json:"signature"`
	Authorization *struct {
		From      string `json:"from"`
		Permitted *struct {
			Token  string `json:"token"`
			Amount string `json:"amount"`
		} `json:"permitted"`
		Spender  string `json:"spender"`
		Nonce    string `json:"nonce"`
		Deadline string `json:"deadline"`
		Witness  *struct {
			To          string `json:"to"`
			Facilitator string `json:"facilitator"`
			ValidAfter  string `json:"validAfter"`
		} `json:"witness"`
	} `json:"permit2Authorization"`
}

// ParsePermit2Payload reads a Permit2 payment's payload (signature and
// permit2Authorization, as @x402/evm 2.27 sends it for upto) into its
// authorization and signature; an error's text is the verify reason
// ("Invalid payment payload: ..."). Numbers are decimal strings, or 0x
// hex for the nonce as the upto spec's example writes it.
func ParsePermit2Payload(raw []byte, upto bool) (*Permit2Authorization, []byte, error) {
	bad := func(format string, args ...any) error {
		return &x402.InvalidPaymentError{Reason: "Invalid payment payload: " + fmt.Sprintf(format, args...)}
	}
	var pj permit2PayloadJSON
	if err := json.Unmarshal(raw, &pj); err != nil {
		return nil, nil, bad("payload must be a JSON object with signature and permit2Authorization")
	}
	pa := pj.Authorization
	if pj.Signature == nil || pa == nil || pa.Permitted == nil || pa.Witness == nil {
		return nil, nil, bad("signature and permit2Authorization (with permitted and witness) are required")
	}
	sig, err := hexutil.Decode(*pj.Signature)
	if err != nil || len(sig) == 0 || len(sig) > x402.MaxSignatureBytes {
		return nil, nil, bad("signature must be 0x-prefixed hex")
	}
	a := &Permit2Authorization{}
	for _, f := range []struct {
		name string
		s    string
		to   *common.Address
	}{{"from", pa.From, &a.From}, {"permitted.token", pa.Permitted.Token, &a.Token}, {"spender", pa.Spender, &a.Spender}, {"witness.to", pa.Witness.To, &a.To}} {
		addr, ok := x402.ParseAddress(f.s)
		if !ok {
			return nil, nil, bad("%s must be a 0x-prefixed 20-byte hex address", f.name)
		}
		*f.to = addr
	}
	if upto {
		addr, ok := x402.ParseAddress(pa.Witness.Facilitator)
		if !ok {
			return nil, nil, bad("witness.facilitator must be a 0x-prefixed 20-byte hex address")
		}
		a.Facilitator = addr
	}
	for _, f := range []struct {
		name string
		s    string
		to   **big.Int
	}{{"permitted.amount", pa.Permitted.Amount, &a.Amount}, {"nonce", pa.Nonce, &a.Nonce}, {"deadline", pa.Deadline, &a.Deadline}, {"witness.validAfter", pa.Witness.ValidAfter, &a.ValidAfter}} {
		v, ok := parseUint256(f.s)
		if !ok {
			return nil, nil, bad("%s must be an unsigned 256-bit integer as a decimal string", f.name)
		}
		*f.to = v
	}
	return a, sig, nil
}

// parseUint256 reads a decimal string, or 0x hex, of at most 256 bits.
func parseUint256(s string) (*big.Int, bool) {
	if s == "" || len(s) > 80 {
		return nil, false
	}
	v, ok := new(big.Int), false
	if h, found := strings.CutPrefix(s, "0x"); found {
		_, ok = v.SetString(h, 16)
	} else {
		_, ok = v.SetString(s, 10)
	}
	return v, ok && uint256OK(v)
}

// NonceBytes is a Permit2 nonce as 32 big-endian bytes (the engine's
// authorization nonce).
func NonceBytes(n *big.Int) [32]byte {
	var b [32]byte
	n.FillBytes(b[:])
	return b
}
