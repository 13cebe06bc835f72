// Package access is the x402 paywall's access windows. It owns the
// access options of the x402 directive (Window), the
// run-time Gate of a route with access (grants, the access cookie,
// Sign-In-With-X, the rotating server key) and the access metrics. The
// paywall (caddymodule) builds a Gate per route, lets it serve requests
// without payment, answers the refusals it returns and hands it each
// settled payment; access never calls back into the paywall.
//
// Pay once, come back: with access set, a settled payment grants its
// payer access to the route (the directive's scope) from its settlement
// until settlement + access. The grant is kept in the redemption store's
// storage (durable; in PostgreSQL, on every instance) and pruned after it
// ends. A request with a live grant is served without payment, shown
// either way:
//
//	SIGN-IN-WITH-X  the x402 sign-in-with-x extension: every 402 declares a
//	                challenge, the buyer signs it with the wallet that paid
//	                (signin.go)
//	a cookie        every paid response (and every sign-in) sets an
//	                HttpOnly cookie that carries the grant, signed with a
//	                server key (cookie.go), so a browser's reload
//	                shows the content without the wallet
//
// The upstream of a request served by a grant gets X-Payment-From (the
// payer), X-Payment-Access-Until (the grant's end, RFC 3339) and
// X-Payment-Access-Via (sign-in-with-x or cookie), and no settlement
// headers: no new payment was made.
package access
