package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Discovery (x402 specs/extensions/bazaar.md): GET
// /v2/x402/discovery/resources lists the resources this facilitator's own
// sellers offer (Config.Resources, from their configuration), then
// the resources of other sellers it cataloged from the bazaar declarations
// their paying clients echoed in settle requests: validated
// (ValidateBazaar), only once the payment settled (so that every entry
// cost its writer a payment), keyed by URL, tool and payee (a payment to
// one payee never replaces another's entry), and kept in the journal's
// storage (a journal that is a store.Catalog), bounded in bytes. An origin the facilitator's
// own server serves (Config.OwnOrigin) is never cataloged from a payment.

// Defaults of the discovery list and catalog.
const (
	// DefaultDiscoveryLimit is a page's size when the caller gives none,
	// and the largest it may ask for.
	DefaultDiscoveryLimit = 100
	// DefaultCatalogBytes bounds the catalog's entries in all.
	DefaultCatalogBytes = 32 << 20
	// CatalogStaleAfter is how long an entry nobody paid for again is kept
	// when the catalog is full: older ones make room for a new one.
	CatalogStaleAfter = 7 * 24 * time.Hour
	// maxDiscoveryOffset bounds the offset a caller may ask for.
	maxDiscoveryOffset = 1_000_000_000
)

// HeaderExtensionResponses carries a facilitator's outcome of the
// extensions of a verify or settle request (Base64 JSON keyed by
// extension).
const HeaderExtensionResponses = "Extension-Responses"

// Statuses of the bazaar extension's response.
const (
	BazaarSuccess  = "success"
	BazaarRejected = "rejected"
)

// BazaarResponse is the bazaar key of EXTENSION-RESPONSES.
type BazaarResponse struct {
	Status         string `json:"status"`
	RejectedReason string `json:"rejectedReason,omitempty"`
}

// discoveryQuery is a discovery list request.
type discoveryQuery = store.CatalogQuery

// parseDiscoveryQuery reads the list's query parameters: type, payTo,
// network, scheme, limit and offset. Its errors say what is wrong.
func parseDiscoveryQuery(v url.Values) (discoveryQuery, error) {
	q := discoveryQuery{Type: v.Get("type"), PayTo: v.Get("payTo"), Network: v.Get("network"), Scheme: v.Get("scheme"), Limit: DefaultDiscoveryLimit}
	if q.Type != "" && q.Type != "http" && q.Type != "mcp" {
		return q, fmt.Errorf("type must be http or mcp, got %q", x402.Clip(q.Type, 32))
	}
	if q.PayTo != "" && !x402.IsAddress(q.PayTo) {
		return q, fmt.Errorf("payTo must be an address (0x followed by 40 hex digits), got %q", x402.Clip(q.PayTo, 64))
	}
	if len(q.Network) > 128 || len(q.Scheme) > 64 {
		return q, errors.New("network and scheme must be at most 128 and 64 characters")
	}
	if v.Has("extensions") {
		return q, errors.New("the extensions filter is not supported here: filter by type, payTo, network or scheme")
	}
	if s := v.Get("limit"); s != "" || v.Has("limit") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return q, fmt.Errorf("limit must be a whole number from 1 (at most %d are answered), got %q", DefaultDiscoveryLimit, x402.Clip(s, 32))
		}
		q.Limit = min(n, DefaultDiscoveryLimit)
	}
	if s := v.Get("offset"); s != "" || v.Has("offset") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxDiscoveryOffset {
			return q, fmt.Errorf("offset must be a whole number from 0 to %d, got %q", maxDiscoveryOffset, x402.Clip(s, 32))
		}
		q.Offset = n
	}
	return q, nil
}

// matches reports whether an item of the configured resources passes the
// query's filters.
func itemMatches(q *discoveryQuery, it *x402.DiscoveryItem) bool {
	if q.Type != "" && it.Type != q.Type {
		return false
	}
	if q.PayTo == "" && q.Network == "" && q.Scheme == "" {
		return true
	}
	for _, a := range it.Accepts {
		if (q.PayTo == "" || strings.EqualFold(a.PayTo, q.PayTo)) && (q.Network == "" || a.Network == q.Network) &&
			(q.Scheme == "" || a.Scheme == q.Scheme) {
			return true
		}
	}
	return false
}

