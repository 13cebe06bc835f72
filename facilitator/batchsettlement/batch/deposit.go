package batch

// A deposit's token authorization: EIP-3009 ReceiveWithAuthorization to the ERC-3009 collector,
// or a Permit2 witness transfer (DepositWitness) to the Permit2 collector; and the
// collectorData each collector decodes.

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
)

// The EIP-712 types of the deposit authorizations, as the published client
// signs them.
const (
	ReceiveWithAuthorizationType = "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
	// DepositWitnessTypeString is the Permit2 collector's
	// DEPOSIT_WITNESS_TYPE_STRING: the end of Permit2's
	// PermitWitnessTransferFrom type and the referenced types in order.
	DepositWitnessTypeString = "DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)"
	permitWitnessStub        = "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,"
)

var (
	receiveTypeHash        = crypto.Keccak256Hash([]byte(ReceiveWithAuthorizationType))
	permitWitnessTypeHash  = crypto.Keccak256Hash([]byte(permitWitnessStub + DepositWitnessTypeString))
	tokenPermissionsHash   = crypto.Keccak256Hash([]byte("TokenPermissions(address token,uint256 amount)"))
	depositWitnessTypeHash = crypto.Keccak256Hash([]byte("DepositWitness(bytes32 channelId)"))
)

// ERC3009DepositNonce is the EIP-3009 nonce of a deposit into channelID
// with salt: keccak256(abi.encode(channelId, uint256(salt))), which the
// ERC-3009 collector recomputes, so an authorization is bound to one
// channel.
func ERC3009DepositNonce(channelID common.Hash, salt *big.Int) (common.Hash, error) {
	s, err := bigWord("deposit salt", salt, 256)
	if err != nil {
		return common.Hash{}, err
	}
	return hashWords(channelID, s), nil
}

// ERC3009Deposit is a payer's EIP-3009 authorization of a deposit (the
// payload's deposit.amount and erc3009Authorization).
type ERC3009Deposit struct {
	// From is the payer.
	From common.Address
	// Value is the deposit amount.
	Value *big.Int
	// ValidAfter and ValidBefore bound the authorization (Unix seconds).
	ValidAfter, ValidBefore *big.Int
	// Salt and ChannelID make the nonce (ERC3009DepositNonce).
	Salt      *big.Int
	ChannelID common.Hash
}

// ERC3009DepositDigest is the digest the payer signs for d under the
// token's EIP-712 domain: ReceiveWithAuthorization{from, to:
// ERC3009CollectorAddress, value, validAfter, validBefore, nonce}.
func ERC3009DepositDigest(token evm.Domain, d ERC3009Deposit) (common.Hash, error) {
	sep, err := evm.DomainSeparator(token)
	if err != nil {
		return common.Hash{}, err
	}
	nonce, err := ERC3009DepositNonce(d.ChannelID, d.Salt)
	if err != nil {
		return common.Hash{}, err
	}
	ws := []word{receiveTypeHash, addrWord(d.From), addrWord(ERC3009CollectorAddress)}
	for _, f := range []struct {
		name string
		v    *big.Int
	}{{"deposit value", d.Value}, {"validAfter", d.ValidAfter}, {"validBefore", d.ValidBefore}} {
		w, err := bigWord(f.name, f.v, 256)
		if err != nil {
			return common.Hash{}, err
		}
		ws = append(ws, w)
	}
	return typedDataHash(sep, hashWords(append(ws, nonce)...)), nil
}

// Permit2Deposit is a payer's Permit2 authorization of a deposit (the
// payload's permit2Authorization): a witness transfer of Amount of Token,
// spender Permit2CollectorAddress, witness DepositWitness{ChannelID}.
type Permit2Deposit struct {
	Token     common.Address
	Amount    *big.Int
	Nonce     *big.Int
	Deadline  *big.Int
	ChannelID common.Hash
}

