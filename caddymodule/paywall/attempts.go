package paywall

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/limit"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Defaults of the paywall's abuse and cost limits.
var (
	// DefaultAttemptLimit is how many payment attempts one client may send
	// on to the facilitator: each costs RPC calls (a simulated transfer)
	// whether or not the payment is good.
	DefaultAttemptLimit = limit.RateLimit{Requests: 60, Window: time.Minute}
	// DefaultRefusalTTL is how long a refused authorization is answered
	// from memory, without asking the facilitator (or the chain) again.
	DefaultRefusalTTL = 30 * time.Second
)

// Bounds of the refusal cache of one handler. It is fed by requests that
// need no signature (a payment for an unknown network is refused before
// its signature is checked), so it is bounded in entries and in bytes, and
// a reason, which may repeat the buyer's text, is kept cut to
// maxReasonBytes: at most about 1 MiB per route, whatever the buyers send.
const (
	maxRefusals = 10_000
	// maxRefusalBytes bounds the bytes of one cache, each entry counted
	// as its reason's length plus refusalEntryBytes.
	maxRefusalBytes = 1 << 20
	// refusalEntryBytes is an entry's memory besides its reason: the key,
	// the expiry, the string header and the map's share.
	refusalEntryBytes = 96
	// maxReasonBytes bounds a refusal reason as the paywall keeps and
	// answers it: the facilitator's own reasons repeat at most
	// x402.MaxEchoBytes of the buyer's text and fit (the longest, a
	// smart-wallet deployment refused, is about 200 bytes), a remote
	// one's are cut here.
	maxReasonBytes = 256
	// The sweep timer, which drops expired refusals while the cache holds
	// any, runs every TTL, but at least every maxRefusalSweep and at most
	// every minRefusalSweep.
	maxRefusalSweep = 5 * time.Second
	minRefusalSweep = time.Second
)

// attempts holds a handler's abuse and cost limits: the per-client limit
// on payment attempts that reach the facilitator, and the cache of
// refused authorizations. A nil part is off.
type attempts struct {
	limiter *limit.Limiter
	refused *refusalCache
}

func newAttempts(h *Handler) *attempts {
	g := &attempts{}
	if !h.NoAttemptLimit {
		l := DefaultAttemptLimit
		if h.AttemptLimit != nil {
			l = limit.RateLimit{Requests: h.AttemptLimit.Requests, Window: time.Duration(h.AttemptLimit.Window)}
		}
		g.limiter = limit.New(l)
	}
	if !h.NoRefusalCache {
		ttl := DefaultRefusalTTL
		if h.RefusalTTL > 0 {
			ttl = time.Duration(h.RefusalTTL)
		}
		g.refused = newRefusalCache(ttl, maxRefusals, maxRefusalBytes, time.Now)
	}
	return g
}

// refusal returns the reason an authorization was refused within the TTL.
func (g *attempts) refusal(k [32]byte) (string, bool) {
	if g == nil {
		return "", false
	}
	return g.refused.get(k)
}

// refuse remembers a refused authorization.
func (g *attempts) refuse(k [32]byte, p *x402.Payment, reason string) {
	if g != nil {
		g.refused.put(k, p, reason)
	}
}

// allow counts a payment attempt of a client against its limit.
func (g *attempts) allow(client string) (bool, time.Duration) {
	if g == nil {
		return true, 0
	}
	return g.limiter.Allow(client)
}

// refusalKey names an authorization: what the buyer signed (payer, nonce,
// recipient, value, validity window), the signature, the network, and the
// amount its request asks (a route priced per request may refuse a
// payment at one price that is good at another). The rest of the
// requirements are the handler's own, so the cache is per handler. The
// signature is part of the key so that nobody can have a good payment
// refused by sending a bad signature for its payer and nonce first.
func refusalKey(p *x402.Payment, amount string) [32]byte {
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
	h.Write([]byte{0})
	h.Write([]byte(amount))
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
// them and maxBytes of them (when full, the expired go first, then
// arbitrary ones down to half). A timer sweeps the expired ones every
// sweep while the cache holds any, so that a flood of refusals leaves no
// memory behind once it has expired, with or without new requests.
type refusalCache struct {
	ttl      time.Duration
	max      int
	maxBytes int
	sweep    time.Duration
	now      func() time.Time

	mu       sync.Mutex
	m        map[[32]byte]refusal
	bytes    int  // of the entries in m, counted as in refusalCost
	sweeping bool // a sweep timer is pending
}

func newRefusalCache(ttl time.Duration, maxEntries, maxBytes int, now func() time.Time) *refusalCache {
	return &refusalCache{ttl: ttl, max: maxEntries, maxBytes: maxBytes, sweep: min(max(ttl, minRefusalSweep), maxRefusalSweep),
		now: now, m: map[[32]byte]refusal{}}
}

// refusalCost is what an entry counts against maxBytes.
func refusalCost(r refusal) int { return len(r.reason) + refusalEntryBytes }

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
		c.deleteLocked(k, r)
		return "", false
	}
	return r.reason, true
}

// put remembers a refusal, its reason cut to maxReasonBytes. A refusal for
// an authorization that is not yet valid is kept only until it becomes
// valid.
func (c *refusalCache) put(k [32]byte, p *x402.Payment, reason string) {
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
	// A copy, so that the entry does not hold on to a larger string the
	// reason was cut from.
	r := refusal{reason: strings.Clone(clipReason(reason)), expires: expires}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok {
		c.deleteLocked(k, old)
	}
	if len(c.m) >= c.max || c.bytes+refusalCost(r) > c.maxBytes {
		c.sweepLocked(now)
		for key, old := range c.m {
			if len(c.m) < c.max/2 && c.bytes+refusalCost(r) <= c.maxBytes/2 {
				break
			}
			c.deleteLocked(key, old)
		}
	}
	c.m[k] = r
	c.bytes += refusalCost(r)
	if !c.sweeping {
		c.sweeping = true
		time.AfterFunc(c.sweep, c.sweepTimer)
	}
}

// sweepTimer drops the expired refusals, and runs again while any are left.
func (c *refusalCache) sweepTimer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweepLocked(c.now())
	if len(c.m) == 0 {
		c.sweeping = false
		return
	}
	time.AfterFunc(c.sweep, c.sweepTimer)
}

// sweepLocked drops the refusals expired at now; an emptied map is made
// anew, so that the memory of its buckets goes too. The caller holds mu.
func (c *refusalCache) sweepLocked(now time.Time) {
	for k, r := range c.m {
		if !now.Before(r.expires) {
			c.deleteLocked(k, r)
		}
	}
	if len(c.m) == 0 {
		c.m, c.bytes = map[[32]byte]refusal{}, 0
	}
}

func (c *refusalCache) deleteLocked(k [32]byte, r refusal) {
	delete(c.m, k)
	c.bytes -= refusalCost(r)
}

// clipReason cuts a refusal reason to maxReasonBytes, with an ellipsis.
func clipReason(reason string) string { return x402.Clip(reason, maxReasonBytes) }

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
