package batch_test

// Helpers of the devnet tests: a chain, transactions, reads and revert names.

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
)

type testChain struct {
	t  *testing.T
	c  *devnet.Chain
	cl *ethclient.Client
}

func startChain(t *testing.T, cfg devnet.Config) *testChain {
	t.Helper()
	if cfg.BlockTime == 0 {
		cfg.BlockTime = 100 * time.Millisecond
	}
	c, err := devnet.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &testChain{t: t, c: c, cl: c.Client()}
}

func (tc *testChain) ctx() context.Context { return context.Background() }

// send signs and sends a transaction of data to to from key, waits for its
// receipt and returns it (status 1 or 0).
func (tc *testChain) send(key *ecdsa.PrivateKey, to common.Address, data []byte) *types.Receipt {
	tc.t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := tc.cl.PendingNonceAt(tc.ctx(), from)
	if err != nil {
		tc.t.Fatal(err)
	}
	tip := big.NewInt(1_000_000_000)
	head, err := tc.cl.HeaderByNumber(tc.ctx(), nil)
	if err != nil {
		tc.t.Fatal(err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(tc.c.ChainID()), &types.DynamicFeeTx{
		ChainID: tc.c.ChainID(), Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 3_000_000, To: &to, Data: data,
	})
	if err := tc.cl.SendTransaction(tc.ctx(), tx); err != nil {
		tc.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rc, err := tc.cl.TransactionReceipt(tc.ctx(), tx.Hash())
		if err == nil {
			return rc
		}
		time.Sleep(20 * time.Millisecond)
	}
	tc.t.Fatalf("transaction %s not mined", tx.Hash())
	return nil
}

// sendAll sends the calls from key in order without waiting, then waits
// for all their receipts, which must be successful.
func (tc *testChain) sendAll(what string, key *ecdsa.PrivateKey, to common.Address, calls [][]byte) []*types.Receipt {
	tc.t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := tc.cl.PendingNonceAt(tc.ctx(), from)
	if err != nil {
		tc.t.Fatal(err)
	}
	head, err := tc.cl.HeaderByNumber(tc.ctx(), nil)
	if err != nil {
		tc.t.Fatal(err)
	}
	tip := big.NewInt(1_000_000_000)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(4)), tip)
	var hashes []common.Hash
	for i, data := range calls {
		tx := types.MustSignNewTx(key, types.LatestSignerForChainID(tc.c.ChainID()), &types.DynamicFeeTx{
			ChainID: tc.c.ChainID(), Nonce: nonce + uint64(i), GasTipCap: tip, GasFeeCap: feeCap, Gas: 1_000_000, To: &to, Data: data,
		})
		if err := tc.cl.SendTransaction(tc.ctx(), tx); err != nil {
			tc.t.Fatal(err)
		}
		hashes = append(hashes, tx.Hash())
	}
	var out []*types.Receipt
	deadline := time.Now().Add(60 * time.Second)
	for _, h := range hashes {
		for {
			rc, err := tc.cl.TransactionReceipt(tc.ctx(), h)
			if err == nil {
				if rc.Status != types.ReceiptStatusSuccessful {
					tc.t.Fatalf("%s: %s reverted", what, h)
				}
				out = append(out, rc)
				break
			}
			if time.Now().After(deadline) {
				tc.t.Fatalf("%s: %s not mined", what, h)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return out
}

// mustSend is send that fails the test on a reverted transaction.
func (tc *testChain) mustSend(what string, key *ecdsa.PrivateKey, to common.Address, data []byte) *types.Receipt {
	tc.t.Helper()
	rc := tc.send(key, to, data)
	if rc.Status != types.ReceiptStatusSuccessful {
		tc.t.Fatalf("%s reverted; as a call: %s", what, tc.revert(crypto.PubkeyToAddress(key.PublicKey), to, data))
	}
	return rc
}

// call runs data against to as from at the latest block.
func (tc *testChain) call(from, to common.Address, data []byte) ([]byte, error) {
	return tc.cl.CallContract(tc.ctx(), ethereum.CallMsg{From: from, To: &to, Data: data}, nil)
}

// revertErrors are the custom errors the contracts (and Permit2) can revert with.
var revertErrors = func() map[[4]byte]abi.Error {
	m := map[[4]byte]abi.Error{}
	for _, md := range []string{token.X402BatchSettlementMetaData.ABI, token.ERC3009DepositCollectorMetaData.ABI, token.Permit2DepositCollectorMetaData.ABI, token.Permit2MetaData.ABI} {
		a, err := abi.JSON(strings.NewReader(md))
		if err != nil {
			panic(err)
		}
		for _, e := range a.Errors {
			var id [4]byte
			copy(id[:], e.ID[:4])
			m[id] = e
		}
	}
	return m
}()

// revert is the name (and string reason) a call reverts with: "ok" when
// it does not revert.
func (tc *testChain) revert(from, to common.Address, data []byte) string {
	_, err := tc.call(from, to, data)
	return revertName(err)
}

// revertName names the revert of a call's error; "ok" for no error.
func revertName(err error) string {
	if err == nil {
		return "ok"
	}
	var de rpc.DataError
	if !errors.As(err, &de) {
		return "error: " + err.Error()
	}
	s, _ := de.ErrorData().(string)
	raw, derr := hexutil.Decode(s)
	if derr != nil || len(raw) < 4 {
		return "revert without data: " + err.Error()
	}
	if reason, err := abi.UnpackRevert(raw); err == nil {
		return "Error(" + reason + ")"
	}
	var id [4]byte
	copy(id[:], raw[:4])
	if e, ok := revertErrors[id]; ok {
		return e.Name
	}
	return "unknown " + s
}

// state reads a channel through the calls the facilitator makes.
func (tc *testChain) state(id common.Hash) batch.ChannelState {
	tc.t.Helper()
	var res [3][]byte
	for i, data := range batch.ChannelReadCalls(id) {
		out, err := tc.call(common.Address{}, batch.SettlementAddress, data)
		if err != nil {
			tc.t.Fatal(err)
		}
		res[i] = out
	}
	s, err := batch.UnpackChannelState(res)
	if err != nil {
		tc.t.Fatal(err)
	}
	return s
}

func (tc *testChain) receiver(receiver, tok common.Address) batch.ReceiverState {
	tc.t.Helper()
	out, err := tc.call(common.Address{}, batch.SettlementAddress, batch.ReceiverReadCall(receiver, tok))
	if err != nil {
		tc.t.Fatal(err)
	}
	r, err := batch.UnpackReceiverState(out)
	if err != nil {
		tc.t.Fatal(err)
	}
	return r
}

func (tc *testChain) balance(a common.Address) *big.Int {
	tc.t.Helper()
	b, err := tc.c.BalanceOf(tc.ctx(), a)
	if err != nil {
		tc.t.Fatal(err)
	}
	return b
}

// eip2612 is owner's EIP-2612 permit of value to Permit2, as the Permit2
// collector's eip2612PermitData.
func (tc *testChain) eip2612(owner *ecdsa.PrivateKey, value, deadline *big.Int) []byte {
	tc.t.Helper()
	tok, err := token.NewEIP3009Token(tc.c.Token(), tc.cl)
	if err != nil {
		tc.t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(owner.PublicKey)
	nonce, err := tok.Nonces(nil, addr)
	if err != nil {
		tc.t.Fatal(err)
	}
	d, _, err := apitypes.TypedDataAndHash(apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"Permit":       {{Name: "owner", Type: "address"}, {Name: "spender", Type: "address"}, {Name: "value", Type: "uint256"}, {Name: "nonce", Type: "uint256"}, {Name: "deadline", Type: "uint256"}},
		},
		PrimaryType: "Permit",
		Domain:      apitypes.TypedDataDomain{Name: devnet.TokenName, Version: devnet.TokenVersion, ChainId: math.NewHexOrDecimal256(devnet.ChainID), VerifyingContract: tc.c.Token().Hex()},
		Message:     apitypes.TypedDataMessage{"owner": addr.Hex(), "spender": devnet.Permit2Address.Hex(), "value": value, "nonce": nonce, "deadline": deadline},
	})
	if err != nil {
		tc.t.Fatal(err)
	}
	sig, err := crypto.Sign(d, owner)
	if err != nil {
		tc.t.Fatal(err)
	}
	data, err := batch.EIP2612PermitData(value, deadline, sig)
	if err != nil {
		tc.t.Fatal(err)
	}
	return data
}

// logs counts the receipt's logs of the settlement contract with event name.
func logs(rc *types.Receipt, name string) int {
	ev, ok := batch.ABI.Events[name]
	if !ok {
		panic("no event " + name)
	}
	n := 0
	for _, l := range rc.Logs {
		if l.Address == batch.SettlementAddress && len(l.Topics) > 0 && l.Topics[0] == ev.ID {
			n++
		}
	}
	return n
}
