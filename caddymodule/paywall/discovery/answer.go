package discovery

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// allowedMethods are the methods the well-known answers take.
const allowedMethods = "GET, HEAD, OPTIONS"

// readOnly says whether r asks a well-known answer with a method it
// answers (GET or HEAD); answerMethod answers the others.
func readOnly(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Method == http.MethodHead
}

// answerMethod answers a well-known path this site serves asked with
// another method than GET or HEAD, so that it never reaches the site's
// next handler (the seller's upstream): OPTIONS (a CORS preflight) gets
// 204 with the methods allowed from any origin, anything else 405 with
// Allow and a JSON error.
func answerMethod(w http.ResponseWriter, r *http.Request) error {
	hdr := w.Header()
	hdr.Set("Allow", allowedMethods)
	hdr.Set("Access-Control-Allow-Origin", "*")
	if r.Method == http.MethodOptions {
		hdr.Set("Access-Control-Allow-Methods", allowedMethods)
		hdr.Set("Cache-Control", "max-age=60")
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	body, err := json.Marshal(map[string]string{"error": r.Method + " is not answered here: ask with GET"})
	if err != nil {
		return err
	}
	return writeAnswer(w, r, http.StatusMethodNotAllowed, "application/json", "no-store", append(body, '\n'))
}

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
