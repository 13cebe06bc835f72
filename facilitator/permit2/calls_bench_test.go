package permit2

import (
	"bytes"
	"math/big"
	"testing"
)

// wordsUptoSettleCalldata is the upto settle written word by word, as
// UptoSettleCalldata was before it used go-ethereum's ABI encoder: kept as
// the benchmark's baseline and checked equal to it.
func wordsUptoSettleCalldata(a *Authorization, amount *big.Int, sig []byte) []byte {
	const head = 10 // permit (4 words), amount, owner, witness (3 words), the signature's offset
	out := make([]byte, 4+32*(head+1)+(len(sig)+31)/32*32)
	copy(out, CallsABI.Methods["settle"].ID)
	w := out[4:]
	word := func(i int) []byte { return w[32*i : 32*i+32] }
	copy(word(0)[12:], a.Token[:])
	a.Amount.FillBytes(word(1))
	a.Nonce.FillBytes(word(2))
	a.Deadline.FillBytes(word(3))
	amount.FillBytes(word(4))
	copy(word(5)[12:], a.From[:])
	copy(word(6)[12:], a.To[:])
	copy(word(7)[12:], a.Facilitator[:])
	a.ValidAfter.FillBytes(word(8))
	new(big.Int).SetUint64(32 * head).FillBytes(word(9))
	new(big.Int).SetUint64(uint64(len(sig))).FillBytes(word(10))
	copy(w[32*(head+1):], sig)
	return out
}

// BenchmarkPermit2Calldata: an upto settle's calldata built then read
// back (what a verify and a settle do), by go-ethereum's ABI encoder
// ("abi") against the word-by-word baseline ("words"), in the same run.
func BenchmarkPermit2Calldata(b *testing.B) {
	a := abiTestAuth(UptoProxy)
	amount, sig := big.NewInt(1234), bytes.Repeat([]byte{0xab}, 65)
	if got, _ := UptoSettleCalldata(a, amount, sig); !bytes.Equal(got, wordsUptoSettleCalldata(a, amount, sig)) {
		b.Fatal("the baseline encodes differently")
	}
	for _, bb := range []struct {
		name  string
		build func() ([]byte, error)
	}{
		{"words", func() ([]byte, error) { return wordsUptoSettleCalldata(a, amount, sig), nil }},
		{"abi", func() ([]byte, error) { return UptoSettleCalldata(a, amount, sig) }},
	} {
		b.Run(bb.name+"/build", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bb.build(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bb.name+"/build+readback", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				data, err := bb.build()
				if err != nil {
					b.Fatal(err)
				}
				if _, _, _, ok := UptoSettleArgs(data); !ok {
					b.Fatal("not read back")
				}
			}
		})
	}
}
