package httpx

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// retryAfter is the Retry-After of a retry answer, in seconds.
const retryAfter = "2"

// WriteRetryJSON writes a JSON answer that tells the buyer to send the
// request again after Retry-After seconds.
func WriteRetryJSON(w http.ResponseWriter, status int, text, retry string, extra ...string) error {
	fields := map[string]any{"x402Version": 1, "error": text, "retry": retry, "retryAfterSeconds": 2}
	for i := 0; i+1 < len(extra); i += 2 {
		fields[extra[i]] = extra[i+1]
	}
	body, _ := json.Marshal(fields)
	body = append(body, '\n')
	hdr := w.Header()
	hdr["Content-Type"] = []string{"application/json"}
	hdr["Cache-Control"] = []string{"no-store"}
	hdr["Retry-After"] = []string{retryAfter}
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, werr := w.Write(body)
	return werr
}
