package evm

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestCodeIdentity: wallets with the same code are the same for the
// cooling-off, except ERC-1967 proxies, which are the same only when they
// delegate to the same implementation and beacon (every proxy of a kind
// has the same bytecode: one in front of a lying implementation must not
// stand for all of them).
func TestCodeIdentity(t *testing.T) {
	code, other := []byte{0x60, 0x80, 0x60, 0x40}, []byte{0x60, 0x80}
	impl1, impl2 := common.HexToHash("0x01"), common.HexToHash("0x02")
	for _, c := range []struct {
		name string
		a, b common.Hash
		same bool
	}{
		{"same code, no proxy", CodeIdentity(code, common.Hash{}, common.Hash{}), CodeIdentity(code, common.Hash{}, common.Hash{}), true},
		{"other code", CodeIdentity(code, common.Hash{}, common.Hash{}), CodeIdentity(other, common.Hash{}, common.Hash{}), false},
		{"same proxy code, same implementation", CodeIdentity(code, impl1, common.Hash{}), CodeIdentity(code, impl1, common.Hash{}), true},
		{"same proxy code, other implementation", CodeIdentity(code, impl1, common.Hash{}), CodeIdentity(code, impl2, common.Hash{}), false},
		{"same proxy code, other beacon", CodeIdentity(code, common.Hash{}, impl1), CodeIdentity(code, common.Hash{}, impl2), false},
		{"implementation or beacon", CodeIdentity(code, impl1, common.Hash{}), CodeIdentity(code, common.Hash{}, impl1), false},
		{"a proxy is not its bare code", CodeIdentity(code, impl1, common.Hash{}), CodeIdentity(code, common.Hash{}, common.Hash{}), false},
	} {
		if (c.a == c.b) != c.same {
			t.Errorf("%s: same %v, want %v", c.name, c.a == c.b, c.same)
		}
	}
	if got := CodeIdentity(code, common.Hash{}, common.Hash{}); got != crypto.Keccak256Hash(code) {
		t.Errorf("a wallet that is no proxy: %s, want its code hash", got)
	}
}
