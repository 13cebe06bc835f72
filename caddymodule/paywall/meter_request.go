package paywall

import (
	"net/http"
	"strings"
)

// A metered answer is read whole, or charged as if it were (the
// maximum), whatever the buyer asked for.
//
// On a route with a meter, the buyer's request headers that make an
// upstream send part of its answer (Range, If-Range), none of it (the
// conditional If-None-Match, If-Modified-Since: 304) or an encoding the
// meter does not read (Accept-Encoding) are removed before the upstream
// (forMeter). An answer that comes back partial (206), empty (304) or
// with a Content-Encoding anyway is charged the maximum unless the
// upstream states its charge in Settlement-Overrides (unreadable).

// meteredRequestHeaders are the request headers removed on a route with
// a meter.
var meteredRequestHeaders = []string{"Range", "If-Range", "If-None-Match", "If-Modified-Since", "Accept-Encoding"}

// forMeter removes meteredRequestHeaders from a request the meter will
// read the answer of (a route with a meter), before the upstream.
func (m *meterer) forMeter(r *http.Request) {
	if m.meter == nil {
		return
	}
	for _, k := range meteredRequestHeaders {
		r.Header.Del(k)
	}
}

// unreadable says why the meter cannot read an answer of this status
// and header as the whole answer, or "" when it can.
func unreadable(status int, hdr http.Header) string {
	switch status {
	case http.StatusPartialContent:
		return "the answer is a part (206 Partial Content)"
	case http.StatusNotModified:
		return "the answer has no body (304 Not Modified)"
	}
	if enc := strings.TrimSpace(hdr.Get("Content-Encoding")); enc != "" && !strings.EqualFold(enc, "identity") {
		return "the answer is encoded (Content-Encoding " + enc + ")"
	}
	return ""
}

// dropOverrideTrailer removes Settlement-Overrides from the trailers an
// upstream announced (the Trailer header) and set (after the body, as a
// key of the header map or with http.TrailerPrefix): the buyer never sees
// it, and it is not the charge (the reference servers read the header
// only; a trailer comes after the answer, when a streamed answer's charge
// was settled). It reports whether a value was set.
func dropOverrideTrailer(hdr http.Header) bool {
	if vs, ok := hdr["Trailer"]; ok {
		var keep []string
		dropped := false
		for _, v := range vs {
			for _, k := range strings.Split(v, ",") {
				if k = strings.TrimSpace(k); k == "" {
					continue
				}
				if http.CanonicalHeaderKey(k) == HeaderSettlementOverrides {
					dropped = true
					continue
				}
				keep = append(keep, k)
			}
		}
		if dropped {
			if len(keep) == 0 {
				delete(hdr, "Trailer")
			} else {
				hdr["Trailer"] = []string{strings.Join(keep, ", ")}
			}
		}
	}
	set := false
	for k := range hdr {
		name := k
		if strings.HasPrefix(k, http.TrailerPrefix) {
			name = k[len(http.TrailerPrefix):]
		}
		if http.CanonicalHeaderKey(name) == HeaderSettlementOverrides {
			delete(hdr, k)
			set = true
		}
	}
	return set
}
