// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {ISignatureTransfer} from "./Permit2.sol";

/// The collector interface x402BatchSettlement calls: pull amount of token
/// from payer to the caller (the settlement contract), for channelId, with
/// the collector's own data (signatures, nonces).
interface IDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external;
}

/// The parts of ERC-20 the contracts call.
interface IERC20Min {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 value) external returns (bool);
}

/// EIP-3009's receiveWithAuthorization, bytes-signature form (FiatToken
/// v2.2), the one the ERC-3009 collector calls.
interface IERC3009Receive {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

/// EIP-2612's permit, tried by the Permit2 collector before the transfer.
interface IERC20PermitMin {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

/// OpenZeppelin's SafeERC20 error: token's transfer returned false, or
/// token has no code.
error SafeERC20FailedOperation(address token);

/// OpenZeppelin's SafeERC20.safeTransfer: a revert is passed on; a call
/// that returns false, or nothing from an account without code, fails with
/// SafeERC20FailedOperation.
function safeTransferToken(address token, address to, uint256 amount) {
    (bool ok, bytes memory ret) = token.call(abi.encodeCall(IERC20Min.transfer, (to, amount)));
    if (!ok) {
        assembly {
            revert(add(ret, 0x20), mload(ret))
        }
    }
    if (ret.length == 0 ? token.code.length == 0 : !abi.decode(ret, (bool))) revert SafeERC20FailedOperation(token);
}

/// @title x402BatchSettlement
/// @notice caddy-x402's stand-in, for its development chain, of the x402
/// `batch-settlement` channel contract (canonical address
/// 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003), written from the published
/// interface (the x402 specification of the scheme and the ABI the x402
/// evm package 2.27 carries): the same functions, structs, events, custom errors,
/// EIP-712 domain and types, checks and accounting.
///
/// A channel is a ChannelConfig; its id is the config's EIP-712 hash under
/// the domain {name "x402 Batch Settlement", version "1", chainId, this
/// contract}. Deposits come through a collector (ERC-3009 or Permit2); the
/// receiver side claims cumulative payer-signed vouchers (many channels per
/// call) and settle sweeps claimed funds to a receiver; the receiver side
/// can refund unclaimed escrow, and the payer can withdraw it after the
/// channel's withdrawDelay.
///
/// Differences from the published contract that no caller can see: the
/// EIP-712 domain separator is computed at each call rather than cached at
/// construction (so the runtime code works when a development chain places
/// it by genesis allocation), and the reentrancy guard lives in a transient
/// slot of its own. Like the published contract it needs EIP-1153
/// (TSTORE/TLOAD, Cancun): compiled for evmVersion cancun.
///
/// For tests and development chains only.
contract x402BatchSettlement {
    struct ChannelConfig {
        address payer;
        address payerAuthorizer;
        address receiver;
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }

    struct ChannelState {
        uint128 balance;
        uint128 totalClaimed;
    }

    struct WithdrawalState {
        uint128 amount;
        uint40 initiatedAt;
    }

    struct ReceiverState {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }

    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    uint40 public constant MIN_WITHDRAW_DELAY = 900; // 15 minutes
    uint40 public constant MAX_WITHDRAW_DELAY = 2592000; // 30 days

    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 public constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 public constant CLAIM_ENTRY_TYPEHASH =
        keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 public constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("x402 Batch Settlement");
    bytes32 private constant VERSION_HASH = keccak256("1");
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;
    /// secp256k1n / 2: a larger s is the malleable twin of a valid signature.
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    /// The transient slot of the reentrancy guard.
    bytes32 private constant GUARD_SLOT = keccak256("caddy-x402.x402BatchSettlement.guard");

    mapping(bytes32 channelId => ChannelState) public channels;
    mapping(bytes32 channelId => uint256) public refundNonce;
    mapping(bytes32 channelId => WithdrawalState) public pendingWithdrawals;
    mapping(address receiver => mapping(address token => ReceiverState)) public receivers;

    event EIP712DomainChanged();
    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance);
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter);
    event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount);

    error InvalidChannel();
    error ZeroDeposit();
    error DepositOverflow();
    error InvalidSignature();
    error NotReceiverAuthorizer();
    error NotAuthorizedToClaim();
    error NotAuthorizedToRefund();
    error ClaimExceedsCeiling();
    error ClaimExceedsBalance();
    error WithdrawalAlreadyPending();
    error WithdrawalNotPending();
    error NotAuthorizedToFinalizeWithdraw();
    error WithdrawDelayNotElapsed();
    error NothingToWithdraw();
    error WithdrawAmountExceedsAvailable();
    error WithdrawDelayOutOfRange();
    error EmptyBatch();
    error DepositCollectionFailed();
    error InvalidCollector();
    error InvalidRefundNonce();
    error ZeroRefund();
    // The library errors the published contract can revert with.
    error ReentrancyGuardReentrantCall();
    error ECDSAInvalidSignature();
    error ECDSAInvalidSignatureLength(uint256 length);
    error ECDSAInvalidSignatureS(bytes32 s);
    error FailedCall();

    modifier nonReentrant() {
        bytes32 slot = GUARD_SLOT;
        uint256 entered;
        assembly {
            entered := tload(slot)
        }
        if (entered != 0) revert ReentrancyGuardReentrantCall();
        assembly {
            tstore(slot, 1)
        }
        _;
        assembly {
            tstore(slot, 0)
        }
    }

    // ---------------------------------------------------------------- deposit

    /// Deposits amount into the channel of config through collector, which
    /// pulls it from config.payer with collectorData; the contract's token
    /// balance must grow by exactly amount.
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData)
        external
        nonReentrant
    {
        if (
            config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0)
                || config.token == address(0)
        ) revert InvalidChannel();
        if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY) {
            revert WithdrawDelayOutOfRange();
        }
        if (amount == 0) revert ZeroDeposit();
        if (collector == address(0)) revert InvalidCollector();

        bytes32 id = getChannelId(config);
        ChannelState storage ch = channels[id];
        if (amount > type(uint128).max - ch.balance) revert DepositOverflow();
        ch.balance += amount;

        IERC20Min token = IERC20Min(config.token);
        uint256 before = token.balanceOf(address(this));
        IDepositCollector(collector).collect(config.payer, config.token, amount, id, collectorData);
        if (token.balanceOf(address(this)) != before + amount) revert DepositCollectionFailed();

        if (ch.balance == amount && ch.totalClaimed == 0) emit ChannelCreated(id, config);
        emit Deposited(id, msg.sender, amount, ch.balance);
    }

    // ---------------------------------------------------------- claim, settle

    /// Applies voucher claims; the caller must be the receiver or the
    /// receiver authorizer of every row's channel.
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        if (voucherClaims.length == 0) revert EmptyBatch();
        for (uint256 i; i < voucherClaims.length; ++i) {
            if (!_receiverSide(msg.sender, voucherClaims[i].voucher.channel)) revert NotAuthorizedToClaim();
            _applyClaim(voucherClaims[i]);
        }
    }

    /// Applies voucher claims authorized by the receiver authorizer's
    /// EIP-712 ClaimBatch signature; anyone may submit it. Every row must
    /// name the first row's receiver authorizer.
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature)
        external
        nonReentrant
    {
        if (voucherClaims.length == 0) revert EmptyBatch();
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        if (!_validSignatureNow(authorizer, getClaimBatchDigest(voucherClaims), authorizerSignature)) {
            revert InvalidSignature();
        }
        for (uint256 i; i < voucherClaims.length; ++i) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert NotReceiverAuthorizer();
            _applyClaim(voucherClaims[i]);
        }
    }

    /// Sends receiver everything claimed for it in token and not settled
    /// yet. Anyone may call it; with nothing to send it does nothing.
    function settle(address receiver, address token) external nonReentrant {
        ReceiverState storage rs = receivers[receiver][token];
        uint128 amount = rs.totalClaimed - rs.totalSettled;
        if (amount == 0) return;
        rs.totalSettled = rs.totalClaimed;
        safeTransferToken(token, receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    // ------------------------------------------------------------- withdrawal

    /// The payer (or its authorizer) asks to withdraw amount of the
    /// unclaimed escrow; finalizeWithdraw may send it withdrawDelay later.
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert InvalidChannel();
        if (amount == 0) revert NothingToWithdraw();
        bytes32 id = getChannelId(config);
        WithdrawalState storage w = pendingWithdrawals[id];
        if (w.initiatedAt != 0) revert WithdrawalAlreadyPending();
        ChannelState storage ch = channels[id];
        if (amount > ch.balance - ch.totalClaimed) revert WithdrawAmountExceedsAvailable();
        w.amount = amount;
        w.initiatedAt = uint40(block.timestamp);
        emit WithdrawInitiated(id, amount, uint40(block.timestamp) + config.withdrawDelay);
    }

    /// Completes a pending withdrawal once withdrawDelay has passed since
    /// it was asked: sends the payer the amount asked, capped to what is
    /// still unclaimed.
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) {
            revert NotAuthorizedToFinalizeWithdraw();
        }
        bytes32 id = getChannelId(config);
        WithdrawalState storage w = pendingWithdrawals[id];
        if (w.initiatedAt == 0) revert WithdrawalNotPending();
        if (block.timestamp < uint256(w.initiatedAt) + uint256(config.withdrawDelay)) {
            revert WithdrawDelayNotElapsed();
        }
        ChannelState storage ch = channels[id];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 amount = w.amount < available ? w.amount : available;
        w.amount = 0;
        w.initiatedAt = 0;
        ch.balance -= amount;
        emit WithdrawFinalized(id, msg.sender, amount);
        if (ch.balance == 0 && ch.totalClaimed == 0) emit ChannelClosed(id, config);
        if (amount > 0) safeTransferToken(config.token, config.payer, amount);
    }

    // ----------------------------------------------------------------- refund

    /// Cooperative refund by the receiver or its authorizer: returns up to
    /// amount of the unclaimed escrow to the payer.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (!_receiverSide(msg.sender, config)) revert NotAuthorizedToRefund();
        _refund(config, amount);
    }

    /// Cooperative refund authorized by the receiver authorizer's EIP-712
    /// Refund signature over the channel's current refund nonce; anyone may
    /// submit it.
    function refundWithSignature(
        ChannelConfig calldata config,
        uint128 amount,
        uint256 nonce,
        bytes calldata receiverAuthorizerSignature
    ) external nonReentrant {
        bytes32 id = getChannelId(config);
        if (nonce != refundNonce[id]) revert InvalidRefundNonce();
        if (!_validSignatureNow(config.receiverAuthorizer, getRefundDigest(id, nonce, amount), receiverAuthorizerSignature))
        {
            revert InvalidSignature();
        }
        _refund(config, amount);
    }

    // ------------------------------------------------------------- multicall

    /// Runs each call on this contract in turn (delegatecall) and returns
    /// their results; the first that reverts reverts the whole with its
    /// data.
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i; i < data.length; ++i) {
            (bool ok, bytes memory ret) = address(this).delegatecall(data[i]);
            if (!ok) {
                if (ret.length == 0) revert FailedCall();
                assembly {
                    revert(add(ret, 0x20), mload(ret))
                }
            }
            results[i] = ret;
        }
    }

    // ----------------------------------------------------------------- views

    /// EIP-5267: the EIP-712 domain.
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", "x402 Batch Settlement", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// The channel id of config: its EIP-712 hash under this contract's domain.
    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(CHANNEL_CONFIG_TYPEHASH, config)));
    }

    /// The digest a payer (authorizer) signs for a voucher.
    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    /// The digest a receiver authorizer signs for refundWithSignature.
    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    /// The digest a receiver authorizer signs for claimWithSignature:
    /// ClaimBatch over one ClaimEntry (channel id, ceiling, claimed total)
    /// per row.
    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes32[] memory entries = new bytes32[](voucherClaims.length);
        for (uint256 i; i < voucherClaims.length; ++i) {
            entries[i] = keccak256(
                abi.encode(
                    CLAIM_ENTRY_TYPEHASH,
                    getChannelId(voucherClaims[i].voucher.channel),
                    voucherClaims[i].voucher.maxClaimableAmount,
                    voucherClaims[i].totalClaimed
                )
            );
        }
        return _typedDataHash(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(abi.encodePacked(entries)))));
    }

    // -------------------------------------------------------------- internal

    function _receiverSide(address who, ChannelConfig calldata config) private pure returns (bool) {
        return who == config.receiver || who == config.receiverAuthorizer;
    }

    /// One claim row: a cumulative total at or below what is already
    /// claimed changes nothing (a replay); above it, the total must be
    /// within the voucher's ceiling and the channel's balance, and the
    /// voucher signed by the payer authorizer (ECDSA) or, without one, the
    /// payer (ECDSA or EIP-1271).
    function _applyClaim(VoucherClaim calldata vc) private {
        bytes32 id = getChannelId(vc.voucher.channel);
        ChannelState storage ch = channels[id];
        if (vc.totalClaimed <= ch.totalClaimed) return;
        if (vc.totalClaimed > vc.voucher.maxClaimableAmount) revert ClaimExceedsCeiling();
        if (vc.totalClaimed > ch.balance) revert ClaimExceedsBalance();
        bytes32 digest = getVoucherDigest(id, vc.voucher.maxClaimableAmount);
        address payerAuthorizer = vc.voucher.channel.payerAuthorizer;
        if (payerAuthorizer != address(0)) {
            if (_recover(digest, vc.signature) != payerAuthorizer) revert InvalidSignature();
        } else if (!_validSignatureNow(vc.voucher.channel.payer, digest, vc.signature)) {
            revert InvalidSignature();
        }
        uint128 delta = vc.totalClaimed - ch.totalClaimed;
        ch.totalClaimed = vc.totalClaimed;
        receivers[vc.voucher.channel.receiver][vc.voucher.channel.token].totalClaimed += delta;
        emit Claimed(id, msg.sender, delta, vc.totalClaimed);
    }

    /// The refund both paths share. The nonce advances first, even when
    /// nothing is left to refund; a pending withdrawal shrinks by what is
    /// refunded, or ends when it is covered.
    function _refund(ChannelConfig calldata config, uint128 amount) private {
        if (amount == 0) revert ZeroRefund();
        bytes32 id = getChannelId(config);
        unchecked {
            refundNonce[id]++;
        }
        ChannelState storage ch = channels[id];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 paid = amount < available ? amount : available;
        if (paid == 0) return;
        ch.balance -= paid;
        WithdrawalState storage w = pendingWithdrawals[id];
        if (w.initiatedAt != 0) {
            if (paid >= w.amount) {
                w.amount = 0;
                w.initiatedAt = 0;
            } else {
                w.amount -= paid;
            }
        }
        emit Refunded(id, msg.sender, paid);
        if (ch.balance == 0 && ch.totalClaimed == 0) emit ChannelClosed(id, config);
        safeTransferToken(config.token, config.payer, paid);
    }

    function _typedDataHash(bytes32 structHash) private view returns (bytes32) {
        bytes32 separator = keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
        return keccak256(abi.encodePacked("\x19\x01", separator, structHash));
    }

    /// The signer of a 65-byte (r, s, v) signature; reverts on a malformed
    /// one, as OpenZeppelin's ECDSA.recover does.
    function _recover(bytes32 digest, bytes calldata sig) private pure returns (address signer) {
        if (sig.length != 65) revert ECDSAInvalidSignatureLength(sig.length);
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (uint256(s) > HALF_ORDER) revert ECDSAInvalidSignatureS(s);
        signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert ECDSAInvalidSignature();
    }

    /// OpenZeppelin's SignatureChecker.isValidSignatureNow: an account
    /// without code must have made a valid 65-byte ECDSA signature; one
    /// with code must answer EIP-1271 isValidSignature with its selector.
    function _validSignatureNow(address signer, bytes32 digest, bytes calldata sig) private view returns (bool) {
        if (signer.code.length == 0) {
            if (sig.length != 65) return false;
            bytes32 s = bytes32(sig[32:64]);
            if (uint256(s) > HALF_ORDER) return false;
            address got = ecrecover(digest, uint8(sig[64]), bytes32(sig[0:32]), s);
            return got != address(0) && got == signer;
        }
        (bool ok, bytes memory ret) = signer.staticcall(abi.encodeWithSelector(ERC1271_MAGIC_VALUE, digest, sig));
        return ok && ret.length >= 32 && abi.decode(ret, (bytes32)) == bytes32(ERC1271_MAGIC_VALUE);
    }

}

