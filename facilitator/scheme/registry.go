package scheme

import (
	"fmt"
	"sync"
)

var registry struct {
	mu  sync.Mutex
	all []Mechanism
}

// Register adds a Mechanism. It panics on a second one with the same name
// and family.
func Register(m Mechanism) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, o := range registry.all {
		if o.Name() == m.Name() && o.Family() == m.Family() {
			panic(fmt.Sprintf("scheme %s on %s registered twice", m.Name(), m.Family()))
		}
	}
	registry.all = append(registry.all, m)
}

// Lookup finds the Mechanism of a scheme on a family.
func Lookup(name, family string) (Mechanism, bool) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, m := range registry.all {
		if m.Name() == name && m.Family() == family {
			return m, true
		}
	}
	return nil, false
}

// Known reports whether a scheme of this name is registered, on any family.
func Known(name string) bool {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, m := range registry.all {
		if m.Name() == name {
			return true
		}
	}
	return false
}

// All lists the registered Mechanisms in registration order.
func All() []Mechanism {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return append([]Mechanism(nil), registry.all...)
}
