package httpx

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Register adds c to reg unless it is there already.
func Register(reg *prometheus.Registry, c prometheus.Collector) error {
	if reg == nil {
		return nil
	}
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return fmt.Errorf("registering x402 metrics: %w", err)
		}
	}
	return nil
}
