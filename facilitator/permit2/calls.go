package permit2

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

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
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
 {"type":"function","name":"settle","stateMutability":"nonpayable","inputs":[
  {"name":"permit","type":"tuple","components":[{"name":"permitted","type":"tuple","components":[{"name":"token","type":"address"},{"name":"amount","type":"uint256"}]},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
  {"name":"owner","type":"address"},
  {"name":"witness","type":"tuple","components":[{"name":"to","type":"address"},{"name":"validAfter","type":"uint256"}]},
  {"name":"signature","type":"bytes"}],"outputs":[]},
 {"type":"function","name":"settleWithPermit","stateMutability":"nonpayable","inputs":[
  {"name":"permit2612","type":"tuple","components":[{"name":"value","type":"uint256"},{"name":"deadline","type":"uint256"},{"name":"r","type":"bytes32"},{"name":"s","type":"bytes32"},{"name":"v","type":"uint8"}]},
  {"name":"permit","type":"tuple","components":[{"name":"permitted","type":"tuple","components":[{"name":"token","type":"address"},{"name":"amount","type":"uint256"}]},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
  {"name":"amount","type":"uint256"},{"name":"owner","type":"address"},
  {"name":"witness","type":"tuple","components":[{"name":"to","type":"address"},{"name":"facilitator","type":"address"},{"name":"validAfter","type":"uint256"}]},
  {"name":"signature","type":"bytes"}],"outputs":[]},
 {"type":"function","name":"settleWithPermit","stateMutability":"nonpayable","inputs":[
  {"name":"permit2612","type":"tuple","components":[{"name":"value","type":"uint256"},{"name":"deadline","type":"uint256"},{"name":"r","type":"bytes32"},{"name":"s","type":"bytes32"},{"name":"v","type":"uint8"}]},
  {"name":"permit","type":"tuple","components":[{"name":"permitted","type":"tuple","components":[{"name":"token","type":"address"},{"name":"amount","type":"uint256"}]},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
  {"name":"owner","type":"address"},
  {"name":"witness","type":"tuple","components":[{"name":"to","type":"address"},{"name":"validAfter","type":"uint256"}]},
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

// CallsABI is the part of Permit2, the x402 upto proxy and the
// token that Permit2 payments call.
var CallsABI = func() abi.ABI {
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
// witness, signature) moving amount (at most a.Amount), packed by
// go-ethereum's ABI encoder.
func UptoSettleCalldata(a *Authorization, amount *big.Int, sig []byte) ([]byte, error) {
	if err := a.check(UptoProxy); err != nil {
		return nil, err
	}
	if !uint256OK(amount) {
		return nil, errors.New("settle amount missing or out of the uint256 range")
	}
	return CallsABI.Pack("settle", a.permit(), amount, a.From, uptoWitness{a.To, a.Facilitator, a.ValidAfter}, sig)
}

// ExactSettleCalldata is the exact Permit2 proxy's settle(permit, owner,
// witness, signature), moving the whole permitted amount, packed by
// go-ethereum's ABI encoder.
func ExactSettleCalldata(a *Authorization, sig []byte) ([]byte, error) {
	if err := a.check(ExactProxy); err != nil {
		return nil, err
	}
	return CallsABI.Pack("settle0", a.permit(), a.From, exactWitness{a.To, a.ValidAfter}, sig)
}

// permit is a's Permit2 PermitTransferFrom tuple.
func (a *Authorization) permit() permitTuple {
	var pt permitTuple
	pt.Permitted.Token, pt.Permitted.Amount, pt.Nonce, pt.Deadline = a.Token, a.Amount, a.Nonce, a.Deadline
	return pt
}

// exactWitness is the exact proxy's witness tuple.
type exactWitness struct {
	To         common.Address
	ValidAfter *big.Int
}

// ExactSettleArgs reads an exact Permit2 settle's calldata back: the
// authorization (its Amount moved) and the signature; ok is false for
// other calldata.
func ExactSettleArgs(input []byte) (a *Authorization, sig []byte, ok bool) {
	m, err := CallsABI.MethodById(input)
	if err != nil || m.Name != "settle0" {
		return nil, nil, false
	}
	args, err := m.Inputs.Unpack(input[4:])
	if err != nil || len(args) != 4 {
		return nil, nil, false
	}
	p, okP := abi.ConvertType(args[0], new(permitTuple)).(*permitTuple)
	owner, okO := args[1].(common.Address)
	w, okW := abi.ConvertType(args[2], new(exactWitness)).(*exactWitness)
	sig, okS := args[3].([]byte)
	if !okP || !okO || !okW || !okS {
		return nil, nil, false
	}
	return &Authorization{From: owner, Token: p.Permitted.Token, Amount: p.Permitted.Amount, Spender: ExactProxyAddress,
		Nonce: p.Nonce, Deadline: p.Deadline, To: w.To, ValidAfter: w.ValidAfter}, sig, true
}

// EIP2612Permit is a buyer's EIP-2612 permit of the token to Permit2
// (eip2612GasSponsoring), as the proxies' settleWithPermit takes it.
type EIP2612Permit struct {
	Value    *big.Int
	Deadline *big.Int
	R, S     [32]byte
	V        uint8
}

// SettleWithPermitCalldata is the proxy's settleWithPermit: the buyer's
// EIP-2612 permit to Permit2 submitted first, then the settle (upto of
// amount; exact of the whole permitted amount).
func SettleWithPermitCalldata(p Proxy, permit *EIP2612Permit, a *Authorization, amount *big.Int, sig []byte) ([]byte, error) {
	if err := a.check(p); err != nil {
		return nil, err
	}
	if permit == nil || !uint256OK(permit.Value) || !uint256OK(permit.Deadline) {
		return nil, errors.New("EIP-2612 permit value or deadline out of the uint256 range")
	}
	if p == UptoProxy {
		if !uint256OK(amount) {
			return nil, errors.New("settle amount missing or out of the uint256 range")
		}
		return CallsABI.Pack("settleWithPermit", permit, a.permit(), amount, a.From, uptoWitness{a.To, a.Facilitator, a.ValidAfter}, sig)
	}
	return CallsABI.Pack("settleWithPermit0", permit, a.permit(), a.From, exactWitness{a.To, a.ValidAfter}, sig)
}

// SettleWithPermitArgs reads a proxy's settleWithPermit calldata back: the
// authorization and the amount moved; ok is false for other calldata.
func SettleWithPermitArgs(p Proxy, input []byte) (*Authorization, *big.Int, bool) {
	m, err := CallsABI.MethodById(input)
	name := "settleWithPermit0"
	if p == UptoProxy {
		name = "settleWithPermit"
	}
	if err != nil || m.Name != name {
		return nil, nil, false
	}
	args, err := m.Inputs.Unpack(input[4:])
	if err != nil || len(args) < 5 {
		return nil, nil, false
	}
	pt, okP := abi.ConvertType(args[1], new(permitTuple)).(*permitTuple)
	if !okP {
		return nil, nil, false
	}
	a := &Authorization{Token: pt.Permitted.Token, Amount: pt.Permitted.Amount, Spender: p.Address(), Nonce: pt.Nonce, Deadline: pt.Deadline}
	amount := a.Amount
	rest := args[2:]
	if p == UptoProxy {
		if len(args) != 6 {
			return nil, nil, false
		}
		var ok bool
		if amount, ok = args[2].(*big.Int); !ok {
			return nil, nil, false
		}
		rest = args[3:]
		w, okW := abi.ConvertType(rest[1], new(uptoWitness)).(*uptoWitness)
		if !okW {
			return nil, nil, false
		}
		a.To, a.Facilitator, a.ValidAfter = w.To, w.Facilitator, w.ValidAfter
	} else {
		w, okW := abi.ConvertType(rest[1], new(exactWitness)).(*exactWitness)
		if !okW {
			return nil, nil, false
		}
		a.To, a.ValidAfter = w.To, w.ValidAfter
	}
	owner, okO := rest[0].(common.Address)
	if !okO {
		return nil, nil, false
	}
	a.From = owner
	return a, amount, true
}

// ParseEIP2612Info reads an eip2612GasSponsoring extension's info (from,
// asset, spender, amount, nonce, deadline, signature, version, as
// @x402/evm 2.27 sends it): the permit, its owner, token and spender; ok
// false when it is malformed.
func ParseEIP2612Info(raw []byte) (permit *EIP2612Permit, from, asset, spender common.Address, ok bool) {
	var info struct{ From, Asset, Spender, Amount, Nonce, Deadline, Signature, Version string }
	if json.Unmarshal(raw, &info) != nil || info.Version == "" || info.Nonce == "" {
		return nil, from, asset, spender, false
	}
	var okF, okA, okS bool
	from, okF = x402.ParseAddress(info.From)
	asset, okA = x402.ParseAddress(info.Asset)
	spender, okS = x402.ParseAddress(info.Spender)
	value, okV := parseUint256(info.Amount)
	deadline, okD := parseUint256(info.Deadline)
	sig, err := hexutil.Decode(info.Signature)
	if !okF || !okA || !okS || !okV || !okD || err != nil || len(sig) != 65 || strings.HasPrefix(info.Amount, "0x") || strings.HasPrefix(info.Deadline, "0x") {
		return nil, from, asset, spender, false
	}
	permit = &EIP2612Permit{Value: value, Deadline: deadline, V: sig[64]}
	copy(permit.R[:], sig[:32])
	copy(permit.S[:], sig[32:64])
	if permit.V < 27 {
		permit.V += 27
	}
	return permit, from, asset, spender, true
}

// UptoSettleArgs reads an upto settle's calldata back: the authorization,
// the amount moved and the signature; ok is false for other calldata.
func UptoSettleArgs(input []byte) (a *Authorization, amount *big.Int, sig []byte, ok bool) {
	m, err := CallsABI.MethodById(input)
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
	return &Authorization{From: owner, Token: p.Permitted.Token, Amount: p.Permitted.Amount, Spender: UptoProxyAddress,
		Nonce: p.Nonce, Deadline: p.Deadline, To: w.To, Facilitator: w.Facilitator, ValidAfter: w.ValidAfter}, amount, sig, true
}

// NonceWord splits a Permit2 unordered nonce into its bitmap word
// position (nonce >> 8) and bit (nonce & 0xff).
func NonceWord(nonce [32]byte) (wordPos *big.Int, bit uint) {
	return new(big.Int).SetBytes(nonce[:31]), uint(nonce[31])
}

// NonceBitmapCall is the eth_call batch element of Permit2's
// nonceBitmap(owner, wordPos) at block (0: the latest).
func NonceBitmapCall(owner common.Address, nonce [32]byte, block uint64) (rpc.BatchElem, *hexutil.Bytes) {
	wordPos, _ := NonceWord(nonce)
	data := mustPack(CallsABI, "nonceBitmap", owner, wordPos)
	out := new(hexutil.Bytes)
	at := "latest"
	if block != 0 {
		at = hexutil.EncodeUint64(block)
	}
	return rpc.BatchElem{Method: "eth_call", Args: []any{evm.CallArgs{To: Address, Data: data}, at}, Result: out}, out
}

// NonceUsed reads a nonceBitmap answer: whether the nonce's bit is set.
func NonceUsed(out hexutil.Bytes, nonce [32]byte) (bool, error) {
	v, err := CallsABI.Unpack("nonceBitmap", out)
	if err != nil {
		return false, fmt.Errorf("nonceBitmap: %w", err)
	}
	_, bit := NonceWord(nonce)
	return v[0].(*big.Int).Bit(int(bit)) == 1, nil
}

// AllowanceCall is the eth_call batch element of token.allowance(owner,
// Permit2).
func AllowanceCall(token, owner common.Address) (rpc.BatchElem, *hexutil.Bytes) {
	data := mustPack(CallsABI, "allowance", owner, Address)
	out := new(hexutil.Bytes)
	return rpc.BatchElem{Method: "eth_call", Args: []any{evm.CallArgs{To: token, Data: data}, "latest"}, Result: out}, out
}

// mustPack packs a call whose arguments are typed by its caller (an error
// is a build defect).
func mustPack(a abi.ABI, method string, args ...any) []byte {
	data, err := a.Pack(method, args...)
	if err != nil {
		panic(err)
	}
	return data
}

// ReadUint256 reads a uint256 answer of method.
func ReadUint256(method string, out hexutil.Bytes) (*big.Int, error) {
	v, err := CallsABI.Unpack(method, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return v[0].(*big.Int), nil
}

// RevertName names the custom error (Permit2's or a proxy's) or the
// reason string an eth_call or eth_estimateGas reverted with; ok is false
// when err is not a revert.
func RevertName(err error) (name string, ok bool) {
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, isStr := de.ErrorData().(string); isStr {
			if data, derr := hexutil.Decode(s); derr == nil && len(data) >= 4 {
				for _, e := range CallsABI.Errors {
					if string(e.ID[:4]) == string(data[:4]) {
						return e.Name, true
					}
				}
			}
		}
	}
	return evm.RevertReason(err)
}

// permit2PayloadJSON is the payload of a Permit2 payment as the x402
// clients send it (flat structs: a missing object reads as empty strings).
type permit2PayloadJSON struct {
	Signature     string `json:"signature"`
	Authorization struct {
		From      string `json:"from"`
		Permitted struct {
			Token  string `json:"token"`
			Amount string `json:"amount"`
		} `json:"permitted"`
		Spender  string `json:"spender"`
		Nonce    string `json:"nonce"`
		Deadline string `json:"deadline"`
		Witness  struct {
			To          string `json:"to"`
			Facilitator string `json:"facilitator"`
			ValidAfter  string `json:"validAfter"`
		} `json:"witness"`
	} `json:"permit2Authorization"`
}

// ParsePayload reads a Permit2 payment's payload (signature and
// permit2Authorization, as @x402/evm 2.27 sends it for upto) into its
// authorization and signature; an error's text is the verify reason
// ("Invalid payment payload: ..."). Numbers are decimal strings, or 0x
// hex for the nonce as the upto spec's example writes it.
func ParsePayload(raw []byte, upto bool) (*Authorization, []byte, error) {
	bad := func(format string, args ...any) error {
		return &x402.InvalidPaymentError{Reason: "Invalid payment payload: " + fmt.Sprintf(format, args...)}
	}
	var pj permit2PayloadJSON
	if err := json.Unmarshal(raw, &pj); err != nil {
		return nil, nil, bad("payload must be a JSON object with signature and permit2Authorization")
	}
	pa := &pj.Authorization
	if pj.Signature == "" || pa.From == "" || pa.Permitted.Token == "" || pa.Witness.To == "" {
		return nil, nil, bad("signature and permit2Authorization (with permitted and witness) are required")
	}
	sig, err := hexutil.Decode(pj.Signature)
	if err != nil || len(sig) == 0 || len(sig) > x402.MaxSignatureBytes {
		return nil, nil, bad("signature must be 0x-prefixed hex")
	}
	a := &Authorization{}
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

// CheckEIP2612Info reads an eip2612GasSponsoring extension's info with
// the reference facilitator's checks, in its order: well formed, its owner
// the payer, its token the asset, its spender Permit2, its deadline not
// before notBefore (unix seconds). It answers the permit, or the x402
// reason refusing it.
func CheckEIP2612Info(raw []byte, payer, token common.Address, notBefore int64) (*EIP2612Permit, string) {
	permit, from, asset, spender, ok := ParseEIP2612Info(raw)
	switch {
	case !ok:
		return nil, x402.ReasonEIP2612Format
	case from != payer:
		return nil, x402.ReasonEIP2612From
	case asset != token:
		return nil, x402.ReasonEIP2612Asset
	case spender != Address:
		return nil, x402.ReasonEIP2612Spender
	case permit.Deadline.Cmp(big.NewInt(notBefore)) < 0:
		return nil, x402.ReasonEIP2612Expired
	}
	return permit, ""
}