// Permit2DepositDigest is the digest the payer signs for d under Permit2's
// domain on chain chainID.
func Permit2DepositDigest(chainID *big.Int, d Permit2Deposit) (common.Hash, error) {
	sep, err := permit2.DomainSeparator(chainID)
	if err != nil {
		return common.Hash{}, err
	}
	amount, err := bigWord("Permit2 amount", d.Amount, 256)
	if err != nil {
		return common.Hash{}, err
	}
	nonce, err := bigWord("Permit2 nonce", d.Nonce, 256)
	if err != nil {
		return common.Hash{}, err
	}
	deadline, err := bigWord("Permit2 deadline", d.Deadline, 256)
	if err != nil {
		return common.Hash{}, err
	}
	permitted := hashWords(tokenPermissionsHash, addrWord(d.Token), amount)
	witness := hashWords(depositWitnessTypeHash, d.ChannelID)
	return typedDataHash(sep, hashWords(permitWitnessTypeHash, permitted, addrWord(Permit2CollectorAddress), nonce, deadline, witness)), nil
}

func abiType(t string) abi.Type {
	ty, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err) // a constant type string: a build defect
	}
	return ty
}

var (
	erc3009CollectorArgs = abi.Arguments{{Type: abiType("uint256")}, {Type: abiType("uint256")}, {Type: abiType("uint256")}, {Type: abiType("bytes")}}
	permit2CollectorArgs = abi.Arguments{{Type: abiType("uint256")}, {Type: abiType("uint256")}, {Type: abiType("bytes")}, {Type: abiType("bytes")}}
	eip2612PermitArgs    = abi.Arguments{{Type: abiType("uint256")}, {Type: abiType("uint256")}, {Type: abiType("uint8")}, {Type: abiType("bytes32")}, {Type: abiType("bytes32")}}
)

// ERC3009CollectorData is the ERC-3009 collector's collectorData:
// abi.encode(validAfter, validBefore, salt, signature). signature is the
// bare signature (an ERC-6492 wrapper removed).
func ERC3009CollectorData(validAfter, validBefore, salt *big.Int, signature []byte) ([]byte, error) {
	for _, f := range []struct {
		name string
		v    *big.Int
	}{{"validAfter", validAfter}, {"validBefore", validBefore}, {"salt", salt}} {
		if _, err := bigWord(f.name, f.v, 256); err != nil {
			return nil, err
		}
	}
	return erc3009CollectorArgs.Pack(validAfter, validBefore, salt, signature)
}

// Permit2CollectorData is the Permit2 collector's collectorData:
// abi.encode(nonce, deadline, permit2Signature, eip2612PermitData);
// eip2612PermitData is empty, or EIP2612PermitData's.
func Permit2CollectorData(nonce, deadline *big.Int, signature, eip2612PermitData []byte) ([]byte, error) {
	for _, f := range []struct {
		name string
		v    *big.Int
	}{{"nonce", nonce}, {"deadline", deadline}} {
		if _, err := bigWord(f.name, f.v, 256); err != nil {
			return nil, err
		}
	}
	if eip2612PermitData == nil {
		eip2612PermitData = []byte{}
	}
	return permit2CollectorArgs.Pack(nonce, deadline, signature, eip2612PermitData)
}

// EIP2612PermitData is the optional EIP-2612 part of the Permit2
// collector's data: abi.encode(value, deadline, v, r, s) of the payer's
// permit of the token to Permit2, for value equal to the deposit.
func EIP2612PermitData(value, deadline *big.Int, signature []byte) ([]byte, error) {
	if len(signature) != 65 {
		return nil, fmt.Errorf("EIP-2612 signature of %d bytes, want 65", len(signature))
	}
	var r, s [32]byte
	copy(r[:], signature[:32])
	copy(s[:], signature[32:64])
	v := signature[64]
	if v < 27 {
		v += 27
	}
	return eip2612PermitArgs.Pack(value, deadline, v, r, s)
}
