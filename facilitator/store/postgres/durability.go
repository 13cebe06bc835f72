package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// The store needs every commit it was told succeeded to survive a crash of
// the database: a settlement's journal row is written before its
// transaction is broadcast, and a redemption row before the upstream runs.
// With synchronous_commit=off, PostgreSQL acknowledges a commit before its
// WAL is on disk (up to three times wal_writer_delay before); a crash
// then loses it, and so does a failover to an asynchronous replica. With
// fsync=off, a crash of the machine loses commits. The paywall recovers a
// payment whose records were lost from the chain (it delivers it when the
// facilitator's own signer settled it to the route), but the journal's
// other guarantees (one transaction per authorization, recovery of a
// broadcast in flight) need durable commits.

// durabilityIssues names the settings, as our sessions see them, under
// which a commit PostgreSQL acknowledged can be lost, with what to do.
func durabilityIssues(synchronousCommit, fsync string) []string {
	var out []string
	if synchronousCommit == "off" {
		out = append(out, "synchronous_commit is off: a commit is acknowledged before it is on disk, so a crash of PostgreSQL loses the last settlements' journal and redemption rows; set it to on (ALTER DATABASE <db> SET synchronous_commit = on, or in postgresql.conf), and with replicas use synchronous ones (synchronous_standby_names) so a failover keeps them too")
	}
	if fsync == "off" {
		out = append(out, "fsync is off: a crash of the machine can lose acknowledged commits and corrupt the database; set fsync = on in postgresql.conf")
	}
	return out
}

// checkDurability reads the durability settings of the store's sessions
// (per role and database settings included) and warns, once at start, of
// each one that can lose an acknowledged commit. A failure to read them is
// logged and does not stop the store.
func checkDurability(ctx context.Context, pool *pgxpool.Pool, logger *zap.Logger, where string) {
	var sc, fsync string
	err := pool.QueryRow(ctx, `SELECT current_setting('synchronous_commit'), current_setting('fsync')`).Scan(&sc, &fsync)
	if err != nil {
		logger.Warn("could not read the PostgreSQL storage's durability settings (synchronous_commit, fsync); make sure commits are durable: the store needs them",
			zap.String("storage", where), zap.Error(err))
		return
	}
	for _, issue := range durabilityIssues(sc, fsync) {
		logger.Warn(fmt.Sprintf("the PostgreSQL storage can lose acknowledged writes: %s", issue),
			zap.String("storage", where), zap.String("synchronous_commit", sc), zap.String("fsync", fsync))
	}
}
