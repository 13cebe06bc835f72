package access

// Route is what a gate knows of its route: the payment options that
// identify it for grants and name its sign-in chains, and its labels.
type Route struct {
	// Options are the route's payment options, in the seller's order.
	Options []Option
	// Label is the directive's label, part of the route's identity.
	Label string
	// MetricsLabel is the route label of the metrics.
	MetricsLabel string
}

// Option is one payment option of a route, as grants know it.
type Option struct {
	Network, CAIP2, PayTo, Asset, Description, MimeType string
}

// siwxChains are the CAIP-2 ids of the route's networks whose chain id is
// known, in the seller's order: the chains a buyer may sign in on.
func (g *Gate) siwxChains() []string {
	var out []string
	for _, o := range g.route.Options {
		if o.CAIP2 != "" {
			out = append(out, o.CAIP2)
		}
	}
	return out
}

// siwxNetwork is the route's network of a sign-in's chain ("" when the
// route has no such chain).
func (g *Gate) siwxNetwork(chain string) string {
	for _, o := range g.route.Options {
		if o.CAIP2 == chain {
			return o.Network
		}
	}
	return ""
}

// firstNetwork is the route's first network, the label of what concerns
// the route rather than one payment.
func (g *Gate) firstNetwork() string {
	if len(g.route.Options) == 0 {
		return ""
	}
	return g.route.Options[0].Network
}