// discoveryResources answers GET /v2/x402/discovery/resources: the
// configured resources first, then the catalog, paged as one list.
func (h *handler) discoveryResources(w http.ResponseWriter, r *http.Request) {
	q, err := parseDiscoveryQuery(r.URL.Query())
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	var own []x402.DiscoveryItem
	if h.resources != nil {
		for _, it := range h.resources(r) {
			if itemMatches(&q, &it) {
				own = append(own, it)
			}
		}
	}
	items := []json.RawMessage{}
	for i := q.Offset; i < len(own) && len(items) < q.Limit; i++ {
		b, err := json.Marshal(&own[i])
		if err != nil {
			continue
		}
		items = append(items, b)
	}
	total := len(own)
	if c := h.f.Catalog(); c != nil {
		cq := q
		cq.Offset, cq.Limit = max(0, q.Offset-len(own)), q.Limit-len(items)
		entries, n, err := c.Entries(cq)
		if err != nil {
			h.f.Logger().Error("reading the discovery catalog failed", zap.Error(err))
			w.Header().Set("Retry-After", "2")
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "reading the discovery catalog failed; try again shortly"})
			return
		}
		for _, e := range entries {
			items = append(items, e.Data)
		}
		total += n
	}
	writeJSON(w, http.StatusOK, x402.DiscoveryList{X402Version: x402.Version2, Items: items,
		Pagination: x402.Pagination{Limit: q.Limit, Offset: q.Offset, Total: total}})
}

// catalogSettled catalogs the bazaar declaration a settled v2 payment
// echoed, and sets EXTENSION-RESPONSES with the outcome.
func (h *handler) catalogSettled(w http.ResponseWriter, r *http.Request, req *x402.Request) {
	res := h.catalog(r, req)
	if v, err := x402.EncodeBase64JSON(map[string]BazaarResponse{x402.ExtBazaar: res}); err == nil {
		w.Header().Set(HeaderExtensionResponses, v)
	}
}

func (h *handler) catalog(r *http.Request, req *x402.Request) BazaarResponse {
	rejected := func(why string) BazaarResponse { return BazaarResponse{Status: BazaarRejected, RejectedReason: why} }
	if h.catalogBytes < 0 {
		return rejected("this facilitator catalogs no resources")
	}
	c := h.f.Catalog()
	if c == nil {
		return rejected("this facilitator keeps no discovery catalog")
	}
	decl, in, err := facilitator.ValidateBazaar(req.Bazaar)
	if err != nil {
		return rejected(err.Error())
	}
	resource := ""
	if req.Resource != nil {
		resource = req.Resource.URL
	}
	u, err := facilitator.CatalogURL(resource, decl.RouteTemplate)
	if err != nil {
		return rejected(err.Error())
	}
	reqs := req.PaymentRequirements
	payTo := strings.ToLower(reqs.PayTo)
	if h.resources != nil {
		// A resource of this facilitator's own sellers is listed from
		// their configuration already.
		for _, it := range h.resources(r) {
			if it.Resource == u && len(it.Accepts) > 0 && strings.EqualFold(it.Accepts[0].PayTo, payTo) {
				return BazaarResponse{Status: BazaarSuccess}
			}
		}
	}
	if h.ownOrigin != nil && h.ownOrigin(u) {
		// Another payee's entry for one of our own origins would list
		// the stranger's payTo under the seller's URL.
		return rejected("the resource's origin is served by this facilitator's own server, whose routes are listed from its configuration; it is not cataloged from a payment")
	}
	item := x402.DiscoveryItem{
		Resource: u, Type: in.Type, X402Version: x402.Version2,
		Accepts:       []x402.DiscoveryAccept{x402.AcceptOf(reqs.V2(reqs.Network))},
		LastUpdated:   h.f.Now().UTC().Format(time.RFC3339),
		RouteTemplate: decl.RouteTemplate,
		Extensions:    map[string]any{x402.ExtBazaar: decl},
	}
	if req.Resource != nil {
		item.Description, item.MimeType = x402.Clip(req.Resource.Description, 1024), x402.Clip(req.Resource.MimeType, 128)
	}
	data, err := json.Marshal(&item)
	if err != nil {
		return rejected("the bazaar declaration could not be encoded")
	}
	e := &store.CatalogEntry{Key: u + " " + in.Tool + " " + payTo, Type: in.Type, PayTo: payTo,
		Networks: []string{reqs.Network}, Schemes: []string{reqs.Scheme}, Data: data, Updated: h.f.Now()}
	max := h.catalogBytes
	if max == 0 {
		max = DefaultCatalogBytes
	}
	err = c.PutEntry(e, max)
	if errors.Is(err, store.ErrCatalogFull) {
		if n, perr := c.PruneCatalog(h.f.Now().Add(-CatalogStaleAfter)); perr == nil && n > 0 {
			err = c.PutEntry(e, max)
		}
	}
	switch {
	case errors.Is(err, store.ErrCatalogFull):
		return rejected("the discovery catalog is full")
	case errors.Is(err, store.ErrBadCatalogEntry):
		return rejected(fmt.Sprintf("the catalog entry would be %d bytes, over %d KiB", len(data), store.MaxCatalogEntryBytes>>10))
	case err != nil:
		h.f.Logger().Warn("writing the discovery catalog failed", zap.Error(err))
		return rejected("the discovery catalog could not be written; it is cataloged with the next payment")
	}
	return BazaarResponse{Status: BazaarSuccess}
}
