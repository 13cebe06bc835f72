// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title SmartWallet
/// @notice A minimal smart-contract wallet for caddy-x402's tests and
/// development chain: one owner (an EOA) whose ECDSA signature over a hash is
/// the wallet's signature (EIP-1271). It holds tokens like any address; the
/// owner moves them with execute. Its runtime code does not depend on the
/// owner (kept in storage slot 0), so a development chain can also place a
/// wallet by genesis allocation. For testing only.
contract SmartWallet {
    /// EIP-1271: isValidSignature(bytes32,bytes).selector.
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;

    /// secp256k1n / 2: signatures with s above this are malleable and rejected.
    uint256 private constant HALF_ORDER =
        0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// The EOA whose signatures the wallet accepts.
    address public owner;

    constructor(address owner_) {
        require(owner_ != address(0), "SmartWallet: owner is the zero address");
        owner = owner_;
    }

    /// @notice EIP-1271: 0x1626ba7e when signature is the owner's 65-byte
    /// (r, s, v) ECDSA signature over hash, 0xffffffff otherwise.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) {
            return 0xffffffff;
        }
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) {
            return 0xffffffff;
        }
        address signer = ecrecover(hash, v, r, s);
        if (signer == address(0) || signer != owner) {
            return 0xffffffff;
        }
        return MAGIC_VALUE;
    }

    /// @notice Calls target with value and data, for the owner only (how the
    /// owner spends what the wallet holds).
    function execute(address target, uint256 value, bytes calldata data) external returns (bytes memory) {
        require(msg.sender == owner, "SmartWallet: caller is not the owner");
        (bool ok, bytes memory ret) = target.call{value: value}(data);
        if (!ok) {
            assembly {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        return ret;
    }

    receive() external payable {}
}

/// @title SmartWalletFactory
/// @notice Deploys SmartWallets with CREATE2: the address follows from the
/// factory, the owner and the salt, so it is known (and can receive tokens)
/// before the wallet exists. An ERC-6492 signature names this factory and a
/// createAccount call as the way to deploy its wallet.
contract SmartWalletFactory {
    event AccountCreated(address indexed account, address indexed owner, uint256 salt);

    /// @notice Deploys owner's wallet for salt, or returns it when it exists
    /// already (so a second call is harmless).
    function createAccount(address owner, uint256 salt) external returns (address account) {
        account = getAddress(owner, salt);
        if (account.code.length > 0) {
            return account;
        }
        SmartWallet w = new SmartWallet{salt: bytes32(salt)}(owner);
        require(address(w) == account, "SmartWalletFactory: unexpected address");
        emit AccountCreated(account, owner, salt);
    }

    /// @notice The address of owner's wallet for salt, deployed or not.
    function getAddress(address owner, uint256 salt) public view returns (address) {
        bytes32 initHash = keccak256(abi.encodePacked(type(SmartWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), bytes32(salt), initHash)))));
    }
}
