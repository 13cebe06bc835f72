// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// The two contracts here are never deployed: the facilitator runs their
/// creation code, with its constructor arguments appended, as the data of an
/// eth_call (ERC6492SigValidator) or of a contract-creation transaction
/// (ERC6492Deployer), as ERC-6492 describes for its UniversalSigValidator.

/// EIP-1271 wallet interface.
interface IERC1271Wallet {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}

/// @title ERC6492SigValidator
/// @notice Checks a signature of signer over hash the ERC-6492 way, in its
/// constructor, and returns one byte (1 valid, 0 not) as the created code:
/// an eth_call with data = creation code ++ abi.encode(signer, hash,
/// signature) answers 0x01 or 0x00. A signature that ends with the ERC-6492
/// suffix is abi.encode(factory, factoryCalldata, innerSignature) ++ suffix:
/// when signer has no code, factory is called with factoryCalldata first
/// (only in the simulation), then innerSignature is checked. A signer with
/// code is asked isValidSignature (EIP-1271); one without code must have
/// made a 65-byte ECDSA signature.
contract ERC6492SigValidator {
    bytes32 private constant ERC6492_SUFFIX = 0x6492649264926492649264926492649264926492649264926492649264926492;
    uint256 private constant HALF_ORDER =
        0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    constructor(address signer, bytes32 hash, bytes memory signature) {
        bool valid = _isValid(signer, hash, signature);
        assembly {
            mstore(0, valid)
            return(31, 1)
        }
    }

    function _isValid(address signer, bytes32 hash, bytes memory signature) internal returns (bool) {
        uint256 n = signature.length;
        if (n >= 32) {
            bytes32 tail;
            assembly {
                tail := mload(add(signature, n))
            }
            if (tail == ERC6492_SUFFIX) {
                assembly {
                    mstore(signature, sub(n, 32)) // drop the suffix in place
                }
                (address factory, bytes memory factoryCalldata, bytes memory inner) =
                    abi.decode(signature, (address, bytes, bytes));
                if (signer.code.length == 0) {
                    (bool deployed,) = factory.call(factoryCalldata);
                    if (!deployed || signer.code.length == 0) {
                        return false;
                    }
                }
                signature = inner;
            }
        }
        if (signer.code.length > 0) {
            try IERC1271Wallet(signer).isValidSignature(hash, signature) returns (bytes4 magic) {
                return magic == IERC1271Wallet.isValidSignature.selector;
            } catch {
                return false;
            }
        }
        if (signature.length != 65) {
            return false;
        }
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) {
            return false;
        }
        address recovered = ecrecover(hash, v, r, s);
        return recovered != address(0) && recovered == signer;
    }
}

/// @title ERC6492Deployer
/// @notice Settles a payment from a smart-contract wallet that is not
/// deployed yet, in one contract-creation transaction: its constructor calls
/// factory with factoryCalldata when wallet has no code (and reverts when the
/// wallet still has none after that), then calls token with transferCalldata
/// (transferWithAuthorization with the wallet's inner signature) and
/// reverts with the token's own reason when that fails, so the deployment
/// and the transfer happen together or not at all. It logs WalletDeployed
/// when it deployed the wallet (not when an earlier transaction had), and
/// leaves no code behind.
contract ERC6492Deployer {
    event WalletDeployed(address indexed wallet, address indexed factory);

    constructor(address factory, bytes memory factoryCalldata, address wallet, address token, bytes memory transferCalldata) {
        if (wallet.code.length == 0) {
            (bool deployed,) = factory.call(factoryCalldata);
            require(deployed && wallet.code.length > 0, "ERC6492: wallet deployment failed");
            emit WalletDeployed(wallet, factory);
        }
        (bool ok, bytes memory ret) = token.call(transferCalldata);
        if (!ok) {
            assembly {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        assembly {
            return(0, 0)
        }
    }
}
