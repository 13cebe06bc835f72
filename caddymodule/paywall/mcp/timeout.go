package mcp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
)

// The time limit of a priced MCP call (mcp_call_timeout): the server's
// answer is read whole to find the call's response, so a server whose
// event stream never ends would hold the call, and the buyer's payment,
// for ever. The server's request is cancelled at the limit; what it
// answered by then is the answer: the call's response if it came, else
// none (answered as a call without a result: not settled after, paid but
// not delivered before).

// errCallTimeout is the cause of a priced call's context cancelled at
// mcp_call_timeout.
var errCallTimeout = errors.New("x402: the MCP server did not finish its answer within mcp_call_timeout")

// callTimedOut is the origStatus of a call whose server gave no response
// within mcp_call_timeout (serverAnswer answers a JSON-RPC error).
const callTimedOut = -2

// serveBounded runs next for a priced call with the route's time limit,
// and reports whether the limit cut it. reverse_proxy aborts an answer it
// cannot complete by panicking with http.ErrAbortHandler: when the limit
// caused it, the panic ends here (what was read is kept in w).
func (u upstream) serveBounded(w http.ResponseWriter, r *http.Request) (timedOut bool, err error) {
	ctx, cancel := context.WithTimeoutCause(r.Context(), u.t.callTimeout, errCallTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler && errors.Is(context.Cause(ctx), errCallTimeout) {
				timedOut, err = true, errCallTimeout
				return
			}
			panic(p)
		}
	}()
	err = u.next.ServeHTTP(w, r.WithContext(ctx))
	return errors.Is(context.Cause(ctx), errCallTimeout), err
}

// answeredIn reports whether what the server wrote within the limit holds
// the response to the call (a 2xx answer, unencoded, not over
// mcp_max_answer): then it is the answer, the rest of the stream aside.
func (c *call) answeredIn(bw *bufferWriter) bool {
	if bw.over || bw.status < 200 || bw.status > 299 {
		return false
	}
	if enc := bw.header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		return false
	}
	return parseAnswer(bw.header.Get("Content-Type"), bw.body.Bytes(), c.id) != nil
}

// textTimedOut is the error of a call the server did not answer within
// mcp_call_timeout.
func textTimedOut(limit time.Duration) string {
	return "the MCP server did not answer this call within " + limit.String() + " (mcp_call_timeout), so there is no result to deliver"
}
