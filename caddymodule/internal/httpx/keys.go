package httpx

import "regexp"

// KeyPlaceholder is what a signer key or API key must be in the config:
// one {env.*} or {file.*} placeholder.
var KeyPlaceholder = regexp.MustCompile(`^\{(env|file)\.[^{}]+\}$`)
