package permit2

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

func bigOf(t *testing.T, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 0)
	if !ok {
		t.Fatalf("bad number %q", s)
	}
	return v
}

// permit2ByHand computes the digest as Permit2 and the proxies do on
// chain, from the published type strings: the proxy hashes the witness
// with its WITNESS_TYPEHASH, Permit2 completes its
// "PermitWitnessTransferFrom(...," stub with the proxy's witness type
// string.
func permit2ByHand(p Proxy, chainID *big.Int, a Authorization) (digest, witness common.Hash) {
	word := func(b []byte) []byte { return common.LeftPadBytes(b, 32) }
	num := func(v *big.Int) []byte { return word(v.Bytes()) }
	if p == UptoProxy {
		witness = crypto.Keccak256Hash(crypto.Keccak256([]byte("Witness(address to,address facilitator,uint256 validAfter)")),
			word(a.To[:]), word(a.Facilitator[:]), num(a.ValidAfter))
	} else {
		witness = crypto.Keccak256Hash(crypto.Keccak256([]byte("Witness(address to,uint256 validAfter)")),
			word(a.To[:]), num(a.ValidAfter))
	}
	typeHash := crypto.Keccak256([]byte("PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline," + p.WitnessTypeString()))
	permitted := crypto.Keccak256(crypto.Keccak256([]byte("TokenPermissions(address token,uint256 amount)")), word(a.Token[:]), num(a.Amount))
	structHash := crypto.Keccak256(typeHash, permitted, word(a.Spender[:]), num(a.Nonce), num(a.Deadline), witness[:])
	sep := crypto.Keccak256(crypto.Keccak256([]byte("EIP712Domain(string name,uint256 chainId,address verifyingContract)")),
		crypto.Keccak256([]byte("Permit2")), num(chainID), word(Address[:]))
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, sep, structHash), witness
}

func TestPermit2Digest(t *testing.T) {
	// TEST ONLY: the devnet's buyer1 key, keccak256("caddy-x402 devnet buyer 1").
	key, err := crypto.HexToECDSA("087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4")
	if err != nil {
		t.Fatal(err)
	}
	buyer := crypto.PubkeyToAddress(key.PublicKey)
	token := common.HexToAddress("0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0")
	payTo := common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")
	fac := common.HexToAddress("0xBdBCA70E4Ef5738f447dE847944162095dAb17cD")
	max256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

	cases := []struct {
		name    string
		proxy   Proxy
		chainID int64
		a       Authorization
		// From the published client (@x402/evm 2.27.0 with viem 2.57.0,
		// facilitator/token/testdata/x402-client-signatures.json): its
		// viem hashTypedData and its signature. Empty: check by hand only.
		wantDigest, wantSig string
	}{
		{
			name: "upto, signed by @x402/evm", proxy: UptoProxy, chainID: 338,
			a: Authorization{
				From: buyer, Token: token, Amount: big.NewInt(2_000_000), Spender: UptoProxyAddress,
				Nonce:    bigOf(t, "84418692564212414434806404840702318993281954222663701923934204295033502236417"),
				Deadline: big.NewInt(2111002875), To: payTo, Facilitator: fac, ValidAfter: new(big.Int),
			},
			wantDigest: "0x3b01c094debf08aca22d4234215f297b68f47faddd7a8b5fdf74ead82016dee3",
			wantSig:    "0x4e52019f321a460402f9af7ce61162160e5a9a7a94b2cf591c8766b20d07491b7c7a7a3c3041186391461f045e7fc83e3c6c7eca1b34968ea21b525b77dc33531b",
		},
		{
			name: "exact, signed by @x402/evm", proxy: ExactProxy, chainID: 338,
			a: Authorization{
				From: buyer, Token: token, Amount: big.NewInt(1_500_000), Spender: ExactProxyAddress,
				Nonce:    bigOf(t, "73033949123667652627522971144075667109220411943970840489964953719210731345513"),
				Deadline: big.NewInt(2111002875), To: payTo, ValidAfter: new(big.Int),
			},
			wantDigest: "0x53ded848911a245698e5e62e14079fe54082e1df71d8782a91bf976423272846",
			wantSig:    "0xc07d01b346c3b46ca3fbefdba02380b9faca90f2f763dc8a4b251cec53a01d536ba6922da001a012aa7ad9303389a11c9c491cc7b991b04245081d1f91346dbd1c",
		},
		{
			name: "upto, extreme values", proxy: UptoProxy, chainID: 25,
			a: Authorization{
				From: buyer, Token: token, Amount: max256, Spender: UptoProxyAddress,
				Nonce: max256, Deadline: max256, To: payTo, Facilitator: fac, ValidAfter: max256,
			},
		},
		{
			name: "exact, zero values", proxy: ExactProxy, chainID: 84532,
			a: Authorization{
				Amount: new(big.Int), Spender: ExactProxyAddress,
				Nonce: new(big.Int), Deadline: new(big.Int), ValidAfter: new(big.Int),
			},
		},
		{
			name: "upto, another chain", proxy: UptoProxy, chainID: 1,
			a: Authorization{
				From: buyer, Token: token, Amount: big.NewInt(7), Spender: UptoProxyAddress,
				Nonce: big.NewInt(256), Deadline: big.NewInt(1 << 40), To: payTo, Facilitator: fac, ValidAfter: big.NewInt(1_700_000_000),
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chainID := big.NewInt(c.chainID)
			got, err := Digest(c.proxy, chainID, c.a)
			if err != nil {
				t.Fatal(err)
			}
			byHand, witness := permit2ByHand(c.proxy, chainID, c.a)
			if got != byHand {
				t.Fatalf("digest %s, by hand %s", got, byHand)
			}
			if c.wantDigest != "" && got.Hex() != c.wantDigest {
				t.Fatalf("digest %s, the published client's %s", got, c.wantDigest)
			}
			w, err := WitnessHash(c.proxy, c.a)
			if err != nil {
				t.Fatal(err)
			}
			if w != witness {
				t.Fatalf("witness hash %s, by hand %s", w, witness)
			}
			sig, err := Sign(key, c.proxy, chainID, c.a)
			if err != nil {
				t.Fatal(err)
			}
			if c.wantSig != "" && hexutil.Encode(sig) != c.wantSig {
				t.Fatalf("signature %x, the published client's %s", sig, c.wantSig)
			}
			rsv := common.CopyBytes(sig)
			rsv[64] -= 27
			pub, err := crypto.SigToPub(got[:], rsv)
			if err != nil {
				t.Fatal(err)
			}
			if crypto.PubkeyToAddress(*pub) != buyer {
				t.Fatal("signature does not recover the signer")
			}
		})
	}
}

