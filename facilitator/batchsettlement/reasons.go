package batchsettlement

// The verify reasons and settle error reasons of @x402/evm 2.27's
// batch-settlement facilitator: the codes themselves are the texts
// (x402.CodeOf answers them as their own code).
const (
	ErrChannelNotFound              = "invalid_batch_settlement_evm_channel_not_found"
	ErrTokenMismatch                = "invalid_batch_settlement_evm_token_mismatch"
	ErrInvalidVoucherSignature      = "invalid_batch_settlement_evm_voucher_signature"
	ErrCumulativeExceedsBalance     = "invalid_batch_settlement_evm_cumulative_exceeds_balance"
	ErrCumulativeAmountBelowClaimed = "invalid_batch_settlement_evm_cumulative_below_claimed"
	ErrInsufficientBalance          = "invalid_batch_settlement_evm_insufficient_balance"
	ErrDepositTransactionFailed     = "invalid_batch_settlement_evm_deposit_transaction_failed"
	ErrMissingEip712Domain          = "invalid_batch_settlement_evm_missing_eip712_domain"
	ErrValidBeforeExpired           = "invalid_batch_settlement_evm_payload_authorization_valid_before"
	ErrValidAfterInFuture           = "invalid_batch_settlement_evm_payload_authorization_valid_after"
	ErrInvalidReceiveAuthSignature  = "invalid_batch_settlement_evm_receive_authorization_signature"
	ErrErc3009AuthorizationRequired = "invalid_batch_settlement_evm_erc3009_authorization_required"
	ErrInvalidPayloadType           = "invalid_batch_settlement_evm_payload_type"
	ErrWithdrawDelayOutOfRange      = "invalid_batch_settlement_evm_withdraw_delay_out_of_range"
	ErrChannelIDMismatch            = "invalid_batch_settlement_evm_channel_id_mismatch"
	ErrReceiverMismatch             = "invalid_batch_settlement_evm_receiver_mismatch"
	ErrReceiverAuthorizerMismatch   = "invalid_batch_settlement_evm_receiver_authorizer_mismatch"
	ErrWithdrawDelayMismatch        = "invalid_batch_settlement_evm_withdraw_delay_mismatch"
	ErrDepositSimulationFailed      = "invalid_batch_settlement_evm_deposit_simulation_failed"
	ErrRPCReadFailed                = "invalid_batch_settlement_evm_rpc_read_failed"
)

// The settle reasons of claim, settle and refund.
const (
	ErrClaimTransactionFailed    = "invalid_batch_settlement_evm_claim_transaction_failed"
	ErrSettleTransactionFailed   = "invalid_batch_settlement_evm_settle_transaction_failed"
	ErrRefundTransactionFailed   = "invalid_batch_settlement_evm_refund_transaction_failed"
	ErrAuthorizerAddressMismatch = "invalid_batch_settlement_evm_authorizer_address_mismatch"
	ErrClaimSimulationFailed     = "invalid_batch_settlement_evm_claim_simulation_failed"
	ErrSettleSimulationFailed    = "invalid_batch_settlement_evm_settle_simulation_failed"
	ErrNothingToSettle           = "invalid_batch_settlement_evm_nothing_to_settle"
	ErrRefundSimulationFailed    = "invalid_batch_settlement_evm_refund_simulation_failed"
	ErrRefundNoBalance           = "invalid_batch_settlement_evm_refund_no_balance"
	// ErrNothingToClaim is ours: every row of a claim is at or below what
	// its channel has claimed already, so the transaction would change
	// nothing and is not sent (the published facilitator sends it).
	ErrNothingToClaim = "invalid_batch_settlement_evm_nothing_to_claim"
)
