// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title ISignatureTransfer
/// @notice The single-token part of Uniswap Permit2's ISignatureTransfer,
/// the part x402 uses: the structs, errors and event as Permit2 declares
/// them, so calldata, revert data and logs are Permit2's byte for byte.
interface ISignatureTransfer {
    /// The token and the most the spender may move.
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    /// What the owner signs (with the spender, msg.sender of the transfer).
    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    /// Where the spender sends the tokens and how many.
    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    error InvalidAmount(uint256 maxAmount);
    error SignatureExpired(uint256 signatureDeadline);
    error InvalidNonce();
    error InvalidSignatureLength();
    error InvalidSignature();
    error InvalidSigner();
    error InvalidContractSignature();

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    function DOMAIN_SEPARATOR() external view returns (bytes32);

    function nonceBitmap(address owner, uint256 wordPos) external view returns (uint256);

    function permitTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external;

    function permitWitnessTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;

    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external;
}

/// @title Permit2
/// @notice caddy-x402's stand-in for Uniswap's Permit2 on its development
/// chain, written from Permit2's published interface and documentation:
/// SignatureTransfer for one token (permitTransferFrom and
/// permitWitnessTransferFrom, with Permit2's EIP-712 types and unordered
/// nonces), invalidateUnorderedNonces and DOMAIN_SEPARATOR. Its checks run
/// in Permit2's order (deadline, amount, nonce, signature, transfer) and
/// fail with Permit2's custom errors, so a facilitator that simulates a
/// settle sees what it would see on a chain with the real Permit2.
///
/// Left out, as x402 does not use them: the batch (multi-token) transfers
/// and AllowanceTransfer (approve, allowance, permit, lockdown).
///
/// The EIP-712 domain (name "Permit2", chainId, verifyingContract; no
/// version) is computed at each call rather than cached in an immutable by
/// a constructor, so the runtime code works when a development chain places
/// it by genesis allocation at Permit2's canonical address
/// 0x000000000022D473030F116dDEE9F6B43aC78BA3. It has no constructor and
/// starts with empty storage.
///
/// For tests and development chains only.
contract Permit2 is ISignatureTransfer {
    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Permit2");

    bytes32 private constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    bytes32 private constant PERMIT_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );
    /// The start of a witness transfer's EIP-712 type; the caller's
    /// witnessTypeString completes it ("Witness witness)TokenPermissions(...)Witness(...)").
    string private constant WITNESS_TRANSFER_STUB =
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,";

    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;
    bytes4 private constant TRANSFER_FROM_SELECTOR = 0x23b872dd; // transferFrom(address,address,uint256)

    /// owner => word position (nonce >> 8) => bitmap of used nonces (bit nonce & 0xff).
    mapping(address => mapping(uint256 => uint256)) public nonceBitmap;

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, block.chainid, address(this)));
    }

    function permitTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        bytes32 structHash = keccak256(
            abi.encode(
                PERMIT_TRANSFER_FROM_TYPEHASH, _tokenPermissionsHash(permit), msg.sender, permit.nonce, permit.deadline
            )
        );
        _transfer(permit, transferDetails, owner, structHash, signature);
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external {
        bytes32 typeHash = keccak256(abi.encodePacked(WITNESS_TRANSFER_STUB, witnessTypeString));
        bytes32 structHash = keccak256(
            abi.encode(typeHash, _tokenPermissionsHash(permit), msg.sender, permit.nonce, permit.deadline, witness)
        );
        _transfer(permit, transferDetails, owner, structHash, signature);
    }

    /// @notice Marks the nonces whose bits are set in mask, in word
    /// wordPos of the caller's bitmap, as used: signatures over them can no
    /// longer be spent.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    function _tokenPermissionsHash(PermitTransferFrom memory permit) private pure returns (bytes32) {
        return keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, permit.permitted.token, permit.permitted.amount));
    }

    function _transfer(
        PermitTransferFrom memory permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 structHash,
        bytes calldata signature
    ) private {
        uint256 amount = transferDetails.requestedAmount;
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        if (amount > permit.permitted.amount) revert InvalidAmount(permit.permitted.amount);
        _useNonce(owner, permit.nonce);
        _verify(signature, keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash)), owner);
        _safeTransferFrom(permit.permitted.token, owner, transferDetails.to, amount);
    }

    /// @dev Flips the nonce's bit; it must have been clear.
    function _useNonce(address owner, uint256 nonce) private {
        uint256 wordPos = nonce >> 8; // the top 248 bits
        uint256 bit = 1 << (nonce & 0xff);
        uint256 flipped = nonceBitmap[owner][wordPos] ^= bit;
        if (flipped & bit == 0) revert InvalidNonce();
    }

    /// @dev Permit2's SignatureVerification: an owner without code must
    /// have signed digest with a 65-byte (r, s, v) or 64-byte EIP-2098
    /// (r, vs) ECDSA signature (like Permit2, no bound on s is enforced); an
    /// owner with code must answer EIP-1271 isValidSignature with its
    /// selector.
    function _verify(bytes calldata signature, bytes32 digest, address owner) private view {
        if (owner.code.length == 0) {
            bytes32 r;
            bytes32 s;
            uint8 v;
            if (signature.length == 65) {
                r = bytes32(signature[0:32]);
                s = bytes32(signature[32:64]);
                v = uint8(signature[64]);
            } else if (signature.length == 64) {
                r = bytes32(signature[0:32]);
                bytes32 vs = bytes32(signature[32:64]);
                s = vs & bytes32(uint256(type(int256).max));
                v = uint8(uint256(vs) >> 255) + 27;
            } else {
                revert InvalidSignatureLength();
            }
            address signer = ecrecover(digest, v, r, s);
            if (signer == address(0)) revert InvalidSignature();
            if (signer != owner) revert InvalidSigner();
            return;
        }
        // A call that reverts reverts here too, with the wallet's data, as
        // Permit2's high-level interface call does.
        (bool ok, bytes memory result) = owner.staticcall(abi.encodeWithSelector(ERC1271_MAGIC_VALUE, digest, signature));
        if (!ok) {
            assembly {
                revert(add(result, 0x20), mload(result))
            }
        }
        // An answer that does not decode as bytes4 reverts without data, as
        // Solidity's ABI decoder does in Permit2.
        if (result.length < 32 || uint256(abi.decode(result, (bytes32))) << 32 != 0) {
            revert();
        }
        if (bytes4(abi.decode(result, (bytes32))) != ERC1271_MAGIC_VALUE) {
            revert InvalidContractSignature();
        }
    }

    /// @dev solmate's SafeTransferLib.safeTransferFrom, which Permit2 uses:
    /// the call must succeed and return nothing or true, else the transfer
    /// reverts with "TRANSFER_FROM_FAILED" (the token's own reason is not
    /// passed on). Like solmate, it does not check that token has code.
    function _safeTransferFrom(address token, address from, address to, uint256 amount) private {
        (bool ok, bytes memory result) = token.call(abi.encodeWithSelector(TRANSFER_FROM_SELECTOR, from, to, amount));
        require(ok && (result.length == 0 || (result.length >= 32 && abi.decode(result, (uint256)) == 1)), "TRANSFER_FROM_FAILED");
    }
}
