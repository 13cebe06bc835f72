package evm

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

func TestUptoSettleRoundTrip(t *testing.T) {
	a := &Permit2Authorization{From: common.HexToAddress("0x01"), Token: common.HexToAddress("0x02"), Amount: big.NewInt(500), Spender: UptoPermit2ProxyAddress,
		Nonce: big.NewInt(77), Deadline: big.NewInt(999), To: common.HexToAddress("0x03"), Facilitator: common.HexToAddress("0x04"), ValidAfter: big.NewInt(5)}
	data, err := UptoSettleCalldata(a, big.NewInt(123), []byte{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	b, amount, sig, ok := UptoSettleArgs(data)
	if !ok || amount.Int64() != 123 || len(sig) != 3 || b.From != a.From || b.Token != a.Token || b.Amount.Int64() != 500 || b.Nonce.Int64() != 77 || b.Deadline.Int64() != 999 || b.To != a.To || b.Facilitator != a.Facilitator || b.ValidAfter.Int64() != 5 {
		t.Fatalf("round trip: ok %v %+v %v %x", ok, b, amount, sig)
	}
}

// TestPermit2HasherMatches: the hand-written digest equals go-ethereum's
// typed-data digest (Permit2Digest) for both proxies, and Recover finds
// the signer.
func TestPermit2HasherMatches(t *testing.T) {
	key, err := crypto.HexToECDSA("087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4")
	if err != nil {
		t.Fatal(err)
	}
	max256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	for _, p := range []Permit2Proxy{ExactPermit2, UptoPermit2} {
		a := Permit2Authorization{From: crypto.PubkeyToAddress(key.PublicKey), Token: common.HexToAddress("0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0"), Amount: max256,
			Spender: p.Address(), Nonce: new(big.Int).Rsh(max256, 3), Deadline: big.NewInt(1740672154), To: common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C"), ValidAfter: big.NewInt(7)}
		if p == UptoPermit2 {
			a.Facilitator = common.HexToAddress("0xBdBCA70E4Ef5738f447dE847944162095dAb17cD")
		}
		h, err := NewPermit2Hasher(p, big.NewInt(338))
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.Digest(&a)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Permit2Digest(p, big.NewInt(338), a)
		if err != nil || got != want {
			t.Fatalf("%s: digest %s, want %s (%v)", p, got, want, err)
		}
		sig, err := SignPermit2(key, p, big.NewInt(338), a)
		if err != nil {
			t.Fatal(err)
		}
		if who, err := h.Recover(&a, sig); err != nil || who != a.From {
			t.Fatalf("%s: recovered %s, %v", p, who.Hex(), err)
		}
	}
}
