package token

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

var (
	gasMoney  = new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))
	oneToken  = big.NewInt(1_000_000)
	thousand  = big.NewInt(1_000_000_000)
	secpN     = crypto.S256().Params().N
	genesisAt = common.HexToAddress("0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0")
)

// preAmsterdam runs the chain without the Amsterdam and Bogota forks that
// the dev chain config enables, whose gas schedule is far from Cronos'.
func preAmsterdam(_ *node.Config, ethConf *ethconfig.Config) {
	cfg := *params.AllDevChainProtocolChanges
	cfg.AmsterdamTime, cfg.BogotaTime = nil, nil
	ethConf.Genesis.Config = &cfg
}

func testKey(t *testing.T, seed string) (*ecdsa.PrivateKey, common.Address) {
	t.Helper()
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(seed)))
	if err != nil {
		t.Fatal(err)
	}
	return k, crypto.PubkeyToAddress(k.PublicKey)
}

// env is a simulated chain with a token on it.
type env struct {
	sim     *simulated.Backend
	client  simulated.Client
	chainID *big.Int
	addr    common.Address
	tok     *EIP3009Token
	abi     *abi.ABI

	minterKey, buyerKey, relayerKey, strangerKey *ecdsa.PrivateKey
	minter, buyer, relayer, stranger, payee      common.Address
}

