package exact

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

var testDomain = evm.Domain{
	Name:              "Bridged USDC (Stargate)",
	Version:           "1",
	ChainID:           big.NewInt(338),
	VerifyingContract: common.HexToAddress("0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0"),
}

func testAuthorization() x402.Authorization {
	return x402.Authorization{
		From:        common.HexToAddress("0x1111111111111111111111111111111111111111"),
		To:          common.HexToAddress("0x2222222222222222222222222222222222222222"),
		Value:       big.NewInt(10000),
		ValidAfter:  big.NewInt(0),
		ValidBefore: big.NewInt(1900000000),
		Nonce:       [32]byte{1, 2, 3},
	}
}

// TestDigestMatchesTypedData checks our digest against go-ethereum's full
// EIP-712 implementation for several domains and messages.
func TestDigestMatchesTypedData(t *testing.T) {
	mainnet := testDomain
	mainnet.ChainID = big.NewInt(25)
	mainnet.Version = "2"
	big1 := testAuthorization()
	big1.Value = new(big.Int).Set(x402.MaxUint256)
	big1.ValidBefore = new(big.Int).Set(x402.MaxUint256)
	for _, tc := range []struct {
		name string
		d    evm.Domain
		a    x402.Authorization
	}{
		{"testnet", testDomain, testAuthorization()},
		{"mainnet v2", mainnet, testAuthorization()},
		{"uint256 max", testDomain, big1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, _, err := apitypes.TypedDataAndHash(TypedData(tc.d, tc.a))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Digest(tc.d, tc.a)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[:], want) {
				t.Fatalf("digest %x, go-ethereum typed data gives %x", got, want)
			}
		})
	}
}

func TestSignAndRecover(t *testing.T) {
	key, _ := crypto.GenerateKey()
	a := testAuthorization()
	a.From = crypto.PubkeyToAddress(key.PublicKey)
	sig, err := SignAuthorization(key, testDomain, a)
	if err != nil {
		t.Fatal(err)
	}
	if sig[64] != 27 && sig[64] != 28 {
		t.Fatalf("v = %d, want 27 or 28", sig[64])
	}
	h, _ := NewHasher(testDomain)
	got, err := h.Recover(&a, sig)
	if err != nil || got != a.From {
		t.Fatalf("recovered %s, %v; want %s", got.Hex(), err, a.From.Hex())
	}
	// Every field of the domain and the message is bound by the signature.
	other := testDomain
	other.ChainID = big.NewInt(25)
	h2, _ := NewHasher(other)
	if got, _ := h2.Recover(&a, sig); got == a.From {
		t.Fatal("signature for chain 338 recovered the signer on chain 25")
	}
	other = testDomain
	other.VerifyingContract = common.HexToAddress("0xf951eC28187D9E5Ca673Da8FE6757E6f0Be5F77C")
	h3, _ := NewHasher(other)
	if got, _ := h3.Recover(&a, sig); got == a.From {
		t.Fatal("signature for one token recovered the signer on another")
	}
	tampered := a
	tampered.Value = big.NewInt(10001)
	if got, _ := h.Recover(&tampered, sig); got == a.From {
		t.Fatal("a tampered value still recovered the signer")
	}
	// High-s (malleable) signatures are refused.
	n := crypto.S256().Params().N
	s := new(big.Int).SetBytes(sig[32:64])
	hi := new(big.Int).Sub(n, s)
	mal := append([]byte(nil), sig...)
	copy(mal[32:64], common.LeftPadBytes(hi.Bytes(), 32))
	mal[64] ^= 1
	if _, err := h.Recover(&a, mal); err == nil {
		t.Fatal("malleable high-s signature accepted")
	}
}

func BenchmarkEcrecover(b *testing.B) {
	key, _ := crypto.GenerateKey()
	digest := crypto.Keccak256([]byte("x402"))
	sig, _ := crypto.Sign(digest, key)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := crypto.Ecrecover(digest, sig); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDigestRefusesOutOfRange: a value or validity below zero or past
// uint256 has no EIP-712 encoding.
func TestDigestRefusesOutOfRange(t *testing.T) {
	for _, edit := range []func(*x402.Authorization){
		func(a *x402.Authorization) { a.Value = big.NewInt(-1) },
		func(a *x402.Authorization) { a.ValidAfter = new(big.Int).Lsh(big.NewInt(1), 256) },
		func(a *x402.Authorization) { a.ValidBefore = nil },
	} {
		a := testAuthorization()
		edit(&a)
		if d, err := Digest(testDomain, a); err == nil {
			t.Fatalf("digest of %+v = %x, want an error", a, d)
		}
	}
}
