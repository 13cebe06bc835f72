package discovery

import (
	"net/http"
	"strconv"
)

// writeAnswer writes one of the site's well-known JSON answers
// (x402.json, did.json, a receipt look-up): its content type, caching,
// CORS open to any origin (buyers' pages read them), its length, and the
// body except for HEAD.
func writeAnswer(w http.ResponseWriter, r *http.Request, status int, contentType, cacheControl string, body []byte) error {
	hdr := w.Header()
	hdr.Set("Content-Type", contentType)
	hdr.Set("Cache-Control", cacheControl)
	hdr.Set("Access-Control-Allow-Origin", "*")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(body)
	return err
}
