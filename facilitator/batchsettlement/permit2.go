package batchsettlement

// Deposits by Permit2: a witness transfer (DepositWitness{channelId}) of
// the deposit to the Permit2 deposit collector, which the settlement
// contract's deposit pulls through Permit2. They are a flavour of
// batch-settlement (payloads with a permit2Authorization) with their own
// engine name and Spent: a Permit2 nonce lives in Permit2's nonceBitmap,
// apart from the token's EIP-3009 nonces.

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// SchemePermit2Deposit names Permit2 deposits into channels in the journal
// (store.Record.Scheme) and the engine.
const SchemePermit2Deposit = x402.SchemeBatchSettlementPermit2

// The published facilitator's reasons of a Permit2 deposit.
const (
	ErrPermit2AuthorizationRequired = "invalid_batch_settlement_evm_permit2_authorization_required"
	ErrPermit2InvalidSpender        = "invalid_batch_settlement_evm_permit2_invalid_spender"
	ErrPermit2AmountMismatch        = "invalid_batch_settlement_evm_permit2_amount_mismatch"
	ErrPermit2DeadlineExpired       = "invalid_batch_settlement_evm_permit2_deadline_expired"
	ErrPermit2InvalidSignature      = "invalid_batch_settlement_evm_permit2_invalid_signature"
	ErrPermit2AllowanceRequired     = "invalid_batch_settlement_evm_permit2_allowance_required"
	ErrEip2612AmountMismatch        = "invalid_batch_settlement_evm_eip2612_amount_mismatch"
)

func init() { scheme.Register(permit2Flavour{}) }

// permit2Flavour is batch-settlement's deposits by Permit2 (scheme.Flavour).
type permit2Flavour struct{}

func (permit2Flavour) Name() string   { return SchemePermit2Deposit }
func (permit2Flavour) Family() string { return "eip155" }
func (permit2Flavour) Of() string     { return Scheme }

// NonceSpace is Permit2's (scheme.NonceSpacer).
func (permit2Flavour) NonceSpace() string { return permit2.NonceSpace }

// Needs is batch-settlement's, with Permit2 and the Permit2 deposit
// collector (scheme.Needer).
func (permit2Flavour) Needs() doctor.Needs {
	n := mechanism{}.Needs()
	n.Contracts = append(n.Contracts,
		doctor.Contract{Name: "Permit2", Address: permit2.Address},
		doctor.Contract{Name: "x402 Permit2 deposit collector", Address: batch.Permit2CollectorAddress})
	return n
}

var (
	_ scheme.Flavour     = permit2Flavour{}
	_ scheme.NonceSpacer = permit2Flavour{}
	_ scheme.Needer      = permit2Flavour{}
)

// Takes reports whether a batch-settlement payload carries a Permit2
// deposit authorization.
func (permit2Flavour) Takes(p *x402.Payment) bool { return p.PayloadHas(`"permit2Authorization"`) }

// Bind readies Permit2 deposits where batch-settlement is offered and the
// chain has Permit2 and the Permit2 deposit collector; elsewhere it
// declines, and such deposits are refused (ErrInvalidPayloadType).
func (permit2Flavour) Bind(ctx context.Context, n *network.Network, env scheme.Env) (scheme.Bound, error) {
	// The base checks (contracts, EIP-1153, a signer key) log their
	// refusals once, in batch-settlement's own Bind: here they are quiet.
	quiet := env
	quiet.Logger = zap.NewNop()
	sb, err := mechanism{}.Bind(ctx, n, quiet)
	if sb == nil || err != nil {
		return nil, err
	}
	extra := permit2Flavour{}.Needs().Contracts[2:]
	codes, err := doctor.CodeAt(ctx, doctor.BatchFunc(n.Pool.BatchShared), doctor.Addresses(extra)...)
	if err != nil || !codes[0].Has || !codes[1].Has {
		env.Logger.Info("batch-settlement deposits by Permit2 not offered: no Permit2 or Permit2 deposit collector on the chain", zap.String("network", n.Cfg.Name))
		return nil, nil
	}
	b := sb.(*bound)
	b.env, b.permit2 = env, true
	return b, nil
}

// permit2AuthJSON is a deposit's permit2Authorization as @x402/evm 2.27
// sends it.
type permit2AuthJSON struct {
	From      common.Address `json:"from"`
	Permitted struct {
		Token  common.Address `json:"token"`
		Amount string         `json:"amount"`
	} `json:"permitted"`
	Spender  common.Address `json:"spender"`
	Nonce    string         `json:"nonce"`
	Deadline string         `json:"deadline"`
	Witness  struct {
		ChannelID common.Hash `json:"channelId"`
	} `json:"witness"`
	Signature hexutil.Bytes `json:"signature"`
}

