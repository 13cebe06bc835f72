package facilitator

import (
	"context"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// HealthResponse is the body of GET /healthcheck (spec 2.4): uptime in
// seconds, responseTime as [seconds, nanoseconds] and timestamp in Unix
// milliseconds, as the Node.js reference service gives them. Networks is
// ours, beside the spec's fields: whether settling can work now.
type HealthResponse struct {
	Status   string          `json:"status"`
	Results  HealthResults   `json:"results"`
	Networks []NetworkHealth `json:"networks,omitempty"`
	// Storage is the shared store of several instances, when there is one.
	Storage *StorageHealth `json:"storage,omitempty"`
}

// StorageHealth tells whether this instance can use the shared store that
// it runs on with other instances (storage postgres).
type StorageHealth struct {
	// Backend is "postgres".
	Backend string `json:"backend"`
	// Where is the store's address with its credentials cut.
	Where string `json:"where"`
	// Instance is this instance's current lease in the store.
	Instance string `json:"instance"`
	// LeaseHolds is false while the instance cannot renew its lease (the
	// database is out of reach): paid requests are answered 503 then, and
	// nothing is broadcast.
	LeaseHolds bool `json:"leaseHolds"`
}

// HealthResults holds the fields of the spec's health result.
type HealthResults struct {
	Uptime       float64  `json:"uptime"`
	ResponseTime [2]int64 `json:"responseTime"`
	Message      string   `json:"message"`
	Timestamp    int64    `json:"timestamp"`
}

// NetworkHealth tells whether a network can settle now.
type NetworkHealth struct {
	// Network is the network's name.
	Network string `json:"network"`
	// CanSettle is true when the RPC answers, the head is recent and a
	// signer has gas money.
	CanSettle bool `json:"canSettle"`
	// RPCReachable says whether an RPC endpoint answered.
	RPCReachable bool `json:"rpcReachable"`
	// RPCError is why it did not.
	RPCError string `json:"rpcError,omitempty"`
	// Endpoints are the RPC endpoints, with the ones being skipped.
	Endpoints []evm.EndpointHealth `json:"endpoints"`
	// HeadBlock is the latest block number.
	HeadBlock uint64 `json:"headBlock,omitempty"`
	// HeadAgeSeconds is how old the latest block is, by its timestamp.
	HeadAgeSeconds float64 `json:"headAgeSeconds,omitempty"`
	// CheckedAt is when these facts were read from the chain, in Unix
	// milliseconds: health answers from a snapshot at most a second or two
	// old, so that a health request costs no RPC call.
	CheckedAt int64 `json:"checkedAt"`
	// Signers are the gas-paying keys with their balances.
	Signers []SignerHealth `json:"signers"`
	// PendingSettlements are broadcast and waiting for their block.
	PendingSettlements int `json:"pendingSettlements"`
	// Warnings say what an operator should look at.
	Warnings []string `json:"warnings,omitempty"`
}

// SignerHealth is one signer's gas balance.
type SignerHealth struct {
	Address string `json:"address"`
	// GasBalance is the native balance in wei, as a decimal string.
	GasBalance string `json:"gasBalance,omitempty"`
	// Low is true under the configured low-balance mark.
	Low bool `json:"low"`
	// NonceLag is how many of this key's transactions the node holds but
	// has not mined: its pending nonce minus its mined nonce. It stays near
	// zero; one that keeps growing means settlements are stuck (fees too
	// low, a node not mining). Absent when the node did not answer.
	NonceLag *uint64 `json:"nonceLag,omitempty"`
}

// staleHead is the head age past which a network is reported as not
// settling: its node has stopped following the chain.
const staleHead = 2 * time.Minute

// Health returns the health result with each network's facts. The facts
// come from a snapshot: one older than HealthMaxAge is refreshed in the
// background (one batched round trip per network) while this answer uses
// it, so health requests cost no RPC calls however many arrive. Only the
// very first call waits for the chain. start is when the request arrived.
func (f *Facilitator) Health(ctx context.Context, start time.Time) *HealthResponse {
	nets := f.healthNetworks(ctx)
	now := time.Now()
	took := now.Sub(start)
	return &HealthResponse{
		Status: "success",
		Results: HealthResults{
			Uptime:       now.Sub(f.started).Seconds(),
			ResponseTime: [2]int64{int64(took / time.Second), int64(took % time.Second)},
			Message:      "OK",
			Timestamp:    now.UnixMilli(),
		},
		Networks: nets,
		Storage:  f.storageHealth(),
	}
}

// storageHealth describes the shared store, if any; it asks the database
// nothing (the lease is renewed in the background).
func (f *Facilitator) storageHealth() *StorageHealth {
	shared, ok := f.journal.(store.Shared)
	if !ok {
		return nil
	}
	return &StorageHealth{Backend: "postgres", Where: shared.Where(), Instance: shared.Instance(), LeaseHolds: shared.Live()}
}

// checkNetworks reads every network's health facts from the chain.
func (f *Facilitator) checkNetworks(ctx context.Context) []NetworkHealth {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	nets := make([]NetworkHealth, len(f.networks))
	var wg sync.WaitGroup
	for i, n := range f.networks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nets[i] = f.networkHealth(ctx, n)
		}()
	}
	wg.Wait()
	return nets
}

