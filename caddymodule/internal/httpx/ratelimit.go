package httpx

import "github.com/caddyserver/caddy/v2"

// RateLimit allows Requests per Window per client IP.
type RateLimit struct {
	// Requests is the number of requests allowed per window.
	Requests int `json:"requests"`
	// Window is the period the limit applies to.
	Window caddy.Duration `json:"window"`
}