// newEnv starts a chain whose token either is deployed through the bindings
// (and funds the buyer by mint) or is placed by genesis allocation.
func newEnv(t *testing.T, viaGenesis bool) *env {
	t.Helper()
	e := &env{}
	e.minterKey, e.minter = testKey(t, "token test minter")
	e.buyerKey, e.buyer = testKey(t, "token test buyer")
	e.relayerKey, e.relayer = testKey(t, "token test relayer")
	e.strangerKey, e.stranger = testKey(t, "token test stranger")
	_, e.payee = testKey(t, "token test payee")

	alloc := types.GenesisAlloc{
		e.minter:   {Balance: gasMoney},
		e.buyer:    {Balance: gasMoney},
		e.relayer:  {Balance: gasMoney},
		e.stranger: {Balance: gasMoney},
	}
	if viaGenesis {
		alloc[genesisAt] = types.Account{
			Code:    RuntimeCode(),
			Storage: GenesisStorage(e.minter, map[common.Address]*big.Int{e.buyer: thousand}),
			Balance: new(big.Int),
		}
	}
	e.sim = simulated.NewBackend(alloc, preAmsterdam)
	t.Cleanup(func() { e.sim.Close() })
	e.sim.Commit() // genesis has timestamp 0: no authorization is valid yet
	e.client = e.sim.Client()
	var err error
	if e.chainID, err = e.client.ChainID(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e.abi, err = ABI(); err != nil {
		t.Fatal(err)
	}

	if viaGenesis {
		e.addr = genesisAt
		if e.tok, err = NewEIP3009Token(e.addr, e.client); err != nil {
			t.Fatal(err)
		}
		return e
	}
	addr, tx, tok, err := DeployEIP3009Token(e.opts(t, e.minterKey), e.client)
	if err != nil {
		t.Fatal(err)
	}
	e.mined(t, tx)
	e.addr, e.tok = addr, tok
	e.mined(t, e.must(t)(e.tok.Mint(e.opts(t, e.minterKey), e.buyer, thousand)))
	return e
}

func (e *env) opts(t *testing.T, k *ecdsa.PrivateKey) *bind.TransactOpts {
	t.Helper()
	o, err := bind.NewKeyedTransactorWithChainID(k, e.chainID)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func (e *env) must(t *testing.T) func(*types.Transaction, error) *types.Transaction {
	return func(tx *types.Transaction, err error) *types.Transaction {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
}

// mined seals a block and requires tx to have succeeded in it.
func (e *env) mined(t *testing.T, tx *types.Transaction) *types.Receipt {
	t.Helper()
	e.sim.Commit()
	r, err := e.client.TransactionReceipt(context.Background(), tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("tx %s failed", tx.Hash())
	}
	return r
}

func (e *env) balance(t *testing.T, a common.Address) *big.Int {
	t.Helper()
	b, err := e.tok.BalanceOf(nil, a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// auth is one EIP-3009 authorization.
type auth struct {
	primary                    string // TransferWithAuthorization or ReceiveWithAuthorization
	from, to                   common.Address
	value, validAfter, validBe *big.Int
	nonce                      [32]byte
}

func (e *env) newAuth(t *testing.T, value *big.Int, nonceSeed string) auth {
	t.Helper()
	var nonce [32]byte
	copy(nonce[:], crypto.Keccak256([]byte(nonceSeed)))
	return auth{
		primary: "TransferWithAuthorization",
		from:    e.buyer, to: e.payee, value: value,
		validAfter: big.NewInt(0), validBe: big.NewInt(1 << 40),
		nonce: nonce,
	}
}

func authTypes(primary string) apitypes.Types {
	return apitypes.Types{
		"EIP712Domain": {
			{Name: "name", Type: "string"},
			{Name: "version", Type: "string"},
			{Name: "chainId", Type: "uint256"},
			{Name: "verifyingContract", Type: "address"},
		},
		primary: {
			{Name: "from", Type: "address"},
			{Name: "to", Type: "address"},
			{Name: "value", Type: "uint256"},
			{Name: "validAfter", Type: "uint256"},
			{Name: "validBefore", Type: "uint256"},
			{Name: "nonce", Type: "bytes32"},
		},
	}
}

func (e *env) domain() apitypes.TypedDataDomain {
	return apitypes.TypedDataDomain{
		Name:              "Bridged USDC (Stargate)",
		Version:           "1",
		ChainId:           math.NewHexOrDecimal256(e.chainID.Int64()),
		VerifyingContract: e.addr.Hex(),
	}
}

// sign returns the 65-byte r||s||v signature (v is 27 or 28) of a by k.
func (e *env) sign(t *testing.T, k *ecdsa.PrivateKey, a auth) []byte {
	t.Helper()
	td := apitypes.TypedData{
		Types:       authTypes(a.primary),
		PrimaryType: a.primary,
		Domain:      e.domain(),
		Message: apitypes.TypedDataMessage{
			"from":        a.from.Hex(),
			"to":          a.to.Hex(),
			"value":       a.value.String(),
			"validAfter":  a.validAfter.String(),
			"validBefore": a.validBe.String(),
			"nonce":       hexutil.Encode(a.nonce[:]),
		},
	}
	return signTyped(t, k, td)
}

func (e *env) signCancel(t *testing.T, k *ecdsa.PrivateKey, authorizer common.Address, nonce [32]byte) []byte {
	t.Helper()
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": authTypes("x")["EIP712Domain"],
			"CancelAuthorization": {
				{Name: "authorizer", Type: "address"},
				{Name: "nonce", Type: "bytes32"},
			},
		},
		PrimaryType: "CancelAuthorization",
		Domain:      e.domain(),
		Message: apitypes.TypedDataMessage{
			"authorizer": authorizer.Hex(),
			"nonce":      hexutil.Encode(nonce[:]),
		},
	}
	return signTyped(t, k, td)
}

func splitSig(sig []byte) (v uint8, r, s [32]byte) {
	copy(r[:], sig[:32])
	copy(s[:], sig[32:64])
	return sig[64], r, s
}

// pack encodes a call; method "transferWithAuthorization" takes the bytes
// signature and "transferWithAuthorization0" takes (v, r, s), as in the
// bindings.
func (e *env) pack(t *testing.T, method string, args ...any) []byte {
	t.Helper()
	data, err := e.abi.Pack(method, args...)
	if err != nil {
		t.Fatalf("pack %s: %v", method, err)
	}
	return data
}

func (e *env) packAuth(t *testing.T, method string, a auth, sig []byte) []byte {
	t.Helper()
	if method == "transferWithAuthorization0" || method == "receiveWithAuthorization0" {
		v, r, s := splitSig(sig)
		return e.pack(t, method, a.from, a.to, a.value, a.validAfter, a.validBe, a.nonce, v, r, s)
	}
	return e.pack(t, method, a.from, a.to, a.value, a.validAfter, a.validBe, a.nonce, sig)
}

// revertReason runs an eth_call and returns its revert string ("" when the
// call succeeds).
func (e *env) revertReason(t *testing.T, from common.Address, data []byte) string {
	t.Helper()
	_, err := e.client.CallContract(context.Background(), ethereum.CallMsg{From: from, To: &e.addr, Data: data}, nil)
	if err == nil {
		return ""
	}
	var de rpc.DataError
	if !errors.As(err, &de) {
		t.Fatalf("call error without data: %v", err)
	}
	s, ok := de.ErrorData().(string)
	if !ok {
		t.Fatalf("error data %T %v", de.ErrorData(), de.ErrorData())
	}
	raw, err := hexutil.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	reason, err := abi.UnpackRevert(raw)
	if err != nil {
		t.Fatalf("unpack revert %x: %v", raw, err)
	}
	return reason
}

func TestMetadataAndDomain(t *testing.T) {
	for _, viaGenesis := range []bool{false, true} {
		e := newEnv(t, viaGenesis)
		name, _ := e.tok.Name(nil)
		symbol, _ := e.tok.Symbol(nil)
		version, _ := e.tok.Version(nil)
		decimals, _ := e.tok.Decimals(nil)
		if name != "Bridged USDC (Stargate)" || symbol != "devUSDC.e" || version != "1" || decimals != 6 {
			t.Fatalf("genesis=%v: got %q %q %q %d", viaGenesis, name, symbol, version, decimals)
		}
		minter, _ := e.tok.Minter(nil)
		supply, _ := e.tok.TotalSupply(nil)
		if minter != e.minter || supply.Cmp(thousand) != 0 || e.balance(t, e.buyer).Cmp(thousand) != 0 {
			t.Fatalf("genesis=%v: minter %s supply %s buyer %s", viaGenesis, minter, supply, e.balance(t, e.buyer))
		}

		ds, err := e.tok.DOMAINSEPARATOR(nil)
		if err != nil {
			t.Fatal(err)
		}
		td := apitypes.TypedData{Types: authTypes("x"), Domain: e.domain()}
		want, err := td.HashStruct("EIP712Domain", td.Domain.Map())
		if err != nil {
			t.Fatal(err)
		}
		if common.Hash(ds) != common.BytesToHash(want) {
			t.Fatalf("genesis=%v: DOMAIN_SEPARATOR %x, want %x", viaGenesis, ds, want)
		}
	}
}

func TestTypehashes(t *testing.T) {
	e := newEnv(t, true)
	for _, c := range []struct {
		get  func(*bind.CallOpts) ([32]byte, error)
		want string
	}{
		{e.tok.TRANSFERWITHAUTHORIZATIONTYPEHASH, "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"},
		{e.tok.RECEIVEWITHAUTHORIZATIONTYPEHASH, "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"},
		{e.tok.CANCELAUTHORIZATIONTYPEHASH, "CancelAuthorization(address authorizer,bytes32 nonce)"},
	} {
		got, err := c.get(nil)
		if err != nil {
			t.Fatal(err)
		}
		if common.Hash(got) != crypto.Keccak256Hash([]byte(c.want)) {
			t.Errorf("typehash of %s: %x", c.want, got)
		}
	}
}

// TestTransferWithAuthorization sends signed authorizations in both
// signature forms, on a deployed and on a genesis-placed token.
func TestTransferWithAuthorization(t *testing.T) {
	for _, viaGenesis := range []bool{false, true} {
		e := newEnv(t, viaGenesis)
		value := new(big.Int).Mul(big.NewInt(10), oneToken)

		a := e.newAuth(t, value, "vrs")
		v, r, s := splitSig(e.sign(t, e.buyerKey, a))
		rc := e.mined(t, e.must(t)(e.tok.TransferWithAuthorization0(e.opts(t, e.relayerKey), a.from, a.to, a.value, a.validAfter, a.validBe, a.nonce, v, r, s)))
		t.Logf("genesis=%v: transferWithAuthorization(v,r,s) gas used %d", viaGenesis, rc.GasUsed)
		if len(rc.Logs) != 2 {
			t.Fatalf("want AuthorizationUsed and Transfer logs, got %d", len(rc.Logs))
		}
		if used, _ := e.tok.AuthorizationState(nil, a.from, a.nonce); !used {
			t.Fatal("authorization not marked used")
		}

		b := e.newAuth(t, value, "bytes")
		rc = e.mined(t, e.must(t)(e.tok.TransferWithAuthorization(e.opts(t, e.relayerKey), b.from, b.to, b.value, b.validAfter, b.validBe, b.nonce, e.sign(t, e.buyerKey, b))))
		t.Logf("genesis=%v: transferWithAuthorization(bytes) gas used %d", viaGenesis, rc.GasUsed)

		// receiveWithAuthorization: the payee submits.
		c := e.newAuth(t, value, "receive")
		c.primary, c.to = "ReceiveWithAuthorization", e.relayer
		e.mined(t, e.must(t)(e.tok.ReceiveWithAuthorization(e.opts(t, e.relayerKey), c.from, c.to, c.value, c.validAfter, c.validBe, c.nonce, e.sign(t, e.buyerKey, c))))

		want := new(big.Int).Sub(thousand, new(big.Int).Mul(big.NewInt(3), value))
		if got := e.balance(t, e.buyer); got.Cmp(want) != 0 {
			t.Fatalf("buyer balance %s, want %s", got, want)
		}
		if got := e.balance(t, e.payee); got.Cmp(new(big.Int).Mul(big.NewInt(2), value)) != 0 {
			t.Fatalf("payee balance %s", got)
		}
		if got := e.balance(t, e.relayer); got.Cmp(value) != 0 {
			t.Fatalf("relayer balance %s", got)
		}
	}
}

func TestReverts(t *testing.T) {
	e := newEnv(t, true)

	// A used and a canceled nonce.
	used := e.newAuth(t, oneToken, "used")
	e.mined(t, e.must(t)(e.tok.TransferWithAuthorization(e.opts(t, e.relayerKey), used.from, used.to, used.value, used.validAfter, used.validBe, used.nonce, e.sign(t, e.buyerKey, used))))
	canceled := e.newAuth(t, oneToken, "canceled")
	e.mined(t, e.must(t)(e.tok.CancelAuthorization0(e.opts(t, e.relayerKey), e.buyer, canceled.nonce, e.signCancel(t, e.buyerKey, e.buyer, canceled.nonce))))
	if st, _ := e.tok.AuthorizationState(nil, e.buyer, canceled.nonce); !st {
		t.Fatal("canceled authorization not marked")
	}

	const (
		notYet    = "FiatTokenV2: authorization is not yet valid"
		expired   = "FiatTokenV2: authorization is expired"
		usedOrCan = "FiatTokenV2: authorization is used or canceled"
		badSig    = "FiatTokenV2: invalid signature"
		balance   = "ERC20: transfer amount exceeds balance"
		toZero    = "ERC20: transfer to the zero address"
		allowance = "ERC20: insufficient allowance"
		notMinter = "FiatToken: caller is not a minter"
		notPayee  = "FiatTokenV2: caller must be the payee"
	)
	// withAuth builds transferWithAuthorization calldata (both forms) for an
	// authorization modified by mod and signed (then optionally tampered
	// with) by the buyer.
	withAuth := func(method string, mod func(*auth), tamper func([]byte) []byte) func() []byte {
		return func() []byte {
			a := e.newAuth(t, oneToken, "fresh")
			if mod != nil {
				mod(&a)
			}
			sig := e.sign(t, e.buyerKey, a)
			if tamper != nil {
				sig = tamper(sig)
			}
			return e.packAuth(t, method, a, sig)
		}
	}
	highS := func(sig []byte) []byte {
		s := new(big.Int).SetBytes(sig[32:64])
		s.Sub(secpN, s)
		out := append([]byte(nil), sig...)
		s.FillBytes(out[32:64])
		out[64] ^= 1 // 27 <-> 28: the same signer, malleated
		return out
	}
	setV := func(v byte) func([]byte) []byte {
		return func(sig []byte) []byte { out := append([]byte(nil), sig...); out[64] = v; return out }
	}

	type tc struct {
		name string
		from common.Address
		data func() []byte
		want string
	}
	var cases []tc
	for _, m := range []string{"transferWithAuthorization", "transferWithAuthorization0"} {
		cases = append(cases,
			tc{m + "/valid", e.relayer, withAuth(m, nil, nil), ""},
			tc{m + "/not yet valid", e.relayer, withAuth(m, func(a *auth) { a.validAfter = big.NewInt(1 << 40); a.validBe = big.NewInt(1<<40 + 1) }, nil), notYet},
			tc{m + "/expired", e.relayer, withAuth(m, func(a *auth) { a.validBe = big.NewInt(1) }, nil), expired},
			tc{m + "/used", e.relayer, withAuth(m, func(a *auth) { *a = used }, nil), usedOrCan},
			tc{m + "/canceled", e.relayer, withAuth(m, func(a *auth) { a.nonce = canceled.nonce }, nil), usedOrCan},
			tc{m + "/wrong value", e.relayer, func() []byte {
				a := e.newAuth(t, oneToken, "fresh")
				sig := e.sign(t, e.buyerKey, a)
				a.value = big.NewInt(2)
				return e.packAuth(t, m, a, sig)
			}, badSig},
			tc{m + "/high s", e.relayer, withAuth(m, nil, highS), badSig},
			tc{m + "/v=29", e.relayer, withAuth(m, nil, setV(29)), badSig},
			tc{m + "/v=0", e.relayer, withAuth(m, nil, setV(0)), badSig},
			tc{m + "/exceeds balance", e.relayer, withAuth(m, func(a *auth) { a.value = new(big.Int).Add(thousand, oneToken) }, nil), balance},
			tc{m + "/to zero", e.relayer, withAuth(m, func(a *auth) { a.to = common.Address{} }, nil), toZero},
		)
	}
	cases = append(cases,
		tc{"wrong signer", e.relayer, func() []byte {
			a := e.newAuth(t, oneToken, "fresh")
			return e.packAuth(t, "transferWithAuthorization", a, e.sign(t, e.strangerKey, a))
		}, badSig},
		tc{"signature 64 bytes", e.relayer, withAuth("transferWithAuthorization", nil, func(s []byte) []byte { return s[:64] }), badSig},
		tc{"signature 66 bytes", e.relayer, withAuth("transferWithAuthorization", nil, func(s []byte) []byte { return append(s, 0) }), badSig},
		tc{"receive by non-payee", e.relayer, func() []byte {
			a := e.newAuth(t, oneToken, "fresh")
			a.primary = "ReceiveWithAuthorization"
			return e.packAuth(t, "receiveWithAuthorization", a, e.sign(t, e.buyerKey, a))
		}, notPayee},
		tc{"receive signed as transfer", e.payee, func() []byte {
			a := e.newAuth(t, oneToken, "fresh")
			return e.packAuth(t, "receiveWithAuthorization", a, e.sign(t, e.buyerKey, a))
		}, badSig},
		tc{"cancel used", e.relayer, func() []byte {
			return e.pack(t, "cancelAuthorization0", e.buyer, used.nonce, e.signCancel(t, e.buyerKey, e.buyer, used.nonce))
		}, usedOrCan},
		tc{"cancel by other signer", e.relayer, func() []byte {
			var n [32]byte
			return e.pack(t, "cancelAuthorization0", e.buyer, n, e.signCancel(t, e.strangerKey, e.buyer, n))
		}, badSig},
		tc{"transfer exceeds balance", e.stranger, func() []byte { return e.pack(t, "transfer", e.payee, big.NewInt(1)) }, balance},
		tc{"transfer to zero", e.buyer, func() []byte { return e.pack(t, "transfer", common.Address{}, big.NewInt(1)) }, toZero},
		tc{"transfer ok", e.buyer, func() []byte { return e.pack(t, "transfer", e.payee, big.NewInt(1)) }, ""},
		tc{"transferFrom without allowance", e.relayer, func() []byte { return e.pack(t, "transferFrom", e.buyer, e.payee, big.NewInt(1)) }, allowance},
		tc{"mint by non-minter", e.stranger, func() []byte { return e.pack(t, "mint", e.stranger, oneToken) }, notMinter},
		tc{"mint by minter", e.minter, func() []byte { return e.pack(t, "mint", e.stranger, oneToken) }, ""},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := e.revertReason(t, c.from, c.data()); got != c.want {
				t.Fatalf("revert %q, want %q", got, c.want)
			}
		})
	}
}

func TestTransferFromWithAllowance(t *testing.T) {
	e := newEnv(t, true)
	e.mined(t, e.must(t)(e.tok.Approve(e.opts(t, e.buyerKey), e.relayer, oneToken)))
	if got := e.revertReason(t, e.relayer, e.pack(t, "transferFrom", e.buyer, e.payee, new(big.Int).Add(oneToken, big.NewInt(1)))); got != "ERC20: insufficient allowance" {
		t.Fatalf("got %q", got)
	}
	e.mined(t, e.must(t)(e.tok.TransferFrom(e.opts(t, e.relayerKey), e.buyer, e.payee, oneToken)))
	if got, _ := e.tok.Allowance(nil, e.buyer, e.relayer); got.Sign() != 0 {
		t.Fatalf("allowance left %s", got)
	}
	if got := e.balance(t, e.payee); got.Cmp(oneToken) != 0 {
		t.Fatalf("payee %s", got)
	}
}

func TestStorageLayout(t *testing.T) {
	art, err := LoadArtifact()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"minter":               "0",
		"_totalSupply":         "1",
		"_balances":            "2",
		"_allowances":          "3",
		"_authorizationStates": "4",
		"_permitNonces":        "5",
	}
	if len(art.StorageLayout.Storage) != len(want) {
		t.Fatalf("storage layout has %d entries", len(art.StorageLayout.Storage))
	}
	for _, s := range art.StorageLayout.Storage {
		if want[s.Label] != s.Slot || s.Offset != 0 {
			t.Errorf("%s at slot %s offset %d, want slot %s", s.Label, s.Slot, s.Offset, want[s.Label])
		}
	}
	if n, ok := StorageSlot("_balances"); !ok || n != 2 {
		t.Fatalf("StorageSlot(_balances) = %d, %v", n, ok)
	}
	// The embedded artifact and the generated bindings come from one build.
	if common.Bytes2Hex(art.Bytecode) != EIP3009TokenMetaData.Bin[2:] {
		t.Fatal("EIP3009Token.json bytecode differs from token.go; rerun gen.sh")
	}
	if len(RuntimeCode()) == 0 {
		t.Fatal("no runtime code")
	}
	// The runtime code is what the constructor returns.
	e := newEnv(t, false)
	code, err := e.client.CodeAt(context.Background(), e.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if common.Bytes2Hex(code) != common.Bytes2Hex(RuntimeCode()) {
		t.Fatal("deployed code differs from RuntimeCode")
	}
}

// signTyped signs EIP-712 typed data with go-ethereum's reference
// implementation and returns r||s||v with v as 27 or 28.
func signTyped(t *testing.T, k *ecdsa.PrivateKey, td apitypes.TypedData) []byte {
	t.Helper()
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(digest, k)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return sig
}
