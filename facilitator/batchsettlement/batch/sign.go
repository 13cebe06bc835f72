package batch

// Signing with a key, as wallets sign typed data (65 bytes, v 27 or 28): the payer's vouchers
// and deposit authorizations, the receiver authorizer's claim batches and refunds.

import (
	"crypto/ecdsa"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// signDigest signs digest with key as a wallet signs typed data: r || s ||
// v with v 27 or 28.
func signDigest(key *ecdsa.PrivateKey, d common.Hash, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, errors.New("no signing key")
	}
	sig, err := crypto.Sign(d[:], key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}

// SignVoucher signs a voucher for channelID with ceiling maxClaimable on
// chain chainID (the payer's or its payer authorizer's key).
func SignVoucher(key *ecdsa.PrivateKey, chainID *big.Int, channelID common.Hash, maxClaimable *big.Int) ([]byte, error) {
	d, err := VoucherDigest(chainID, channelID, maxClaimable)
	return signDigest(key, d, err)
}

// SignRefund signs a cooperative refund of amount from channelID at refund
// nonce nonce (the receiver authorizer's key).
func SignRefund(key *ecdsa.PrivateKey, chainID *big.Int, channelID common.Hash, nonce, amount *big.Int) ([]byte, error) {
	d, err := RefundDigest(chainID, channelID, nonce, amount)
	return signDigest(key, d, err)
}

// SignClaimBatch signs a claim batch (the receiver authorizer's key).
func SignClaimBatch(key *ecdsa.PrivateKey, chainID *big.Int, claims []VoucherClaim) ([]byte, error) {
	d, err := ClaimBatchDigest(chainID, claims)
	return signDigest(key, d, err)
}

// SignERC3009Deposit signs an EIP-3009 deposit authorization under the
// token's domain (the payer's key).
func SignERC3009Deposit(key *ecdsa.PrivateKey, token evm.Domain, d ERC3009Deposit) ([]byte, error) {
	h, err := ERC3009DepositDigest(token, d)
	return signDigest(key, h, err)
}

// SignPermit2Deposit signs a Permit2 deposit authorization (the payer's key).
func SignPermit2Deposit(key *ecdsa.PrivateKey, chainID *big.Int, d Permit2Deposit) ([]byte, error) {
	h, err := Permit2DepositDigest(chainID, d)
	return signDigest(key, h, err)
}

// RecoverVoucherSigner is the address that signed a voucher (65-byte
// signature, v 27/28 or 0/1, s in the lower half as the contract demands),
// for the off-chain check of a voucher whose channel has a payer
// authorizer. A malformed signature is an error.
func RecoverVoucherSigner(chainID *big.Int, channelID common.Hash, maxClaimable *big.Int, sig []byte) (common.Address, error) {
	d, err := VoucherDigest(chainID, channelID, maxClaimable)
	if err != nil {
		return common.Address{}, err
	}
	return recoverSigner(d, sig)
}

// halfN is secp256k1n / 2.
var halfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

func recoverSigner(d common.Hash, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, errors.New("signature is not 65 bytes")
	}
	if new(big.Int).SetBytes(sig[32:64]).Cmp(halfN) > 0 {
		return common.Address{}, errors.New("signature s in the upper half of the curve order")
	}
	s := common.CopyBytes(sig)
	if s[64] >= 27 {
		s[64] -= 27
	}
	if s[64] > 1 {
		return common.Address{}, errors.New("signature v not 27 or 28")
	}
	// Ecrecover's 65-byte public key hashed straight into the address:
	// SigToPub would decode it into a curve point first, for nothing.
	pub, err := crypto.Ecrecover(d[:], s)
	if err != nil {
		return common.Address{}, err
	}
	return common.BytesToAddress(crypto.Keccak256(pub[1:])[12:]), nil
}
