package facilitator

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"time"
)

// Limits of callers with an API key (HandlerConfig.APIKeys): a seller's
// paywall sends every buyer's payment through one key.
var (
	DefaultKeyVerifyLimit = RateLimit{Requests: 600, Window: time.Minute}
	DefaultKeySettleLimit = RateLimit{Requests: 300, Window: time.Minute}
)

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