func (f *Facilitator) networkHealth(ctx context.Context, n *network.Network) (h NetworkHealth) {
	h = NetworkHealth{Network: n.Cfg.Name, PendingSettlements: n.Engine.Pending(), Signers: []SignerHealth{},
		CheckedAt: time.Now().UnixMilli()}
	defer func() { h.Endpoints = n.Pool.Health() }() // after this check's own RPC failures
	var head struct {
		Number hexutil.Uint64 `json:"number"`
		Time   hexutil.Uint64 `json:"timestamp"`
	}
	elems := []rpc.BatchElem{{Method: "eth_getBlockByNumber", Args: []any{"latest", false}, Result: &head}}
	signers := n.Engine.Signers()
	balances := make([]hexutil.Big, len(signers))
	for i, s := range signers {
		elems = append(elems, rpc.BatchElem{Method: "eth_getBalance", Args: []any{s, "latest"}, Result: &balances[i]})
	}
	// Each signer's pending and mined nonces, after the balances.
	nonces := make([]hexutil.Uint64, 2*len(signers))
	for i, s := range signers {
		elems = append(elems,
			rpc.BatchElem{Method: "eth_getTransactionCount", Args: []any{s, "pending"}, Result: &nonces[2*i]},
			rpc.BatchElem{Method: "eth_getTransactionCount", Args: []any{s, "latest"}, Result: &nonces[2*i+1]})
	}
	if err := n.Pool.Batch(ctx, elems); err != nil || elems[0].Error != nil {
		if err == nil {
			err = elems[0].Error
		}
		h.RPCError = err.Error()
		h.Warnings = append(h.Warnings, "no RPC endpoint answers: settling cannot work")
		for _, s := range signers {
			h.Signers = append(h.Signers, SignerHealth{Address: s.Hex()})
		}
		return h
	}
	h.RPCReachable = true
	h.HeadBlock = uint64(head.Number)
	age := time.Since(time.Unix(int64(head.Time), 0))
	h.HeadAgeSeconds = max(age.Seconds(), 0)
	if age > staleHead {
		h.Warnings = append(h.Warnings, "the head block is "+age.Round(time.Second).String()+" old: the node may be lagging")
	}
	funded := 0
	for i, s := range signers {
		sh := SignerHealth{Address: s.Hex()}
		if elems[i+1].Error == nil {
			b := (*big.Int)(&balances[i])
			sh.GasBalance = b.String()
			sh.Low = b.Cmp(f.lowGas) < 0
			if b.Sign() > 0 {
				funded++
			}
			if sh.Low {
				h.Warnings = append(h.Warnings, "signer "+sh.Address+" is low on gas money: fund it")
			}
		}
		pe, me := elems[1+len(signers)+2*i], elems[2+len(signers)+2*i]
		if pe.Error == nil && me.Error == nil {
			lag := uint64(0)
			if pending, mined := uint64(nonces[2*i]), uint64(nonces[2*i+1]); pending > mined {
				lag = pending - mined
			}
			sh.NonceLag = &lag
		}
		h.Signers = append(h.Signers, sh)
	}
	if len(signers) == 0 {
		h.Warnings = append(h.Warnings, "no signer key: this network can verify but not settle")
	}
	h.CanSettle = funded > 0 && age <= staleHead
	return h
}

// HealthMaxAge is the age past which the health snapshot is refreshed: the
// chain is asked at most once per HealthMaxAge, whatever the traffic on
// /healthcheck.
const HealthMaxAge = time.Second

// healthSnapshot is the last health check of every network.
type healthSnapshot struct {
	mu         sync.Mutex
	nets       []NetworkHealth // never changed once stored
	at         time.Time
	refreshing bool
	done       chan struct{} // closed when the running refresh ends
}

// healthNetworks returns the networks' health facts: the snapshot, with a
// refresh started in the background when it is older than HealthMaxAge.
// With no snapshot yet, it waits for the first check (or ctx).
func (f *Facilitator) healthNetworks(ctx context.Context) []NetworkHealth {
	s := &f.health
	s.mu.Lock()
	stale := time.Since(s.at) > HealthMaxAge
	if stale && !s.refreshing {
		s.refreshing = true
		s.done = make(chan struct{})
		go f.refreshHealth()
	}
	nets, done := s.nets, s.done
	s.mu.Unlock()
	if nets == nil {
		select {
		case <-done:
		case <-ctx.Done():
		}
		s.mu.Lock()
		nets = s.nets
		s.mu.Unlock()
	}
	return append([]NetworkHealth(nil), nets...)
}

// refreshHealth checks every network and stores the result.
func (f *Facilitator) refreshHealth() {
	nets := f.checkNetworks(f.ctx)
	s := &f.health
	s.mu.Lock()
	s.nets, s.at, s.refreshing = nets, time.Now(), false
	close(s.done)
	s.mu.Unlock()
}
