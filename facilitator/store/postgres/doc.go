// Package postgres is the shared store backend (package store's
// interfaces) in a PostgreSQL database, which any number of instances use
// at once. Open returns the Store; its views are the Journal (a
// store.Shared journal, also a store.Catalog and a store.CoolOffs), the
// Redemptions (also a store.Channels with store.WatchMarks, a
// store.Grants, a store.RotatingSecrets and a store.CoolOffs) and the
// Claims (store.Claims and store.Leader, held across instances). Each
// instance holds a lease that fences its writes. OpenSecrets opens the
// named secrets alone (caddy x402 rotate-key).
package postgres
