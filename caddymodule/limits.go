package caddymodule

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
)

// Defaults of the paywall's abuse and cost limits.
var (
	// DefaultAttemptLimit is how many payment attempts one client may send
	// on to the facilitator: each costs RPC calls (a simulated transfer)
	// whether or not the payment is good.
	DefaultAttemptLimit = facilitator.RateLimit{Requests: 60, Window: time.Minute}
	// DefaultRefusalTTL is how long a refused authorization is answered
	// from memory, without asking the facilitator (or the chain) again.
	DefaultRefusalTTL = 30 * time.Second
)

// maxRefusals bounds the refusal cache of one handler.
const maxRefusals = 10_000

// guard holds a handler's abuse and cost limits: the per-client limit on
// payment attempts that reach the facilitator, and the cache of refused
// authorizations. A nil part is off.
type guard struct {
	attempts *facilitator.Limiter
	refused  *refusalCache
}

func newGuard(h *Handler) *guard {
	g := &guard{}
	if !h.NoAttemptLimit {
		l := DefaultAttemptLimit
		if h.AttemptLimit != nil {
			l = facilitator.RateLimit{Requests: h.AttemptLimit.Requests, Window: time.Duration(h.AttemptLimit.Window)}
		}
		g.attempts = facilitator.NewLimiter(l)
	}
	if !h.NoRefusalCache {
		ttl := DefaultRefusalTTL
		if h.RefusalTTL > 0 {
			ttl = time.Duration(h.RefusalTTL)
		}
		g.refused = &refusalCache{ttl: ttl, max: maxRefusals, now: time.Now, m: map[[32]byte]refusal{}}
	}
	return g
}

// refusal returns the reason an authorization was refused within the TTL.
func (g *guard) refusal(k [32]byte) (string, bool) {
	if g == nil {
		return "", false
	}
	return g.refused.get(k)
}

// refuse remembers a refused authorization.
func (g *guard) refuse(k [32]byte, p *facilitator.Payment, reason string) {
	if g != nil {
		g.refused.put(k, p, reason)
	}
}

// allow counts a payment attempt of a client against its limit.
func (g *guard) allow(client string) (bool, time.Duration) {
	if g == nil {
		return true, 0
	}
	return g.attempts.Allow(client)
}

// refusalKey names an authorization: what the buyer signed (payer, nonce,
// recipient, value, validity window), the signature, and the network. The
// requirements are the handler's own, so the cache is per handler. The
// signature is part of the key so that nobody can have a good payment
// refused by sending a bad signature for its payer and nonce first.
func refusalKey(p *facilitator.Payment) [32]byte {
	a := p.Authorization
	h := sha256.New()
	h.Write(a.From[:])
	h.Write(a.Nonce[:])
	h.Write(a.To[:])
	for _, v := range []*big.Int{a.Value, a.ValidAfter, a.ValidBefore} {
		s := "nil"
		if v != nil {
			s = v.String()
		}
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	h.Write(p.Signature)
	h.Write([]byte{0})
	h.Write([]byte(p.Network))
	h.Write([]byte{0})
	h.Write([]byte(p.Scheme))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// refusal is a cached refusal.
type refusal struct {
	reason  string
	expires time.Time
}

// refusalCache remembers refused authorizations for ttl, at most max of
// them (when full, the expired go first, then arbitrary ones).
type refusalCache struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu sync.Mutex
	m  map[[32]byte]refusal
}

// get returns the reason an authorization was refused, if it was within ttl.
func (c *refusalCache) get(k [32]byte) (string, bool) {
	if c == nil {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	if !ok {
		return "", false
	}
	if !c.now().Before(r.expires) {
		delete(c.m, k)
		return "", false
	}
	return r.reason, true
}

// put remembers a refusal. A refusal for an authorization that is not yet
// valid is kept only until it becomes valid.
func (c *refusalCache) put(k [32]byte, p *facilitator.Payment, reason string) {
	if c == nil {
		return
	}
	now := c.now()
	expires := now.Add(c.ttl)
	if va := p.Authorization.ValidAfter; va != nil && va.IsInt64() {
		if t := time.Unix(va.Int64(), 0); t.After(now) && t.Before(expires) {
			expires = t
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for key, r := range c.m {
			if !now.Before(r.expires) {
				delete(c.m, key)
			}
		}
		for key := range c.m {
			if len(c.m) < c.max/2 {
				break
			}
			delete(c.m, key)
		}
	}
	c.m[k] = refusal{reason: reason, expires: expires}
}

// tooManyAttempts answers 429 with Retry-After and a JSON body.
func tooManyAttempts(w http.ResponseWriter, wait time.Duration) error {
	secs := int(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	body := fmt.Sprintf(`{"error":"Too many payment attempts from this client; retry in %d s","retryAfterSeconds":%d}`+"\n", secs, secs)
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr.Set("Retry-After", strconv.Itoa(secs))
	w.WriteHeader(http.StatusTooManyRequests)
	_, err := w.Write([]byte(body))
	return err
}
