package devnet

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// TestMulticall3: Multicall3 answers at its canonical address as the x402
// reference facilitators call it: tryAggregate(false, calls) returns each
// call's outcome, a failing one included; tryAggregate(true, ...) and
// aggregate revert with Multicall3's reason when one fails.
func TestMulticall3(t *testing.T) {
	t.Parallel()
	c := start(t, Config{BlockTime: 200 * time.Millisecond})
	mc, err := abi.JSON(strings.NewReader(`[
	 {"type":"function","name":"tryAggregate","stateMutability":"payable","inputs":[{"name":"requireSuccess","type":"bool"},{"name":"calls","type":"tuple[]","components":[{"name":"target","type":"address"},{"name":"callData","type":"bytes"}]}],"outputs":[{"name":"returnData","type":"tuple[]","components":[{"name":"success","type":"bool"},{"name":"returnData","type":"bytes"}]}]},
	 {"type":"function","name":"getChainId","stateMutability":"view","inputs":[],"outputs":[{"name":"chainid","type":"uint256"}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	erc20, _ := abi.JSON(strings.NewReader(`[{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"a","type":"address"}],"outputs":[{"name":"","type":"uint256"}]},
	 {"type":"function","name":"transfer","stateMutability":"nonpayable","inputs":[{"name":"to","type":"address"},{"name":"v","type":"uint256"}],"outputs":[{"name":"","type":"bool"}]}]`))
	type call struct {
		Target   common.Address
		CallData []byte
	}
	bal, _ := erc20.Pack("balanceOf", c.Buyers()[0].Address)
	fail, _ := erc20.Pack("transfer", common.HexToAddress("0x1"), big.NewInt(1)) // Multicall3 holds no tokens
	calls := []call{{c.Token(), bal}, {c.Token(), fail}}
	run := func(require bool) ([]byte, error) {
		data, err := mc.Pack("tryAggregate", require, calls)
		if err != nil {
			t.Fatal(err)
		}
		return c.Client().CallContract(context.Background(), ethereum.CallMsg{To: &Multicall3Address, Data: data}, nil)
	}
	out, err := run(false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mc.Unpack("tryAggregate", out)
	if err != nil {
		t.Fatal(err)
	}
	rows := res[0].([]struct {
		Success    bool   `json:"success"`
		ReturnData []byte `json:"returnData"`
	})
	if len(rows) != 2 || !rows[0].Success || new(big.Int).SetBytes(rows[0].ReturnData).Cmp(BuyerTokens) != 0 || rows[1].Success {
		t.Fatalf("tryAggregate %+v", rows)
	}
	if _, err := run(true); err == nil || !strings.Contains(err.Error(), "Multicall3: call failed") {
		t.Fatalf("tryAggregate(true) with a failing call: %v", err)
	}
	id, _ := mc.Pack("getChainId")
	if out, err := c.Client().CallContract(context.Background(), ethereum.CallMsg{To: &Multicall3Address, Data: id}, nil); err != nil || new(big.Int).SetBytes(out).Int64() != ChainID {
		t.Fatalf("getChainId %x, %v", out, err)
	}
}
