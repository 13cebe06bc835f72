package doctor

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
)

// AllSchemes is a Finding's Scheme when the check concerns every scheme
// of the network (the token, its EIP-712 domain, the signers).
const AllSchemes = "all"

// Status is a Finding's verdict.
type Status string

// The verdicts of a check.
const (
	// OK: what was checked is there.
	OK Status = "ok"
	// Missing: it is not, and the scheme cannot be served until the fix.
	Missing Status = "missing"
	// Warning: it is there but needs care soon (a low gas balance).
	Warning Status = "warning"
	// Unknown: the chain could not be asked; nothing is known.
	Unknown Status = "unknown"
)

// The kinds of check, as a Finding's Check names them.
const (
	KindRPC       = "rpc"        // the chain answers, with the configured chain ID
	KindCode      = "code"       // a contract's code at its address
	KindEIP1153   = "eip1153"    // transient storage (TSTORE, TLOAD)
	KindToken     = "token"      // the token's code
	KindDomain    = "eip712"     // a field of the token's EIP-712 domain
	KindSigner    = "signer"     // a signer key's gas balance
	KindSignerKey = "signer_key" // whether the network has a signer key
)

// Finding is the result of one check.
type Finding struct {
	// Network is the network's name; Scheme the scheme that needs what
	// was checked, or AllSchemes.
	Network string `json:"network"`
	Scheme  string `json:"scheme"`
	// Check is what kind of check it was (KindCode...); Subject what was
	// checked ("Permit2 0x0000…22D3", "version", a signer's address).
	Check   string `json:"check"`
	Subject string `json:"subject"`
	Status  Status `json:"status"`
	// Detail says what was found; Fix the one thing to do (empty when OK).
	Detail string `json:"detail,omitempty"`
	Fix    string `json:"fix,omitempty"`
	// Address is the contract, token or signer checked, when there is one.
	Address string `json:"address,omitempty"`
	// Field, Token and Config name a domain field that differs, with what
	// the token says and what the configuration says.
	Field  string `json:"field,omitempty"`
	Token  string `json:"token_value,omitempty"`
	Config string `json:"config_value,omitempty"`
	// Balance is a signer's balance in wei; Need what one settlement needs.
	Balance string `json:"balance_wei,omitempty"`
	Need    string `json:"need_wei,omitempty"`
}

// Failed reports whether the finding stops its scheme from being served.
func (f Finding) Failed() bool { return f.Status == Missing || f.Status == Unknown }

// Contract is a contract a scheme needs at a fixed address.
type Contract struct {
	// Name says what it is ("Permit2", "x402 upto Permit2 proxy").
	Name    string
	Address common.Address
}

// Needs is what must exist for a scheme to be served on a network, beside
// the network-wide checks.
type Needs struct {
	// Contracts must hold code at their addresses.
	Contracts []Contract
	// TransientStorage: the chain must run EIP-1153.
	TransientStorage bool
	// SignerKey: the network must have a signer key.
	SignerKey bool
}

// Batcher sends a JSON-RPC batch (evm.Pool's Batch and BatchShared): an
// error when the batch got no answer, else each element's own error.
type Batcher interface {
	Batch(ctx context.Context, elems []rpc.BatchElem) error
}

// BatchFunc is a function as a Batcher (evm.Pool.BatchShared).
type BatchFunc func(ctx context.Context, elems []rpc.BatchElem) error

// Batch calls f.
func (f BatchFunc) Batch(ctx context.Context, elems []rpc.BatchElem) error { return f(ctx, elems) }