// checkPermit2Deposit is the published verifyPermit2TypedData and, for an
// eip2612GasSponsoring extension, validateBatchEip2612Permit: the
// off-chain checks in their order. The allowance to Permit2 is read at
// verify and settle (unless the payment brings its EIP-2612 permit).
func (b *bound) checkPermit2Deposit(c *payment, d *depositJSON, voucherID common.Hash, p *x402.Payment) string {
	a := d.Authorization.Permit2
	if a == nil {
		return ErrInvalidPayloadType
	}
	var ok [3]bool
	c.amount, ok[0] = parseUint(d.Amount, 128)
	if !ok[0] || c.amount.Sign() == 0 {
		return ErrInvalidPayloadType
	}
	permitted, ok1 := parseUint(a.Permitted.Amount, 256)
	c.p2nonce, ok[1] = parseUint(a.Nonce, 256)
	c.validBefore, ok[2] = parseUint(a.Deadline, 256)
	if !ok1 || !ok[1] || !ok[2] {
		return ErrInvalidPayloadType
	}
	switch {
	case a.From != c.cfg.Payer:
		return ErrPermit2InvalidSignature
	case a.Spender != batch.Permit2CollectorAddress:
		return ErrPermit2InvalidSpender
	case a.Permitted.Token != b.Token:
		return ErrTokenMismatch
	case permitted.Cmp(c.amount) != 0:
		return ErrPermit2AmountMismatch
	case a.Witness.ChannelID != voucherID:
		return ErrChannelIDMismatch
	case c.validBefore.Cmp(big.NewInt(b.env.Now().Unix()+6)) < 0:
		return ErrPermit2DeadlineExpired
	}
	digest, err := batch.Permit2DepositDigest(b.ChainID, batch.Permit2Deposit{Token: a.Permitted.Token, Amount: permitted, Nonce: c.p2nonce, Deadline: c.validBefore, ChannelID: voucherID})
	if err != nil {
		return ErrInvalidPayloadType
	}
	if got, err := evm.RecoverDigest(digest, a.Signature); err != nil || got != c.cfg.Payer {
		return ErrPermit2InvalidSignature
	}
	c.permit2, c.depositSig, c.validAfter = true, a.Signature, new(big.Int)
	c.nonce = permit2.NonceBytes(c.p2nonce)
	if info := p.ExtensionInfo(x402.ExtEIP2612GasSponsoring); info != nil {
		permit, reason := permit2.CheckEIP2612Info(info, c.cfg.Payer, b.Token, b.env.Now().Unix()+6)
		switch {
		case reason != "":
			return reason
		case permit.Value.Cmp(c.amount) != 0:
			return ErrEip2612AmountMismatch
		}
		c.permit = permit
	}
	return ""
}

// permit2CollectorData is the Permit2 collector's data of c: nonce,
// deadline, signature and the EIP-2612 permit to Permit2 if it brings one.
func permit2CollectorData(c *payment) ([]byte, error) {
	var permitData []byte
	if p := c.permit; p != nil {
		sig := append(append(append([]byte{}, p.R[:]...), p.S[:]...), p.V)
		var err error
		if permitData, err = batch.EIP2612PermitData(p.Value, p.Deadline, sig); err != nil {
			return nil, err
		}
	}
	return batch.Permit2CollectorData(c.p2nonce, c.validBefore, c.depositSig, permitData)
}

// allowanceReason is ErrPermit2AllowanceRequired when a Permit2 deposit
// without an EIP-2612 permit finds less than its amount approved to
// Permit2.
func allowanceReason(c *payment, allowance *big.Int) string {
	if c.permit2 && c.permit == nil && (allowance == nil || allowance.Cmp(c.amount) < 0) {
		return ErrPermit2AllowanceRequired
	}
	return ""
}

// permit2DepositSpent is the engine's Spent of Permit2 deposits: Permit2's
// nonceBitmap(payer, nonce >> 8) tells a nonce used; Permit2 logs nothing
// of it, so the transaction that used it is found from the token's
// Transfer logs out of the payer, each read back (MatchUse: a deposit
// through the Permit2 collector of that payer and nonce).
type permit2DepositSpent struct{ permit2.Spent }

var (
	_ engine.Spent      = permit2DepositSpent{}
	_ engine.UseMatcher = permit2DepositSpent{}
)

// MatchUse reports whether a transaction is a deposit through the Permit2
// collector of payer's nonce.
func (s permit2DepositSpent) MatchUse(payer common.Address, nonce [32]byte, to *common.Address, input []byte) bool {
	if to == nil || *to != batch.SettlementAddress || len(input) < 4 {
		return false
	}
	m, err := batch.ABI.MethodById(input)
	if err != nil || m.Name != "deposit" {
		return false
	}
	args, err := m.Inputs.Unpack(input[4:])
	if err != nil || len(args) != 4 {
		return false
	}
	collector, ok1 := args[2].(common.Address)
	data, ok2 := args[3].([]byte)
	if !ok1 || !ok2 || collector != batch.Permit2CollectorAddress || len(input) < 4+32 || common.BytesToAddress(input[4+12:4+32]) != payer {
		return false
	}
	cd, err := permit2CollectorArgs.Unpack(data)
	if err != nil || len(cd) != 4 {
		return false
	}
	n, ok := cd[0].(*big.Int)
	return ok && permit2.NonceBytes(n) == nonce
}

// permit2CollectorArgs decodes the Permit2 collector's data: nonce,
// deadline, signature, EIP-2612 permit data.
var permit2CollectorArgs = func() abi.Arguments {
	ty := func(s string) abi.Type {
		t, err := abi.NewType(s, "", nil)
		if err != nil {
			panic(err) // a constant type: a build defect
		}
		return t
	}
	return abi.Arguments{{Type: ty("uint256")}, {Type: ty("uint256")}, {Type: ty("bytes")}, {Type: ty("bytes")}}
}()
