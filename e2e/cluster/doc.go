// Package cluster is the multi-instance suite of caddy-x402: it proves the
// promises of `storage postgres` (docs/cluster.md, "Several instances") with real
// processes. Each test starts a throwaway PostgreSQL server
// (internal/pgtest), an in-process development chain (facilitator/devnet)
// and several `caddy run` processes of the caddy binary built from this
// checkout, all with the same Caddyfile, on one fresh database, and then
// pays through them, kills, pauses and cuts them off, and checks every
// answer, the upstream's runs and the chain.
//
// The package holds tests only: `go test ./e2e/cluster/`. Without
// PostgreSQL's server binaries the tests skip (they fail when CI=true);
// with -short they skip.
//
// CLUSTER_NO_SHARED_STORE=1 starts the instances without `storage
// postgres`, each on its own bbolt journal and redemption store, to show
// that the tests fail without the shared store. It is for running by hand:
// the tests are expected to fail in that mode. CLUSTER_DEBUG=1 logs more
// (every answer of the failover, the instances' lease logs after an
// outage).
package cluster
