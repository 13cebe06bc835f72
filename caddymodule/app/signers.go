package app

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/network"
)

// One engine per signer key.
//
// A reload builds the new config before it stops the old one, so for a
// while two facilitators run. Each signer key must still have one nonce
// counter and one watcher: the facilitator's settlement engine is shared
// by every facilitator of the process on the same journal, chain and token
// (facilitator/engine, core.go). The new facilitator's engine joins the
// running one, which carries on with the settlements in flight under the
// new settings, and the old facilitator's close leaves it running. So the
// journal is pooled on its own (by path; with a devnet, the journal in
// memory is pooled by chain), and the facilitator is pooled by its whole
// config: a reload that changes anything gets a new facilitator with the
// same engine.
//
// What this cannot join is one key on two journals: a reload that moves
// the journal while keeping a signer key would start a second engine on
// that key, with a nonce counter of its own, while the previous config
// runs. signerClaims finds it, and the reload is refused (the running
// config stays); a journal is moved with a restart.

// signerClaims records which journal each signer key of a chain is used
// with, and by how many facilitators.
var signerClaims = struct {
	sync.Mutex
	by map[string]*signerClaim // claim → journal and users
}{by: map[string]*signerClaim{}}

type signerClaim struct {
	journal string
	users   int
}

// engineClaims names the signer keys of these networks on their chain:
// one claim per (chain ID, signer address), marked with the devnet's URL
// (a devnet is a chain of its own: the same key on another devnet has other
// nonces).
func engineClaims(nets []network.Config, chainURL string) []string {
	var claims []string
	for _, n := range nets {
		for _, k := range n.SignerKeys {
			c := strings.ToLower("signer " + crypto.PubkeyToAddress(k.PublicKey).Hex() + " on chain " + strconv.FormatInt(n.ChainID, 10))
			if chainURL != "" {
				c += "@" + chainURL
			}
			claims = append(claims, c)
		}
	}
	return claims
}

// signersOnOtherJournal returns the signer keys among claims that a
// running facilitator uses with another journal than journal.
func signersOnOtherJournal(journal string, claims []string) []string {
	signerClaims.Lock()
	defer signerClaims.Unlock()
	return clashes(journal, claims)
}

// clashes is signersOnOtherJournal with signerClaims locked.
func clashes(journal string, claims []string) []string {
	var clash []string
	for _, c := range claims {
		if have := signerClaims.by[c]; have != nil && have.journal != journal {
			clash = append(clash, strings.SplitN(c, "@", 2)[0]+" (journal "+have.journal+")")
		}
	}
	return clash
}

// claimSigners records that a facilitator uses these signer keys with
// journal. When another running facilitator uses one of them with another
// journal, it records nothing and returns those keys.
func claimSigners(journal string, claims []string) []string {
	signerClaims.Lock()
	defer signerClaims.Unlock()
	if clash := clashes(journal, claims); len(clash) > 0 {
		return clash
	}
	for _, c := range claims {
		if have := signerClaims.by[c]; have != nil {
			have.users++
			continue
		}
		signerClaims.by[c] = &signerClaim{journal: journal, users: 1}
	}
	return nil
}

// journalClashError refuses a config whose signer keys run with another
// journal.
func journalClashError(journal string, clash []string) error {
	return fmt.Errorf("a signer key of this config runs with another settlement journal (%s) than this config's %s: "+
		"a second engine on the key would race the running one for its nonces. The running config stays; "+
		"move a journal with a restart of Caddy (stop, then start), not a reload", strings.Join(clash, "; "), journal)
}

// releaseSigners undoes claimSigners.
func releaseSigners(claims []string) {
	signerClaims.Lock()
	defer signerClaims.Unlock()
	for _, c := range claims {
		if have := signerClaims.by[c]; have != nil {
			if have.users--; have.users <= 0 {
				delete(signerClaims.by, c)
			}
		}
	}
}
