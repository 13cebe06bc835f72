package facilitator

// The wire protocol lives in package x402; these names keep the
// facilitator's callers compiling.

import "github.com/caddy-x402/caddy-x402/facilitator/x402"

// Wire types, from package x402.
type (
	Authorization       = x402.Authorization
	DomainInfo          = x402.DomainInfo
	InvalidPaymentError = x402.InvalidPaymentError
	PayloadShape        = x402.PayloadShape
	Payment             = x402.Payment
	PaymentRequired     = x402.PaymentRequired
	PaymentRequirements = x402.PaymentRequirements
	Request             = x402.Request
	SettleResponse      = x402.SettleResponse
	SupportedKind       = x402.SupportedKind
	SupportedResponse   = x402.SupportedResponse
	VerifyResponse      = x402.VerifyResponse
)

// Wire constants, from package x402.
const (
	ErrTextAlreadyUsed       = x402.ErrTextAlreadyUsed
	ErrTextExpired           = x402.ErrTextExpired
	ErrTextFailedOnChain     = x402.ErrTextFailedOnChain
	ErrTextInsufficientFunds = x402.ErrTextInsufficientFunds
	ErrTextInvalidSignature  = x402.ErrTextInvalidSignature
	ErrTextNotYetValid       = x402.ErrTextNotYetValid
	ErrTextPending           = x402.ErrTextPending
	ErrTextNotBroadcast      = x402.ErrTextNotBroadcast
	ErrTextUsedElsewhere     = x402.ErrTextUsedElsewhere
	EventFailed              = x402.EventFailed
	EventSettled             = x402.EventSettled
	ReasonInvalidBase64      = x402.ReasonInvalidBase64
	ReasonInvalidSignature   = x402.ReasonInvalidSignature
	ReasonRecipient          = x402.ReasonRecipient
	SchemeExact              = x402.SchemeExact
	ShapeCronos              = x402.ShapeCronos
	ShapeX402                = x402.ShapeX402
	X402Version              = x402.X402Version
)

// Wire functions, from package x402.
var (
	DecodeBase64             = x402.DecodeBase64
	DecodePaymentHeader      = x402.DecodePaymentHeader
	EncodePaymentHeader      = x402.EncodePaymentHeader
	FormatAmount             = x402.FormatAmount
	Invalid                  = x402.Invalid
	IsAddress                = x402.IsAddress
	JSONKind                 = x402.JSONKind
	ParseAmount              = x402.ParseAmount
	ParsePrice               = x402.ParsePrice
	ReasonInvalidAmount      = x402.ReasonInvalidAmount
	ReasonSimulationFailed   = x402.ReasonSimulationFailed
	ReasonUnsupportedAsset   = x402.ReasonUnsupportedAsset
	ReasonUnsupportedNetwork = x402.ReasonUnsupportedNetwork
	ReasonUnsupportedScheme  = x402.ReasonUnsupportedScheme
	Timestamp                = x402.Timestamp
	Valid                    = x402.Valid
)

// MaxUint256 is 2^256 - 1, the largest amount a token can carry.
var MaxUint256 = x402.MaxUint256

var failed = x402.Failed
