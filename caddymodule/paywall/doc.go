// Package paywall is the x402 directive: the http.handlers.x402 module
// (Handler) and x402_path_guard (PathGuard), registered in its init with
// the directive's Caddyfile parsing. It owns what a paid request goes
// through: the route's price and payment options (pricing.go), the
// per-client attempt limit and refusal cache (attempts.go), verify, claim
// and settle before or after the upstream (checkout.go, settle_after.go),
// exactly-once delivery against the delivery records (delivery.go,
// records.go, lookup.go, lost_payment.go, paymentid.go), the v1 and v2
// answers (reply.go), the route's metrics, the discovery manifest and the
// payment page's handler side (its assets are package page). Access
// windows are package access: the Handler holds an access.Gate and answers
// the refusals it returns.
package paywall
