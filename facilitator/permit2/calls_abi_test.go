package permit2

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// abiTestAuth is an authorization through proxy p with every field set.
func abiTestAuth(p Proxy) *Authorization {
	a := &Authorization{From: common.HexToAddress("0x857b06519E91e3A54538791bDbb0E22373e36b66"), Token: common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"),
		Amount: big.NewInt(5000000), Spender: p.Address(), Nonce: new(big.Int).Lsh(big.NewInt(7), 250), Deadline: big.NewInt(1740672154),
		To: common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C"), ValidAfter: big.NewInt(1740672089)}
	if p == UptoProxy {
		a.Facilitator = common.HexToAddress("0xBdBCA70E4Ef5738f447dE847944162095dAb17cD")
	}
	return a
}

// permit2Readers reads calldata with each of the four read-backs; ok
// says which accepted it.
func permit2Readers(data []byte) (ok [4]bool) {
	_, _, _, ok[0] = UptoSettleArgs(data)
	_, _, ok[1] = ExactSettleArgs(data)
	_, _, ok[2] = SettleWithPermitArgs(UptoProxy, data)
	_, _, ok[3] = SettleWithPermitArgs(ExactProxy, data)
	return ok
}

// permit2Calldatas are one valid calldata of each kind, indexed as
// permit2Readers.
func permit2Calldatas(t testing.TB) [4][]byte {
	sig := bytes.Repeat([]byte{0xab}, 65)
	permit := &EIP2612Permit{Value: big.NewInt(5000000), Deadline: big.NewInt(1740672154), V: 27}
	permit.R[0], permit.S[31] = 1, 2
	var out [4][]byte
	var errs [4]error
	out[0], errs[0] = UptoSettleCalldata(abiTestAuth(UptoProxy), big.NewInt(1234), sig)
	out[1], errs[1] = ExactSettleCalldata(abiTestAuth(ExactProxy), sig)
	out[2], errs[2] = SettleWithPermitCalldata(UptoProxy, permit, abiTestAuth(UptoProxy), big.NewInt(1234), sig)
	out[3], errs[3] = SettleWithPermitCalldata(ExactProxy, permit, abiTestAuth(ExactProxy), nil, sig)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("calldata %d: %v", i, err)
		}
	}
	return out
}

// TestPermit2ArgsRefuseMalformed: each read-back accepts its own calldata
// only, and refuses (ok false, no panic) the calldata truncated anywhere
// in its words, with the signature's offset or length out of range, or
// garbage; trailing bytes past the encoding are ignored, as Solidity's
// decoder does.
func TestPermit2ArgsRefuseMalformed(t *testing.T) {
	calldatas := permit2Calldatas(t)
	for i, data := range calldatas {
		ok := permit2Readers(data)
		for j := range ok {
			if ok[j] != (i == j) {
				t.Fatalf("calldata %d read by reader %d: %v", i, j, ok[j])
			}
		}
		// Truncated: the encoded signature ends 31 bytes before the
		// padded end, so every cut before that must be refused.
		for n := 0; n < len(data)-31; n++ {
			if ok := permit2Readers(data[:n]); ok != [4]bool{} {
				t.Fatalf("calldata %d cut to %d of %d bytes read: %v", i, n, len(data), ok)
			}
		}
		if ok := permit2Readers(append(append([]byte{}, data...), bytes.Repeat([]byte{0xff}, 100)...)); !ok[i] {
			t.Fatalf("calldata %d with trailing bytes refused", i)
		}
		// The signature's offset word, then its length word: set to values
		// past the calldata, up to 2^256-1.
		offsetWord := len(data) - 4 - 32*4 - 32 // the last head word before the signature (65 bytes: 3 words)
		for _, w := range []int{offsetWord, offsetWord + 32} {
			for _, v := range []*big.Int{big.NewInt(int64(len(data))), new(big.Int).SetUint64(1<<63 - 1), new(big.Int).SetUint64(1<<64 - 1), new(big.Int).Lsh(big.NewInt(1), 255), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))} {
				bad := append([]byte{}, data...)
				v.FillBytes(bad[4+w : 4+w+32])
				if ok := permit2Readers(bad); ok != [4]bool{} {
					t.Fatalf("calldata %d with word %d set to %s read: %v", i, w/32, v, ok)
				}
			}
		}
	}
	for _, garbage := range [][]byte{nil, {}, {0x01}, calldatas[0][:4], bytes.Repeat([]byte{0xff}, 600), append(append([]byte{}, calldatas[0][:4]...), bytes.Repeat([]byte{0xff}, 600)...)} {
		if ok := permit2Readers(garbage); ok != [4]bool{} {
			t.Fatalf("garbage %x read: %v", garbage, ok)
		}
	}
}

// TestSettleWithPermitAmountChecked: an upto settleWithPermit without an
// amount, or one out of the uint256 range, is an error (the ABI encoder
// panicked on a nil amount and wrapped a negative one).
func TestSettleWithPermitAmountChecked(t *testing.T) {
	permit := &EIP2612Permit{Value: big.NewInt(1), Deadline: big.NewInt(2)}
	for _, amount := range []*big.Int{nil, big.NewInt(-1), new(big.Int).Lsh(big.NewInt(1), 256)} {
		if _, err := SettleWithPermitCalldata(UptoProxy, permit, abiTestAuth(UptoProxy), amount, nil); err == nil || err.Error() != "settle amount missing or out of the uint256 range" {
			t.Fatalf("amount %v: %v", amount, err)
		}
	}
}

// FuzzPermit2SettleArgs: no input panics a read-back, and what one accepts
// packs again and reads back the same.
func FuzzPermit2SettleArgs(f *testing.F) {
	for _, data := range permit2Calldatas(f) {
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if a, amount, sig, ok := UptoSettleArgs(data); ok {
			again, err := UptoSettleCalldata(a, amount, sig)
			if err != nil {
				t.Fatal(err)
			}
			b, amount2, sig2, ok := UptoSettleArgs(again)
			if !ok || !samePermit2(a, b) || amount2.Cmp(amount) != 0 || !bytes.Equal(sig, sig2) {
				t.Fatalf("upto settle read back differently: %+v %+v", a, b)
			}
		}
		if a, sig, ok := ExactSettleArgs(data); ok {
			again, err := ExactSettleCalldata(a, sig)
			if err != nil {
				t.Fatal(err)
			}
			if b, sig2, ok := ExactSettleArgs(again); !ok || !samePermit2(a, b) || !bytes.Equal(sig, sig2) {
				t.Fatalf("exact settle read back differently: %+v %+v", a, b)
			}
		}
		SettleWithPermitArgs(UptoProxy, data)
		SettleWithPermitArgs(ExactProxy, data)
	})
}

// samePermit2 says whether two authorizations are equal field by field.
func samePermit2(a, b *Authorization) bool {
	return a.From == b.From && a.Token == b.Token && a.Spender == b.Spender && a.To == b.To && a.Facilitator == b.Facilitator &&
		a.Amount.Cmp(b.Amount) == 0 && a.Nonce.Cmp(b.Nonce) == 0 && a.Deadline.Cmp(b.Deadline) == 0 && a.ValidAfter.Cmp(b.ValidAfter) == 0
}
