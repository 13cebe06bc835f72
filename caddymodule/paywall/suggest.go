package paywall

import "fmt"

// options are the x402 directive's block options (caddyfile.go), the list
// a mistyped one is matched against.
var options = []string{
	"pay_to", "price", "amount", "network", "max_timeout", "description", "mime_type",
	"facilitator", "facilitator_dialect", "facilitator_header", "settle", "scheme",
	"claim_every", "refund_idle", "refund_window", "refund_min", "meter", "meter_max_bytes",
	"gas_sponsoring", "asset_transfer", "asset", "decimals", "eip712_name", "eip712_version",
	"attempt_limit", "refusal_cache", "forward_payment_header", "allow_encoded_percent", "label", "payment_identifier", "offer_receipt", "receipt_transaction",
	"paywall", "paywall_template", "explorer", "access", "access_cookie", "input_schema",
	"input_example", "body_type", "output_schema", "output_example", "discovery", "mcp_tool",
	"mcp_max_body", "mcp_max_answer", "mcp_call_timeout",
}

// unknownOption is the error of an option the directive does not know,
// naming the nearest known one when it is a few letters away.
func unknownOption(opt string) error {
	best, dist := "", len(opt)/3+2 // a typo: at most a third of the letters, or two
	for _, o := range options {
		if d := editDistance(opt, o); d < dist {
			best, dist = o, d
		}
	}
	if best == "" {
		return fmt.Errorf("x402: unrecognized option %q", opt)
	}
	return fmt.Errorf("x402: unrecognized option %q; did you mean %s?", opt, best)
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
