package x402cmd

// EachX402Handler calls fn with every x402 handler of a config's JSON
// (decoded into any), wherever it sits: in routes, subroutes and handle
// blocks at any depth.
func EachX402Handler(v any, fn func(h map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		if v["handler"] == "x402" {
			fn(v)
		}
		for _, c := range v {
			EachX402Handler(c, fn)
		}
	case []any:
		for _, c := range v {
			EachX402Handler(c, fn)
		}
	}
}
