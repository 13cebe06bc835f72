package facilitator_test

// The facilitators of these tests serve the schemes this module ships.
import _ "github.com/caddy-x402/caddy-x402/facilitator/schemes"
