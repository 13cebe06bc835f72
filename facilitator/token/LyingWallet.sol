// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title LyingWallet
/// @notice An EIP-1271 wallet that lies, for caddy-x402's tests: it accepts
/// its owner's signature only when tx.gasprice is 0, which is what an
/// eth_call or an eth_estimateGas without a gas price runs with. Every
/// simulation of a payment from it passes (verify, the settle's gas
/// estimate), and every mined transferWithAuthorization reverts with the
/// token's "invalid signature", at the cost of whoever sent it. The
/// facilitator must bound what such a wallet can make it pay. Its runtime
/// code does not depend on the owner (kept in storage slot 0), so every
/// LyingWallet has the same code hash. For testing only.
contract LyingWallet {
    /// EIP-1271: isValidSignature(bytes32,bytes).selector.
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;

    /// The EOA whose signatures the wallet pretends to accept.
    address public owner;

    constructor(address owner_) {
        require(owner_ != address(0), "LyingWallet: owner is the zero address");
        owner = owner_;
    }

    /// @notice EIP-1271: 0x1626ba7e when signature is the owner's 65-byte
    /// (r, s, v) ECDSA signature over hash and the transaction pays no gas
    /// price (a simulation), 0xffffffff otherwise (a mined transaction).
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (tx.gasprice != 0 || signature.length != 65) {
            return 0xffffffff;
        }
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        address signer = ecrecover(hash, v, r, s);
        if (signer == address(0) || signer != owner) {
            return 0xffffffff;
        }
        return MAGIC_VALUE;
    }
}
