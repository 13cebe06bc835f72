package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// GET /v2/x402/discovery/search (@x402/extensions 2.27's
// withBazaar(client).extensions.bazaar.search): the discovery list's
// resources that match a free-text query, best first. Parameters as the
// client sends them: query (required), type, payTo, scheme, network,
// extensions (an extension key the resource must carry), limit (advisory)
// and cursor (the opaque continuation of an earlier answer). A resource
// matches when a word of the query is in its URL, description, type, media
// type or bazaar declaration (an MCP tool's name, description and input
// schema, an HTTP route's method and examples); it ranks by how many of
// the query's words it holds. The catalog is read up to
// maxSearchCatalog entries; partialResults says when there were more.

// Bounds of a search.
const (
	maxSearchQueryBytes = 256
	maxSearchTerms      = 16
	defaultSearchLimit  = 20
	maxSearchCatalog    = 2000
)

// searchStopWords are words of a natural-language query that match
// nearly everything.
var searchStopWords = map[string]bool{"a": true, "an": true, "the": true, "for": true, "of": true, "and": true, "or": true,
	"to": true, "in": true, "on": true, "with": true, "me": true, "i": true, "find": true, "tool": true, "tools": true,
	"api": true, "apis": true, "service": true, "services": true, "endpoint": true, "endpoints": true}

// searchQuery is a search request.
type searchQuery struct {
	filter     discoveryQuery
	terms      []string
	extensions string
	limit      int
	offset     int // from cursor
}

// parseSearchQuery reads the search's parameters; its errors say what is
// wrong.
func parseSearchQuery(v url.Values) (searchQuery, error) {
	var q searchQuery
	text := strings.TrimSpace(v.Get("query"))
	switch {
	case text == "":
		return q, errors.New("query is required: the words to search for, such as query=weather")
	case len(text) > maxSearchQueryBytes:
		return q, fmt.Errorf("query must be at most %d bytes", maxSearchQueryBytes)
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r > 127)
	}) {
		if !searchStopWords[w] && len(q.terms) < maxSearchTerms {
			q.terms = append(q.terms, w)
		}
	}
	if len(q.terms) == 0 {
		return q, errors.New("query has no words to search for (only common words such as \"api\" or \"the\")")
	}
	f := url.Values{}
	for _, k := range []string{"type", "payTo", "network", "scheme"} {
		if v.Has(k) {
			f.Set(k, v.Get(k))
		}
	}
	var err error
	if q.filter, err = parseDiscoveryQuery(f); err != nil {
		return q, err
	}
	q.extensions = v.Get("extensions")
	if len(q.extensions) > 64 {
		return q, errors.New("extensions must be an extension key of at most 64 characters, such as bazaar")
	}
	q.limit = defaultSearchLimit
	if s := v.Get("limit"); s != "" || v.Has("limit") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return q, fmt.Errorf("limit must be a whole number from 1 (at most %d are answered), got %q", DefaultDiscoveryLimit, x402.Clip(s, 32))
		}
		q.limit = min(n, DefaultDiscoveryLimit)
	}
	if s := v.Get("cursor"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxDiscoveryOffset {
			return q, fmt.Errorf("cursor %q is not one this facilitator gave: search again without it", x402.Clip(s, 32))
		}
		q.offset = n
	}
	return q, nil
}

// searchHit is a matching resource and its rank.
type searchHit struct {
	data  json.RawMessage
	score int
}

// searchScore is how many of the query's words an item's text holds (0:
// no match), and whether it carries the extension asked for.
func (q *searchQuery) score(item json.RawMessage) int {
	var it struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(item, &it) != nil {
		return 0
	}
	if q.extensions != "" {
		if _, ok := it.Extensions[q.extensions]; !ok {
			return 0
		}
	}
	// The item's own JSON holds its URL, type, description, media type
	// and declaration; its accepts (addresses, amounts) are filters, not
	// words to match.
	var text map[string]json.RawMessage
	_ = json.Unmarshal(item, &text)
	delete(text, "accepts")
	delete(text, "lastUpdated")
	b, _ := json.Marshal(text)
	hay := strings.ToLower(string(b))
	n := 0
	for _, t := range q.terms {
		if strings.Contains(hay, t) {
			n++
		}
	}
	return n
}

// discoverySearch answers GET /v2/x402/discovery/search.
func (h *handler) discoverySearch(w http.ResponseWriter, r *http.Request) {
	q, err := parseSearchQuery(r.URL.Query())
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	var hits []searchHit
	if h.resources != nil {
		for _, it := range h.resources(r) {
			if !itemMatches(&q.filter, &it) {
				continue
			}
			b, err := json.Marshal(&it)
			if err != nil {
				continue
			}
			if s := q.score(b); s > 0 {
				hits = append(hits, searchHit{b, s})
			}
		}
	}
	partial := false
	if c := h.f.Catalog(); c != nil {
		cq := q.filter
		cq.Offset, cq.Limit = 0, maxSearchCatalog
		entries, n, err := c.Entries(cq)
		if err != nil {
			h.f.Logger().Error("reading the discovery catalog failed", zap.Error(err))
			w.Header().Set("Retry-After", "2")
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "reading the discovery catalog failed; try again shortly"})
			return
		}
		partial = n > len(entries)
		for _, e := range entries {
			if s := q.score(e.Data); s > 0 {
				hits = append(hits, searchHit{e.Data, s})
			}
		}
	}
	sort.SliceStable(hits, func(i, k int) bool { return hits[i].score > hits[k].score })
	out := searchAnswer{X402Version: x402.Version2, Resources: []json.RawMessage{}, PartialResults: partial,
		Pagination: searchPage{Limit: q.limit}}
	for i := q.offset; i < len(hits) && len(out.Resources) < q.limit; i++ {
		out.Resources = append(out.Resources, hits[i].data)
	}
	if next := q.offset + len(out.Resources); next < len(hits) {
		c := strconv.Itoa(next)
		out.Pagination.Cursor = &c
	}
	writeJSON(w, http.StatusOK, out)
}

// searchAnswer is the search's answer, as @x402/extensions 2.27 types
// SearchDiscoveryResourcesResponse.
type searchAnswer struct {
	X402Version    int               `json:"x402Version"`
	Resources      []json.RawMessage `json:"resources"`
	PartialResults bool              `json:"partialResults"`
	Pagination     searchPage        `json:"pagination"`
}

// searchPage is the search's paging: its limit and the cursor of the
// next page (null on the last).
type searchPage struct {
	Limit  int     `json:"limit"`
	Cursor *string `json:"cursor"`
}