func TestPermit2Refusals(t *testing.T) {
	ok := func() Authorization {
		return Authorization{Amount: big.NewInt(1), Nonce: big.NewInt(1), Deadline: big.NewInt(1), ValidAfter: big.NewInt(0)}
	}
	over := new(big.Int).Lsh(big.NewInt(1), 256)
	cases := []struct {
		name    string
		proxy   Proxy
		chainID *big.Int
		edit    func(*Authorization)
		want    string
	}{
		{"unknown proxy", Proxy(7), big.NewInt(338), func(*Authorization) {}, "unknown Permit2 proxy 7"},
		{"no amount", UptoProxy, big.NewInt(338), func(a *Authorization) { a.Amount = nil }, "Permit2 authorization amount missing or out of the uint256 range"},
		{"negative nonce", UptoProxy, big.NewInt(338), func(a *Authorization) { a.Nonce = big.NewInt(-1) }, "Permit2 authorization nonce missing or out of the uint256 range"},
		{"deadline above uint256", ExactProxy, big.NewInt(338), func(a *Authorization) { a.Deadline = over }, "Permit2 authorization deadline missing or out of the uint256 range"},
		{"no validAfter", ExactProxy, big.NewInt(338), func(a *Authorization) { a.ValidAfter = nil }, "Permit2 authorization validAfter missing or out of the uint256 range"},
		{"facilitator in exact", ExactProxy, big.NewInt(338), func(a *Authorization) { a.Facilitator = common.HexToAddress("0x01") }, "an exact Permit2 witness has no facilitator"},
		{"no chain", UptoProxy, nil, func(*Authorization) {}, "Permit2 domain without a chain ID"},
		{"chain 0", UptoProxy, new(big.Int), func(*Authorization) {}, "Permit2 domain without a chain ID"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := ok()
			c.edit(&a)
			_, err := Digest(c.proxy, c.chainID, a)
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

func TestPermit2ProxyNames(t *testing.T) {
	for _, c := range []struct {
		p          Proxy
		name, addr string
		typeString string
	}{
		{ExactProxy, "exact", "0x402085c248EeA27D92E8b30b2C58ed07f9E20001", "Witness(address to,uint256 validAfter)"},
		{UptoProxy, "upto", "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002", "Witness(address to,address facilitator,uint256 validAfter)"},
		{Proxy(0), "Proxy(0)", "0x0000000000000000000000000000000000000000", ""},
	} {
		if c.p.String() != c.name || c.p.Address().Hex() != c.addr || !strings.HasSuffix(c.p.WitnessTypeString(), c.typeString) {
			t.Errorf("%d: %s %s %q", int(c.p), c.p, c.p.Address().Hex(), c.p.WitnessTypeString())
		}
	}
	// viem's hashDomain of {name "Permit2", chainId, verifyingContract
	// Address}; chain 1's is what Permit2 answers on Ethereum.
	for chainID, want := range map[int64]string{
		1:   "0x866a5aba21966af95d6c7ab78eb2b2fc913915c28be3b9aa07cc04ff903e3f28",
		338: "0x2769408bf60cd79f00df60d00d2c6edbffe747587dd92fae9495aed85cb73e14",
	} {
		sep, err := DomainSeparator(big.NewInt(chainID))
		if err != nil {
			t.Fatal(err)
		}
		if sep.Hex() != want {
			t.Errorf("chain %d: domain separator %s, want %s", chainID, sep.Hex(), want)
		}
	}
}