/// @title DepositCollector
/// @notice The base of the collectors: only the x402BatchSettlement set at
/// construction may call collect.
abstract contract DepositCollector is IDepositCollector {
    address public immutable x402BatchSettlement;

    error OnlyX402BatchSettlement();
    error InvalidX402BatchSettlementAddress();

    constructor(address settlement) {
        if (settlement == address(0)) revert InvalidX402BatchSettlementAddress();
        x402BatchSettlement = settlement;
    }

    modifier onlyx402BatchSettlement() {
        if (msg.sender != x402BatchSettlement) revert OnlyX402BatchSettlement();
        _;
    }
}

/// @title ERC3009DepositCollector
/// @notice Deposits through EIP-3009 receiveWithAuthorization (canonical
/// address 0x4020806089470a89826cB9fB1f4059150b550004): the payer signs a
/// ReceiveWithAuthorization to this collector whose nonce is
/// keccak256(abi.encode(channelId, salt)); the collector receives the
/// tokens and passes them to x402BatchSettlement. collectorData is
/// abi.encode(uint256 validAfter, uint256 validBefore, uint256 salt, bytes signature).
contract ERC3009DepositCollector is DepositCollector {
    constructor(address settlement) DepositCollector(settlement) {}

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external
        override
        onlyx402BatchSettlement
    {
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(collectorData, (uint256, uint256, uint256, bytes));
        IERC3009Receive(token).receiveWithAuthorization(
            payer, address(this), amount, validAfter, validBefore, keccak256(abi.encode(channelId, salt)), signature
        );
        safeTransferToken(token, x402BatchSettlement, amount);
    }
}

