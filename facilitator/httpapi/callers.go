package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/limit"
)

// Spec limits (spec part 8).
var (
	DefaultVerifyLimit = limit.RateLimit{Requests: 10, Window: time.Minute}
	DefaultSettleLimit = limit.RateLimit{Requests: 5, Window: time.Minute}
	// DefaultLookupLimit is Config.LookupLimit's default: a
	// settlement look-up that the journal cannot answer is read from the
	// chain (two RPC calls per network), so look-ups are limited too.
	DefaultLookupLimit = limit.RateLimit{Requests: 60, Window: time.Minute}
)

// Limits of callers with an API key (Config.APIKeys): a seller's
// paywall sends every buyer's payment through one key.
var (
	// DefaultKeyVerifyLimit is Config.KeyVerifyLimit's default.
	DefaultKeyVerifyLimit = limit.RateLimit{Requests: 600, Window: time.Minute}
	// DefaultKeySettleLimit is Config.KeySettleLimit's default.
	DefaultKeySettleLimit = limit.RateLimit{Requests: 300, Window: time.Minute}
	// DefaultKeyLookupLimit is Config.KeyLookupLimit's default.
	DefaultKeyLookupLimit = limit.RateLimit{Requests: 600, Window: time.Minute}
	// DefaultUnknownKeyLimit is Config.UnknownKeyLimit's default:
	// ten requests with an unknown API key per client IP, then one every
	// six seconds.
	DefaultUnknownKeyLimit = limit.RateLimit{Requests: 10, Window: time.Minute}
)

// textUnknownKey is the 401 answer's message.
const textUnknownKey = "Unknown API key: the Authorization: Bearer key is not one of this facilitator's; send a valid key, or none to be limited per client IP"

// apiKeys holds the accepted API keys by their SHA-256, so a lookup does
// not compare the secret byte by byte, and the limiter is keyed by a short
// id derived from the hash, never by the key.
type apiKeys map[[32]byte]string

func newAPIKeys(keys []string) apiKeys {
	if len(keys) == 0 {
		return nil
	}
	m := apiKeys{}
	for _, k := range keys {
		if k = strings.TrimSpace(k); k != "" {
			h := sha256.Sum256([]byte(k))
			m[h] = hex.EncodeToString(h[:6])
		}
	}
	return m
}

// caller reads "Authorization: Bearer KEY": whether a key was sent and,
// if so, whether it is known, with its id.
func (k apiKeys) caller(r *http.Request) (id string, sent, known bool) {
	if len(k) == 0 {
		return "", false, false
	}
	auth := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", false, false
	}
	id, known = k[sha256.Sum256([]byte(strings.TrimSpace(tok)))]
	return id, true, known
}

// checkKey vets a request that sent an API key from client IP ip: 401 for
// an unknown key, counted against the IP; 429 with Retry-After for any key,
// known or not, from an IP over its limit of unknown keys, so that a
// guesser learns nothing more until the window lets another guess through.
// ok is true for a known key from an IP under that limit.
func (h *handler) checkKey(w http.ResponseWriter, ip string, known bool) (status int, msg string, ok bool) {
	if over, wait := h.unknownKeys.Exhausted(ip); over {
		return tooManyUnknownKeys(w, wait)
	}
	if known {
		return 0, "", true
	}
	if allowed, wait := h.unknownKeys.Allow(ip); !allowed {
		return tooManyUnknownKeys(w, wait)
	}
	return http.StatusUnauthorized, textUnknownKey, false
}

// tooManyUnknownKeys sets Retry-After and returns the 429 message of an IP
// over its limit of unknown API keys.
func tooManyUnknownKeys(w http.ResponseWriter, wait time.Duration) (int, string, bool) {
	secs := max(int(math.Ceil(wait.Seconds())), 1)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return http.StatusTooManyRequests, fmt.Sprintf("Too many requests with an unknown API key from this client IP; retry in %d s", secs), false
}

// limitOr is l, or def when l is the zero value (not configured).
func limitOr(l, def limit.RateLimit) limit.RateLimit {
	if l == (limit.RateLimit{}) {
		return def
	}
	return l
}

// lookupAllowed applies the look-up limits (per API key, else per client
// IP) and answers 429 over them.
func (h *handler) lookupAllowed(w http.ResponseWriter, r *http.Request) bool {
	status, msg, ok := h.limited(w, r, h.lookupLimit, h.keyLookupLimit, "settlement look-up")
	if !ok {
		writeJSON(w, status, map[string]string{"error": msg})
	}
	return ok
}

// limited applies a rate limit; when it is hit it sets Retry-After and
// returns the message that names the limit.
func (h *handler) limited(w http.ResponseWriter, r *http.Request, ipLimit, keyLimit *limit.Limiter, op string) (int, string, bool) {
	who, l, per := h.clientIP(r), ipLimit, "client IP"
	if id, sent, known := h.keys.caller(r); sent {
		if status, msg, ok := h.checkKey(w, who, known); !ok {
			return status, msg, false
		}
		who, l, per = "key "+id, keyLimit, "API key"
	}
	ok, wait := l.Allow(who)
	if ok {
		return 0, "", true
	}
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", fmt.Sprint(secs))
	return http.StatusTooManyRequests, fmt.Sprintf("Rate limit exceeded: %s requests are limited to %s per %s; retry in %d s", op, l.Limit(), per, secs), false
}
