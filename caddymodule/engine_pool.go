package caddymodule

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
)

// One engine per signer key.
//
// A facilitator owns its signer keys: it counts their nonces and watches
// their transactions, and it owns its journal. Two facilitators on one key
// would hand out the same nonces. So the usage pool keys a facilitator by
// what it is made of (its networks, signer keys, journal file and chain),
// not by the whole x402 app config: a reload that changes anything else
// (routes, settle_timeout, which the paywall applies itself) gets the
// running facilitator back, with settlements in flight and nonce counters
// carrying on. A reload that changes the networks or the set of keys still
// starts a second facilitator beside the running one until the previous
// config is gone; that is logged as an error, and needs a restart to avoid.

// engineClaims records which signer keys and journals the pooled
// facilitators own, by pool key.
var engineClaims = struct {
	sync.Mutex
	owner map[string]string // claim → pool key
}{owner: map[string]string{}}

// engineIdentity returns the pool key of the facilitator for these
// networks, journal and chain, and the claims it makes: one per
// (network, signer address) and one for a journal file. Without a signer
// key a facilitator cannot settle and owns nothing, so it is keyed by its
// whole config (settings) instead.
func engineIdentity(nets []facilitator.NetworkConfig, journalPath, chainURL string, settings []byte) (string, []string) {
	var claims []string
	for _, n := range nets {
		for _, k := range n.SignerKeys {
			c := strings.ToLower("signer:" + n.Name + "/" + crypto.PubkeyToAddress(k.PublicKey).Hex())
			if chainURL != "" {
				// A devnet is a chain of its own: the same key on
				// another devnet owns other nonces.
				c += "@" + chainURL
			}
			claims = append(claims, c)
		}
	}
	h := sha256.New()
	if len(claims) == 0 {
		h.Write(settings)
		return "facilitator:config:" + hex.EncodeToString(h.Sum(nil)), nil
	}
	if journalPath != "" {
		claims = append(claims, "journal:"+journalPath)
	}
	sort.Strings(claims)
	for _, c := range claims {
		h.Write([]byte(c))
		h.Write([]byte{0})
	}
	h.Write([]byte(chainURL))
	// The networks are part of the facilitator: a reload that changes
	// them gets another one.
	for _, n := range nets {
		h.Write([]byte(networkPrint(n)))
	}
	return "facilitator:engine:" + hex.EncodeToString(h.Sum(nil)), claims
}

// networkPrint is a fingerprint of a network's configuration, with its
// signer keys' addresses (never the keys).
func networkPrint(n facilitator.NetworkConfig) string {
	b, _ := json.Marshal(n)
	h := sha256.New()
	h.Write(b)
	for _, k := range n.SignerKeys {
		h.Write(crypto.PubkeyToAddress(k.PublicKey).Bytes())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// claimEngine records that the facilitator under key owns claims. It
// returns the claims another running facilitator already owns: a reload
// that changed the networks or the set of keys starts a second engine on
// them, which the caller reports.
func claimEngine(key string, claims []string) []string {
	engineClaims.Lock()
	defer engineClaims.Unlock()
	var shared []string
	for _, c := range claims {
		if owner, ok := engineClaims.owner[c]; ok && owner != key {
			what := c
			if signer, ok := strings.CutPrefix(c, "signer:"); ok {
				signer, _, _ = strings.Cut(signer, "@")
				what = "signer " + signer
			}
			shared = append(shared, what)
		}
		engineClaims.owner[c] = key
	}
	return shared
}

// releaseEngine forgets the claims of the facilitator under key.
func releaseEngine(key string, claims []string) {
	engineClaims.Lock()
	defer engineClaims.Unlock()
	for _, c := range claims {
		if engineClaims.owner[c] == key {
			delete(engineClaims.owner, c)
		}
	}
}
