package permit2

import (
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// Hasher computes the digests of Permit2 witness transfers through
// one proxy on one chain, and recovers their signers: the domain
// separator and type hashes once (from the proxies' published type
// strings), each message as its 32-byte words hashed with go-ethereum's
// keccak. Verify runs it on every request, so it does without
// go-ethereum's reflective typed-data encoder (Digest), whose
// digests it equals (permit2hash_test.go).
type Hasher struct {
	proxy     Proxy
	prefix    [34]byte // 0x19 0x01 ‖ Permit2's domain separator on the chain
	typeHash  common.Hash
	witness   common.Hash // the witness type hash
	permitted common.Hash // TokenPermissions' type hash
}

// NewHasher prepares the digests of proxy p on chain chainID.
func NewHasher(p Proxy, chainID *big.Int) (*Hasher, error) {
	if p != ExactProxy && p != UptoProxy {
		return nil, errors.New("unknown Permit2 proxy")
	}
	sep, err := DomainSeparator(chainID)
	if err != nil {
		return nil, err
	}
	h := &Hasher{proxy: p}
	h.prefix[0], h.prefix[1] = 0x19, 0x01
	copy(h.prefix[2:], sep[:])
	h.typeHash = crypto.Keccak256Hash([]byte("PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline," + p.WitnessTypeString()))
	h.permitted = crypto.Keccak256Hash([]byte("TokenPermissions(address token,uint256 amount)"))
	if p == UptoProxy {
		h.witness = crypto.Keccak256Hash([]byte("Witness(address to,address facilitator,uint256 validAfter)"))
	} else {
		h.witness = crypto.Keccak256Hash([]byte("Witness(address to,uint256 validAfter)"))
	}
	return h, nil
}

// Digest is the EIP-712 hash the buyer signs.
func (h *Hasher) Digest(a *Authorization) (common.Hash, error) {
	if err := a.check(h.proxy); err != nil {
		return common.Hash{}, err
	}
	var buf [6 * 32]byte
	word := func(i int) []byte { return buf[32*i : 32*i+32] }
	// Witness struct hash.
	copy(word(0), h.witness[:])
	copy(word(1)[12:], a.To[:])
	n := 2
	if h.proxy == UptoProxy {
		copy(word(2)[12:], a.Facilitator[:])
		n = 3
	}
	a.ValidAfter.FillBytes(word(n))
	witness := crypto.Keccak256Hash(buf[:32*(n+1)])
	// TokenPermissions struct hash.
	buf = [6 * 32]byte{}
	copy(word(0), h.permitted[:])
	copy(word(1)[12:], a.Token[:])
	a.Amount.FillBytes(word(2))
	permitted := crypto.Keccak256Hash(buf[:96])
	// PermitWitnessTransferFrom struct hash.
	buf = [6 * 32]byte{}
	copy(word(0), h.typeHash[:])
	copy(word(1), permitted[:])
	copy(word(2)[12:], a.Spender[:])
	a.Nonce.FillBytes(word(3))
	a.Deadline.FillBytes(word(4))
	copy(word(5), witness[:])
	structHash := crypto.Keccak256Hash(buf[:])
	var msg [66]byte
	copy(msg[:34], h.prefix[:])
	copy(msg[34:], structHash[:])
	return crypto.Keccak256Hash(msg[:]), nil
}

// Recover returns the address whose key signed a (65 bytes r‖s‖v, v 27/28
// or 0/1), refusing malleable (high-s) signatures as Permit2 does.
func (h *Hasher) Recover(a *Authorization, sig []byte) (common.Address, error) {
	if len(sig) != crypto.SignatureLength {
		return common.Address{}, errors.New("signature is not 65 bytes")
	}
	d, err := h.Digest(a)
	if err != nil {
		return common.Address{}, err
	}
	return evm.RecoverDigest(d, sig)
}
