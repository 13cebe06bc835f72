// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {ISignatureTransfer} from "./Permit2.sol";

/// EIP-2612's permit, the one function of the token the proxies call.
interface IERC2612 {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

/// @title x402BasePermit2Proxy
/// @notice caddy-x402's stand-in, for its development chain, of the x402
/// Permit2 proxies (the x402 repository's contracts/evm), written from
/// their published interface: the same functions, structs, events, custom
/// errors and checks, in the same order. A proxy is the spender of the
/// buyer's Permit2 signature; the signed witness binds the payee (and, for
/// upto, the facilitator allowed to settle), so whoever submits the settle
/// cannot send the money elsewhere.
///
/// PERMIT2 is an immutable set by the constructor, as in the published
/// proxies. A development chain that places a proxy by genesis allocation
/// takes the runtime code the constructor returns (package token runs it)
/// and the storage it leaves: slot 0, the reentrancy guard, set to 1.
///
/// For tests and development chains only.
abstract contract x402BasePermit2Proxy {
    ISignatureTransfer public immutable PERMIT2;

    /// 0 (no constructor run) or 1: not entered; 2: entered.
    uint256 private _reentrancyStatus;

    event Settled();
    event SettledWithPermit();
    event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason);
    event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode);
    event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data);

    error InvalidPermit2Address();
    error InvalidDestination();
    error PaymentTooEarly();
    error InvalidOwner();
    error InvalidAmount();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();

    /// The buyer's EIP-2612 permit of the token to Permit2, for settling
    /// without a prior approve transaction (eip2612GasSponsoring).
    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    modifier nonReentrant() {
        if (_reentrancyStatus == 2) revert ReentrancyGuardReentrantCall();
        _reentrancyStatus = 2;
        _;
        _reentrancyStatus = 1;
    }

    constructor(address permit2) {
        if (permit2 == address(0)) revert InvalidPermit2Address();
        PERMIT2 = ISignatureTransfer(permit2);
        _reentrancyStatus = 1;
    }

    /// @dev The checks every settle shares, then Permit2's witness transfer
    /// of amount from owner to to, with this contract as the spender.
    function _settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        address to,
        uint256 validAfter,
        bytes32 witnessHash,
        string memory witnessTypeString,
        bytes calldata signature
    ) internal {
        if (amount == 0) revert InvalidAmount();
        if (owner == address(0)) revert InvalidOwner();
        if (to == address(0)) revert InvalidDestination();
        if (block.timestamp < validAfter) revert PaymentTooEarly();
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: to, requestedAmount: amount}),
            owner,
            witnessHash,
            witnessTypeString,
            signature
        );
    }

    /// @dev Submits the buyer's EIP-2612 permit to Permit2 for exactly the
    /// permitted amount. A permit that fails (already used, or the token
    /// has none) only logs why: the settle goes on and succeeds if Permit2
    /// already has the allowance.
    function _executePermit(address token, address owner, EIP2612Permit calldata p, uint256 permittedAmount) internal {
        if (p.value != permittedAmount) revert Permit2612AmountMismatch();
        try IERC2612(token).permit(owner, address(PERMIT2), p.value, p.deadline, p.v, p.r, p.s) {}
        catch Error(string memory reason) {
            emit EIP2612PermitFailedWithReason(token, owner, reason);
        } catch Panic(uint256 errorCode) {
            emit EIP2612PermitFailedWithPanic(token, owner, errorCode);
        } catch (bytes memory data) {
            emit EIP2612PermitFailedWithData(token, owner, data);
        }
    }
}

/// @title x402ExactPermit2Proxy
/// @notice x402 `exact` through Permit2
/// (0x402085c248EeA27D92E8b30b2C58ed07f9E20001): always moves the whole
/// permitted amount to witness.to. Anyone may submit the settle.
contract x402ExactPermit2Proxy is x402BasePermit2Proxy {
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,uint256 validAfter)");

    /// What the buyer signs beside the permit.
    struct Witness {
        address to;
        uint256 validAfter;
    }

    constructor(address permit2) x402BasePermit2Proxy(permit2) {}

    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settleExact(permit, owner, witness, signature);
        emit Settled();
    }

    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _executePermit(permit.permitted.token, owner, permit2612, permit.permitted.amount);
        _settleExact(permit, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settleExact(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.validAfter));
        _settle(
            permit,
            permit.permitted.amount,
            owner,
            witness.to,
            witness.validAfter,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}

/// @title x402UptoPermit2Proxy
/// @notice x402 `upto` (0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002): moves
/// amount, at most the permitted amount, to witness.to; only
/// witness.facilitator may submit the settle, since it chooses the amount.
contract x402UptoPermit2Proxy is x402BasePermit2Proxy {
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    error UnauthorizedFacilitator();
    error AmountExceedsPermitted();

    /// What the buyer signs beside the permit.
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    constructor(address permit2) x402BasePermit2Proxy(permit2) {}

    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _checkUpto(permit, amount, witness);
        _settleUpto(permit, amount, owner, witness, signature);
        emit Settled();
    }

    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _checkUpto(permit, amount, witness);
        _executePermit(permit.permitted.token, owner, permit2612, permit.permitted.amount);
        _settleUpto(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _checkUpto(ISignatureTransfer.PermitTransferFrom calldata permit, uint256 amount, Witness calldata witness)
        private
        view
    {
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
    }

    function _settleUpto(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        _settle(permit, amount, owner, witness.to, witness.validAfter, witnessHash, WITNESS_TYPE_STRING, signature);
    }
}