/// @title Permit2DepositCollector
/// @notice Deposits through Permit2's permitWitnessTransferFrom with the
/// witness DepositWitness(bytes32 channelId) (canonical address
/// 0x4020425FAf3B746C082C2f942b4E5159887B0005): the tokens go from the
/// payer straight to x402BatchSettlement, this collector being the spender.
/// collectorData is abi.encode(uint256 nonce, uint256 deadline, bytes
/// permit2Signature, bytes eip2612PermitData); a non-empty
/// eip2612PermitData (abi.encode(value, deadline, v, r, s)) is tried as the
/// token's permit to Permit2 first, a failure only logged.
contract Permit2DepositCollector is DepositCollector {
    ISignatureTransfer public immutable PERMIT2;

    string public constant DEPOSIT_WITNESS_TYPE_STRING =
        "DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)";
    bytes32 public constant DEPOSIT_WITNESS_TYPEHASH = keccak256("DepositWitness(bytes32 channelId)");

    error InvalidPermit2Address();
    error Permit2612AmountMismatch();

    event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason);
    event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode);
    event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data);

    constructor(address settlement, address permit2) DepositCollector(settlement) {
        if (permit2 == address(0)) revert InvalidPermit2Address();
        PERMIT2 = ISignatureTransfer(permit2);
    }

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData)
        external
        override
        onlyx402BatchSettlement
    {
        (uint256 nonce, uint256 deadline, bytes memory signature, bytes memory permitData) =
            abi.decode(collectorData, (uint256, uint256, bytes, bytes));
        if (permitData.length > 0) _tryPermit(payer, token, amount, permitData);
        PERMIT2.permitWitnessTransferFrom(
            ISignatureTransfer.PermitTransferFrom({
                permitted: ISignatureTransfer.TokenPermissions({token: token, amount: amount}),
                nonce: nonce,
                deadline: deadline
            }),
            ISignatureTransfer.SignatureTransferDetails({to: x402BatchSettlement, requestedAmount: amount}),
            payer,
            keccak256(abi.encode(DEPOSIT_WITNESS_TYPEHASH, channelId)),
            DEPOSIT_WITNESS_TYPE_STRING,
            signature
        );
    }

    function _tryPermit(address payer, address token, uint256 amount, bytes memory permitData) private {
        (uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) =
            abi.decode(permitData, (uint256, uint256, uint8, bytes32, bytes32));
        if (value != amount) revert Permit2612AmountMismatch();
        try IERC20PermitMin(token).permit(payer, address(PERMIT2), value, deadline, v, r, s) {}
        catch Error(string memory reason) {
            emit EIP2612PermitFailedWithReason(token, payer, reason);
        } catch Panic(uint256 code) {
            emit EIP2612PermitFailedWithPanic(token, payer, code);
        } catch (bytes memory data) {
            emit EIP2612PermitFailedWithData(token, payer, data);
        }
    }
}
