package batch

// The calls the facilitator makes to x402BatchSettlement: their calldata, and the results of
// the reads.

import (
	"bytes"
	_ "embed"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// abiJSON is x402BatchSettlement's ABI, written by facilitator/token/gen.sh
// from the compiled contract.
//
//go:embed abi.json
var abiJSON []byte

// ABI is x402BatchSettlement's ABI.
var ABI = func() abi.ABI {
	a, err := abi.JSON(bytes.NewReader(abiJSON))
	if err != nil {
		panic(fmt.Errorf("batch: parse abi.json: %w", err)) // embedded: a build defect
	}
	return a
}()

// The ABI tuples, shaped as go-ethereum's encoder wants them (field names
// are the components' names, capitalised).
type abiChannelConfig struct {
	Payer              common.Address
	PayerAuthorizer    common.Address
	Receiver           common.Address
	ReceiverAuthorizer common.Address
	Token              common.Address
	WithdrawDelay      *big.Int
	Salt               [32]byte
}

type abiVoucher struct {
	Channel            abiChannelConfig
	MaxClaimableAmount *big.Int
}

type abiVoucherClaim struct {
	Voucher      abiVoucher
	Signature    []byte
	TotalClaimed *big.Int
}

func (c ChannelConfig) abi() (abiChannelConfig, error) {
	if c.WithdrawDelay > maxUint40 {
		return abiChannelConfig{}, fmt.Errorf("channel config: withdraw delay %d out of the uint40 range", c.WithdrawDelay)
	}
	return abiChannelConfig{c.Payer, c.PayerAuthorizer, c.Receiver, c.ReceiverAuthorizer, c.Token, new(big.Int).SetUint64(c.WithdrawDelay), c.Salt}, nil
}

func claimsABI(claims []VoucherClaim) ([]abiVoucherClaim, error) {
	out := make([]abiVoucherClaim, len(claims))
	for i, c := range claims {
		cfg, err := c.Voucher.Channel.abi()
		if err != nil {
			return nil, fmt.Errorf("claim %d: %w", i, err)
		}
		if _, err := bigWord("claim maxClaimableAmount", c.Voucher.MaxClaimableAmount, 128); err != nil {
			return nil, fmt.Errorf("claim %d: %w", i, err)
		}
		if _, err := bigWord("claim totalClaimed", c.TotalClaimed, 128); err != nil {
			return nil, fmt.Errorf("claim %d: %w", i, err)
		}
		sig := c.Signature
		if sig == nil {
			sig = []byte{}
		}
		out[i] = abiVoucherClaim{abiVoucher{cfg, c.Voucher.MaxClaimableAmount}, sig, c.TotalClaimed}
	}
	return out, nil
}

func amount128(what string, v *big.Int) error {
	_, err := bigWord(what, v, 128)
	return err
}

// DepositCalldata is deposit(config, amount, collector, collectorData).
func DepositCalldata(cfg ChannelConfig, amount *big.Int, collector common.Address, collectorData []byte) ([]byte, error) {
	c, err := cfg.abi()
	if err != nil {
		return nil, err
	}
	if err := amount128("deposit amount", amount); err != nil {
		return nil, err
	}
	if collectorData == nil {
		collectorData = []byte{}
	}
	return ABI.Pack("deposit", c, amount, collector, collectorData)
}

// ClaimCalldata is claim(voucherClaims): the sender must be the receiver
// or receiver authorizer of every row.
func ClaimCalldata(claims []VoucherClaim) ([]byte, error) {
	cs, err := claimsABI(claims)
	if err != nil {
		return nil, err
	}
	return ABI.Pack("claim", cs)
}

// ClaimWithSignatureCalldata is claimWithSignature(voucherClaims,
// authorizerSignature): any sender, the receiver authorizer's ClaimBatch
// signature.
func ClaimWithSignatureCalldata(claims []VoucherClaim, authorizerSignature []byte) ([]byte, error) {
	cs, err := claimsABI(claims)
	if err != nil {
		return nil, err
	}
	return ABI.Pack("claimWithSignature", cs, authorizerSignature)
}

// SettleCalldata is settle(receiver, token): sends receiver what is
// claimed and not settled.
func SettleCalldata(receiver, token common.Address) ([]byte, error) {
	return ABI.Pack("settle", receiver, token)
}

// RefundCalldata is refund(config, amount): the sender must be the
// receiver or its authorizer.
func RefundCalldata(cfg ChannelConfig, amount *big.Int) ([]byte, error) {
	c, err := cfg.abi()
	if err != nil {
		return nil, err
	}
	if err := amount128("refund amount", amount); err != nil {
		return nil, err
	}
	return ABI.Pack("refund", c, amount)
}

// RefundWithSignatureCalldata is refundWithSignature(config, amount,
// nonce, receiverAuthorizerSignature).
func RefundWithSignatureCalldata(cfg ChannelConfig, amount, nonce *big.Int, sig []byte) ([]byte, error) {
	c, err := cfg.abi()
	if err != nil {
		return nil, err
	}
	if err := amount128("refund amount", amount); err != nil {
		return nil, err
	}
	if _, err := bigWord("refund nonce", nonce, 256); err != nil {
		return nil, err
	}
	return ABI.Pack("refundWithSignature", c, amount, nonce, sig)
}

// InitiateWithdrawCalldata is initiateWithdraw(config, amount), the
// payer's (or payer authorizer's) request to withdraw.
func InitiateWithdrawCalldata(cfg ChannelConfig, amount *big.Int) ([]byte, error) {
	c, err := cfg.abi()
	if err != nil {
		return nil, err
	}
	if err := amount128("withdraw amount", amount); err != nil {
		return nil, err
	}
	return ABI.Pack("initiateWithdraw", c, amount)
}

// FinalizeWithdrawCalldata is finalizeWithdraw(config).
func FinalizeWithdrawCalldata(cfg ChannelConfig) ([]byte, error) {
	c, err := cfg.abi()
	if err != nil {
		return nil, err
	}
	return ABI.Pack("finalizeWithdraw", c)
}

// MulticallCalldata is multicall(calls): the calls run in order in one
// transaction, all or none.
func MulticallCalldata(calls [][]byte) ([]byte, error) {
	return ABI.Pack("multicall", calls)
}

// ChannelState is what the contract holds for a channel, as the
// facilitator reports it (the spec's channel snapshot without the
// server's charged amount).
type ChannelState struct {
	// Balance is deposited minus withdrawn and refunded (claimed funds
	// included, settled or not).
	Balance *big.Int
	// TotalClaimed is the cumulative amount claimed.
	TotalClaimed *big.Int
	// WithdrawRequestedAt is the Unix second of a pending withdraw
	// request, 0 if none; WithdrawAmount its amount.
	WithdrawRequestedAt uint64
	WithdrawAmount      *big.Int
	// RefundNonce is the nonce the next refundWithSignature must carry.
	RefundNonce *big.Int
}

// Available is the unclaimed escrow: Balance - TotalClaimed.
func (s ChannelState) Available() *big.Int { return new(big.Int).Sub(s.Balance, s.TotalClaimed) }

// ChannelReadCalls are the three reads that make a ChannelState, to send
// to SettlementAddress (in one JSON-RPC batch or a Multicall3):
// channels(id), pendingWithdrawals(id), refundNonce(id).
func ChannelReadCalls(channelID common.Hash) [3][]byte {
	var out [3][]byte
	for i, m := range []string{"channels", "pendingWithdrawals", "refundNonce"} {
		data, err := ABI.Pack(m, channelID)
		if err != nil {
			panic(err) // fixed argument types: a build defect
		}
		out[i] = data
	}
	return out
}

// UnpackChannelState reads the results of ChannelReadCalls, in order.
func UnpackChannelState(results [3][]byte) (ChannelState, error) {
	var s ChannelState
	ch, err := ABI.Unpack("channels", results[0])
	if err != nil {
		return s, fmt.Errorf("channels(): %w", err)
	}
	w, err := ABI.Unpack("pendingWithdrawals", results[1])
	if err != nil {
		return s, fmt.Errorf("pendingWithdrawals(): %w", err)
	}
	n, err := ABI.Unpack("refundNonce", results[2])
	if err != nil {
		return s, fmt.Errorf("refundNonce(): %w", err)
	}
	s.Balance, s.TotalClaimed = ch[0].(*big.Int), ch[1].(*big.Int)
	s.WithdrawAmount, s.WithdrawRequestedAt = w[0].(*big.Int), w[1].(*big.Int).Uint64()
	s.RefundNonce = n[0].(*big.Int)
	return s, nil
}

// ReceiverState is what is claimed and settled for a receiver in a token.
type ReceiverState struct {
	TotalClaimed, TotalSettled *big.Int
}

// Unsettled is what settle would send now.
func (r ReceiverState) Unsettled() *big.Int { return new(big.Int).Sub(r.TotalClaimed, r.TotalSettled) }

// ReceiverReadCall is receivers(receiver, token).
func ReceiverReadCall(receiver, token common.Address) []byte {
	data, err := ABI.Pack("receivers", receiver, token)
	if err != nil {
		panic(err) // fixed argument types: a build defect
	}
	return data
}

// UnpackReceiverState reads the result of ReceiverReadCall.
func UnpackReceiverState(result []byte) (ReceiverState, error) {
	r, err := ABI.Unpack("receivers", result)
	if err != nil {
		return ReceiverState{}, fmt.Errorf("receivers(): %w", err)
	}
	return ReceiverState{r[0].(*big.Int), r[1].(*big.Int)}, nil
}
