package evm

import (
	"context"
	"errors"
	"math/big"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"
)

// chainService is the eth namespace of the test node: only eth_chainId.
type chainService struct{}

func (chainService) ChainId() *hexutil.Big { return (*hexutil.Big)(big.NewInt(338)) }

// testService answers test_square after a short wait (so that concurrent
// callers overlap) and test_fail with an error; it counts the calls.
type testService struct{ calls atomic.Int64 }

func (s *testService) Square(x int) int {
	s.calls.Add(1)
	time.Sleep(2 * time.Millisecond)
	return x * x
}

func (s *testService) Fail(x int) (int, error) {
	s.calls.Add(1)
	return 0, errors.New("refused")
}

// testNode is a real go-ethereum JSON-RPC server over HTTP.
func testNode(t *testing.T) (*Pool, *testService) {
	t.Helper()
	srv := rpc.NewServer()
	svc := &testService{}
	if err := srv.RegisterName("eth", chainService{}); err != nil {
		t.Fatal(err)
	}
	if err := srv.RegisterName("test", svc); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	t.Cleanup(srv.Stop)
	p, err := NewPool("test", big.NewInt(338), []string{hs.URL}, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.CheckChainIDs(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p, svc
}

// TestGatherShares runs 200 concurrent BatchShared calls of two elements (one
// that answers, one that fails): each gets its own results and errors, and
// they reach the node in far fewer round trips than calls.
func TestGatherShares(t *testing.T) {
	p, svc := testNode(t)
	before := p.Stats()[0].Requests
	const callers = 200
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sq, failed int
			elems := []rpc.BatchElem{
				{Method: "test_square", Args: []any{i}, Result: &sq},
				{Method: "test_fail", Args: []any{i}, Result: &failed},
			}
			if err := p.BatchShared(context.Background(), elems); err != nil {
				t.Errorf("caller %d: %v", i, err)
				return
			}
			if elems[0].Error != nil || sq != i*i {
				t.Errorf("caller %d: square = %d, %v; want %d", i, sq, elems[0].Error, i*i)
			}
			var re rpc.Error
			if !errors.As(elems[1].Error, &re) || re.Error() != "refused" {
				t.Errorf("caller %d: fail element error = %v, want the node's refusal", i, elems[1].Error)
			}
		}()
	}
	wg.Wait()
	if got := svc.calls.Load(); got != 2*callers {
		t.Errorf("the node ran %d calls, want %d", got, 2*callers)
	}
	trips := p.Stats()[0].Requests - before
	if trips > callers/4 {
		t.Errorf("%d callers took %d round trips; want them shared", callers, trips)
	}
	t.Logf("%d callers, %d round trips", callers, trips)
}

// TestGatherContext: a caller whose context has ended gets its error and
// is not sent; the others are not disturbed.
func TestGatherContext(t *testing.T) {
	p, svc := testNode(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var sq int
	err := p.BatchShared(ctx, []rpc.BatchElem{{Method: "test_square", Args: []any{3}, Result: &sq}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("BatchShared with an ended context = %v, want context.Canceled", err)
	}
	if err := p.BatchShared(context.Background(), []rpc.BatchElem{{Method: "test_square", Args: []any{4}, Result: &sq}}); err != nil || sq != 16 {
		t.Fatalf("BatchShared = %d, %v; want 16", sq, err)
	}
	time.Sleep(10 * time.Millisecond)
	if got := svc.calls.Load(); got > 1 {
		t.Errorf("the node ran %d calls; the ended caller's was sent", got)
	}
}
