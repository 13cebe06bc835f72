// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title EIP3009Base
/// @notice A minimal ERC-20 token with EIP-3009 (transfer with authorization),
/// written for caddy-x402's tests and development chain. Its external
/// behaviour, function signatures, EIP-712 domain and revert strings follow
/// Circle's FiatTokenV2_2 (USDC), so code that works against this contract
/// works against USDC-style tokens such as devUSDC.e on Cronos testnet.
///
/// name, symbol and version are constants, so the contract also works when
/// its runtime code is placed by genesis allocation with no constructor run:
/// only minter, totalSupply and the balances then need storage entries.
///
/// EIP-2612 permit and nonces(owner) are FiatToken v2's: the same Permit
/// type, the same domain, one sequential nonce per owner, a deadline of
/// type(uint256).max meaning "never expires", and FiatToken's revert
/// strings.
///
/// Not part of FiatToken: blacklisting, pausing, proxying, multiple
/// minters. This contract is for testing; do not use it for real money.
///
/// The base holds the (v, r, s) functions and the storage; EIP3009Token (the
/// development chain's token, FiatToken v2.2) adds the bytes-signature
/// overloads, EIP3009TokenNoBytes (like FiatToken v2.0 and v2.1) does not.
abstract contract EIP3009Base {
    // ---------------------------------------------------------------------
    // Constants
    // ---------------------------------------------------------------------

    string public constant name = "Bridged USDC (Stargate)";
    string public constant symbol = "devUSDC.e";
    uint8 public constant decimals = 6;
    string public constant version = "1";

    /// keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );

    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );

    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    /// EIP-2612, as FiatToken v2's EIP2612.PERMIT_TYPEHASH (0x6e71edae...).
    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    /// EIP-1271: isValidSignature(bytes32,bytes).selector, the answer of a
    /// wallet that accepts a signature.
    bytes4 internal constant ERC1271_MAGIC_VALUE = 0x1626ba7e;

    /// secp256k1n / 2: signatures with s above this are malleable and rejected.
    uint256 private constant HALF_ORDER =
        0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    // ---------------------------------------------------------------------
    // Storage (slot order is read by token/layout.go from storageLayout)
    // ---------------------------------------------------------------------

    address public minter;
    uint256 private _totalSupply;
    mapping(address => uint256) private _balances;
    mapping(address => mapping(address => uint256)) private _allowances;
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;
    mapping(address => uint256) private _permitNonces;

    // ---------------------------------------------------------------------
    // Events
    // ---------------------------------------------------------------------

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Mint(address indexed minter, address indexed to, uint256 amount);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    constructor() {
        minter = msg.sender;
    }

    // ---------------------------------------------------------------------
    // ERC-20
    // ---------------------------------------------------------------------

    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    function approve(address spender, uint256 value) external returns (bool) {
        _approve(msg.sender, spender, value);
        return true;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = _allowances[from][msg.sender];
        require(value <= allowed, "ERC20: insufficient allowance");
        _transfer(from, to, value);
        _allowances[from][msg.sender] = allowed - value;
        return true;
    }

    // ---------------------------------------------------------------------
    // Minting (tests fund accounts with it)
    // ---------------------------------------------------------------------

    function mint(address to, uint256 amount) external returns (bool) {
        require(msg.sender == minter, "FiatToken: caller is not a minter");
        require(to != address(0), "FiatToken: mint to the zero address");
        require(amount > 0, "FiatToken: mint amount not greater than 0");
        _totalSupply += amount;
        _balances[to] += amount;
        emit Mint(msg.sender, to, amount);
        emit Transfer(address(0), to, amount);
        return true;
    }

    // ---------------------------------------------------------------------
    // EIP-712 / EIP-3009
    // ---------------------------------------------------------------------

    /// @notice The EIP-712 domain separator, computed for the current chain
    /// id and this contract's address (so it is right after a fork and when
    /// placed by genesis allocation).
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparator();
    }

    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        _cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    // ---------------------------------------------------------------------
    // EIP-2612
    // ---------------------------------------------------------------------

    /// @notice The nonce owner's next EIP-2612 permit must be signed with.
    function nonces(address owner) external view returns (uint256) {
        return _permitNonces[owner];
    }

    /// @notice Sets spender's allowance over owner's tokens to value, with
    /// owner's EIP-712 signature of Permit(owner, spender, value,
    /// nonces(owner), deadline) under the token's domain.
    function permit(
        address owner,
        address spender,
        uint256 value,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _permit(owner, spender, value, deadline, abi.encodePacked(r, s, v));
    }

    // ---------------------------------------------------------------------
    // Internals
    // ---------------------------------------------------------------------

    function _domainSeparator() internal view returns (bytes32) {
        return keccak256(
            abi.encode(
                EIP712_DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), block.chainid, address(this)
            )
        );
    }

    function _transferWithAuthorization(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) internal {
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        require(!_authorizationStates[from][nonce], "FiatTokenV2: authorization is used or canceled");
        bytes32 structHash = keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce));
        require(_isValidSignature(from, structHash, signature), "FiatTokenV2: invalid signature");

        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) internal {
        require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        require(_isValidSignature(authorizer, structHash, signature), "FiatTokenV2: invalid signature");

        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    /// @dev FiatToken v2's EIP2612._permit: the deadline (inclusive, or
    /// type(uint256).max for none), then the signature over the owner's
    /// current nonce, which a successful permit uses up.
    function _permit(address owner, address spender, uint256 value, uint256 deadline, bytes memory signature)
        internal
    {
        require(deadline == type(uint256).max || deadline >= block.timestamp, "FiatTokenV2: permit is expired");
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _permitNonces[owner]++, deadline));
        require(_isValidSignature(owner, structHash, signature), "EIP2612: invalid signature");
        _approve(owner, spender, value);
    }

    /// @dev FiatToken v2.2's SignatureChecker: a signer without code (an
    /// EOA) must have made signature, a valid 65-byte (r, s, v) ECDSA
    /// signature over the EIP-712 digest of structHash; a signer with code
    /// (a smart-contract wallet) must answer EIP-1271
    /// isValidSignature(digest, signature) with 0x1626ba7e. Both overloads
    /// (v, r, s and bytes) come here, as in FiatToken v2.2.
    function _isValidSignature(address signer, bytes32 structHash, bytes memory signature)
        internal
        view
        virtual
        returns (bool)
    {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", _domainSeparator(), structHash));
        if (signer.code.length == 0) {
            return _isValidECDSA(signer, digest, signature);
        }
        (bool ok, bytes memory result) =
            signer.staticcall(abi.encodeWithSelector(ERC1271_MAGIC_VALUE, digest, signature));
        return ok && result.length >= 32 && abi.decode(result, (bytes32)) == bytes32(ERC1271_MAGIC_VALUE);
    }

    /// @dev True when signature is a valid 65-byte (r, s, v) ECDSA signature
    /// by signer over digest. Wrong length, v not 27 or 28, s in the upper
    /// half of the curve order and a failed recovery all count as invalid.
    function _isValidECDSA(address signer, bytes32 digest, bytes memory signature) internal pure returns (bool) {
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
        address recovered = ecrecover(digest, v, r, s);
        return recovered != address(0) && recovered == signer;
    }

    function _approve(address owner, address spender, uint256 value) internal {
        require(owner != address(0), "ERC20: approve from the zero address");
        require(spender != address(0), "ERC20: approve to the zero address");
        _allowances[owner][spender] = value;
        emit Approval(owner, spender, value);
    }

    function _transfer(address from, address to, uint256 value) internal {
        require(from != address(0), "ERC20: transfer from the zero address");
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 balance = _balances[from];
        require(value <= balance, "ERC20: transfer amount exceeds balance");
        unchecked {
            _balances[from] = balance - value;
        }
        _balances[to] += value;
        emit Transfer(from, to, value);
    }
}

/// @title EIP3009Token
/// @notice FiatToken v2.2's surface: EIP3009Base plus the bytes-signature
/// overloads of transferWithAuthorization, receiveWithAuthorization,
/// cancelAuthorization and permit, through which smart-contract wallets
/// (EIP-1271) pay.
/// The development chain's token.
contract EIP3009Token is EIP3009Base {
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) external {
        _cancelAuthorization(authorizer, nonce, signature);
    }

    function permit(address owner, address spender, uint256 value, uint256 deadline, bytes memory signature)
        external
    {
        _permit(owner, spender, value, deadline, signature);
    }
}

/// @title EIP3009TokenNoBytes
/// @notice A token like FiatToken v2.0 and v2.1: the (v, r, s) functions only,
/// no bytes-signature overloads, and signatures checked by ECDSA recovery
/// alone. Tests use it to see a facilitator refuse smart-wallet payments on a
/// token that cannot settle them.
contract EIP3009TokenNoBytes is EIP3009Base {
    function _isValidSignature(address signer, bytes32 structHash, bytes memory signature)
        internal
        view
        override
        returns (bool)
    {
        return _isValidECDSA(signer, keccak256(abi.encodePacked("\x19\x01", _domainSeparator(), structHash)), signature);
    }
}
