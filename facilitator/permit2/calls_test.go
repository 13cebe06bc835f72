package permit2

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

func TestUptoSettleRoundTrip(t *testing.T) {
	a := &Authorization{From: common.HexToAddress("0x01"), Token: common.HexToAddress("0x02"), Amount: big.NewInt(500), Spender: UptoProxyAddress,
		Nonce: big.NewInt(77), Deadline: big.NewInt(999), To: common.HexToAddress("0x03"), Facilitator: common.HexToAddress("0x04"), ValidAfter: big.NewInt(5)}
	data, err := UptoSettleCalldata(a, big.NewInt(123), []byte{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	var p permitTuple
	p.Permitted.Token, p.Permitted.Amount, p.Nonce, p.Deadline = a.Token, a.Amount, a.Nonce, a.Deadline
	for _, sig := range [][]byte{{1, 2, 3}, make([]byte, 65), make([]byte, 64), nil} {
		want, err := CallsABI.Pack("settle", p, big.NewInt(123), a.From, uptoWitness{a.To, a.Facilitator, a.ValidAfter}, sig)
		if err != nil {
			t.Fatal(err)
		}
		got, err := UptoSettleCalldata(a, big.NewInt(123), sig)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("signature of %d bytes: calldata\n%x, want go-ethereum's\n%x", len(sig), got, want)
		}
	}
	b, amount, sig, ok := UptoSettleArgs(data)
	if !ok || amount.Int64() != 123 || len(sig) != 3 || b.From != a.From || b.Token != a.Token || b.Amount.Int64() != 500 || b.Nonce.Int64() != 77 || b.Deadline.Int64() != 999 || b.To != a.To || b.Facilitator != a.Facilitator || b.ValidAfter.Int64() != 5 {
		t.Fatalf("round trip: ok %v %+v %v %x", ok, b, amount, sig)
	}
}

// TestPermit2HasherMatches: the hand-written digest equals go-ethereum's
// typed-data digest (Digest) for both proxies, and Recover finds
// the signer.
func TestPermit2HasherMatches(t *testing.T) {
	key, err := crypto.HexToECDSA("087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4")
	if err != nil {
		t.Fatal(err)
	}
	max256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	for _, p := range []Proxy{ExactProxy, UptoProxy} {
		a := Authorization{From: crypto.PubkeyToAddress(key.PublicKey), Token: common.HexToAddress("0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0"), Amount: max256,
			Spender: p.Address(), Nonce: new(big.Int).Rsh(max256, 3), Deadline: big.NewInt(1740672154), To: common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C"), ValidAfter: big.NewInt(7)}
		if p == UptoProxy {
			a.Facilitator = common.HexToAddress("0xBdBCA70E4Ef5738f447dE847944162095dAb17cD")
		}
		h, err := NewHasher(p, big.NewInt(338))
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.Digest(&a)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Digest(p, big.NewInt(338), a)
		if err != nil || got != want {
			t.Fatalf("%s: digest %s, want %s (%v)", p, got, want, err)
		}
		sig, err := Sign(key, p, big.NewInt(338), a)
		if err != nil {
			t.Fatal(err)
		}
		if who, err := h.Recover(&a, sig); err != nil || who != a.From {
			t.Fatalf("%s: recovered %s, %v", p, who.Hex(), err)
		}
	}
}

func BenchmarkUptoCalldata(b *testing.B) {
	a := &Authorization{From: common.HexToAddress("0x01"), Token: common.HexToAddress("0x02"), Amount: big.NewInt(500), Spender: UptoProxyAddress,
		Nonce: big.NewInt(77), Deadline: big.NewInt(999), To: common.HexToAddress("0x03"), Facilitator: common.HexToAddress("0x04"), ValidAfter: big.NewInt(5)}
	sig := make([]byte, 65)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := UptoSettleCalldata(a, big.NewInt(123), sig); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePermit2Payload(b *testing.B) {
	raw := []byte(`{"signature":"0x2d6a7588d6acca505cbf0d9a4a227e0c52c6c34008c8e8986a1283259764173608a2ce6496642e377d6da8dbbf5836e9bd15092f9ecab05ded3d6293af148b571c","permit2Authorization":{"permitted":{"token":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","amount":"5000000"},"from":"0x857b06519E91e3A54538791bDbb0E22373e36b66","spender":"0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002","nonce":"110184447434339283590311226325066113574066093577938364624049467219858939671680","deadline":"1740672154","witness":{"to":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","facilitator":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","validAfter":"1740672089"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParsePayload(raw, true); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPermit2ReadCalls: the hand-encoded nonceBitmap and allowance calls
// are go-ethereum's ABI encoding.
func TestPermit2ReadCalls(t *testing.T) {
	owner := common.HexToAddress("0x857b06519E91e3A54538791bDbb0E22373e36b66")
	nonce := NonceBytes(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(3)))
	word, bit := NonceWord(nonce)
	if bit != 0xfd {
		t.Fatalf("bit %d", bit)
	}
	want, _ := CallsABI.Pack("nonceBitmap", owner, word)
	el, _ := NonceBitmapCall(owner, nonce, 0)
	if got := el.Args[0].(evm.CallArgs); got.To != Address || !bytes.Equal(got.Data, want) {
		t.Fatalf("nonceBitmap call %x, want %x", got.Data, want)
	}
	want, _ = CallsABI.Pack("allowance", owner, Address)
	token := common.HexToAddress("0x02")
	el, _ = AllowanceCall(token, owner)
	if got := el.Args[0].(evm.CallArgs); got.To != token || !bytes.Equal(got.Data, want) {
		t.Fatalf("allowance call %x, want %x", got.Data, want)
	}
}

// TestExactSettleCalldata: the exact proxy's settle, hand-encoded, is
// go-ethereum's ABI encoding, and reads back.
func TestExactSettleCalldata(t *testing.T) {
	a := &Authorization{From: common.HexToAddress("0x01"), Token: common.HexToAddress("0x02"), Amount: big.NewInt(500), Spender: ExactProxyAddress,
		Nonce: big.NewInt(77), Deadline: big.NewInt(999), To: common.HexToAddress("0x03"), ValidAfter: big.NewInt(5)}
	var p permitTuple
	p.Permitted.Token, p.Permitted.Amount, p.Nonce, p.Deadline = a.Token, a.Amount, a.Nonce, a.Deadline
	for _, sig := range [][]byte{{1, 2, 3}, make([]byte, 65), nil} {
		want, err := CallsABI.Pack("settle0", p, a.From, exactWitness{a.To, a.ValidAfter}, sig)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ExactSettleCalldata(a, sig)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("calldata\n%x, want\n%x", got, want)
		}
		b, s, ok := ExactSettleArgs(got)
		if !ok || b.From != a.From || b.To != a.To || b.Amount.Int64() != 500 || b.Nonce.Int64() != 77 || !bytes.Equal(s, sig) && len(sig) > 0 {
			t.Fatalf("read back %+v %x %v", b, s, ok)
		}
	}
	if _, _, _, ok := UptoSettleArgs(func() []byte { d, _ := ExactSettleCalldata(a, nil); return d }()); ok {
		t.Fatal("an exact settle read as an upto one")
	}
}
