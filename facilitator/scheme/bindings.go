package scheme

// Bindings is the core as a scheme's own reads see it (facilitator.
// Facilitator): its Bound on each network, for what a scheme serves
// beside payments (exact's stats, batch-settlement's channel reads).
type Bindings interface {
	// Bounds lists the scheme's Bound on each network it is bound to, in
	// configuration order.
	Bounds(name string) []Bound
	// Bound is the scheme's Bound on a network (by any of its names);
	// false when it is not bound there.
	Bound(network, name string) (Bound, bool)
}
