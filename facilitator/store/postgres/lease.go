package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"
)

// A slow store (a distant database, a congested link) must cost time, not
// leases: an instance whose lease runs out is taken for dead, its
// settlements are taken over and its paid requests refused. So the lease
// is renewed on a connection of its own (never waiting for the pool, never
// cut by another statement's budget), each renewal is given as long as the
// lease lasts (cutting one short costs its connection, and a new one costs
// a round trip more), the lease's end is set by the database's clock, and
// every statement of the store goes in one round trip.

// slowRenewalLogEvery spaces the logs of slow renewals.
const slowRenewalLogEvery = time.Minute

// tune sets the pool up for a store that may be slow. Every statement goes
// in one round trip (pgx's exec mode: no statement to prepare per
// connection, none to deallocate after an error), unless the connection
// string chooses a mode. A connection taken from the pool is checked
// without a round trip and without waiting (connAlive: a peek at what the
// server may have sent; a closed connection shows at once) and pinged only
// after a minute idle, not after a second as pgx does by default (a ping
// is a round trip, on every request of a quiet instance). A new connection
// is given the lease, unless the connection string sets connect_timeout.
func tune(cfg *pgxpool.Config, dsn string, lease time.Duration) {
	if !choosesExecMode(dsn) {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = max(5*time.Second, lease)
	}
	cfg.ShouldPing = func(_ context.Context, sp pgxpool.ShouldPingParams) bool {
		return sp.IdleDuration > time.Minute || !connAlive(sp.Conn.PgConn().Conn())
	}
}

// choosesExecMode says whether the connection string sets how statements
// go (default_query_exec_mode): then that mode holds for every statement.
func choosesExecMode(dsn string) bool { return strings.Contains(dsn, "default_query_exec_mode") }

// Live implements Shared.
func (p *Store) Live() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Now().Before(p.liveUntil)
}

// leaseConnection is the lease's connection, connected if need be.
func (p *Store) leaseConnection(ctx context.Context) (*pgx.Conn, error) {
	if p.leaseConn != nil && !p.leaseConn.IsClosed() {
		return p.leaseConn, nil
	}
	c, err := pgx.ConnectConfig(ctx, p.leaseCfg)
	if err != nil {
		return nil, err
	}
	p.leaseConn = c
	return c, nil
}

// closeLeaseConn closes the lease's connection (after an error: the next
// renewal connects anew).
func (p *Store) closeLeaseConn() {
	if p.leaseConn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = p.leaseConn.Close(ctx)
	p.leaseConn = nil
}

// register starts a lease under a new instance ID.
func (p *Store) register(ctx context.Context) error {
	var b [8]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	conn, err := p.leaseConnection(ctx)
	if err != nil {
		return err
	}
	sent := time.Now()
	if _, err := conn.Exec(ctx, `INSERT INTO x402_instances (id, host, expires_at) VALUES ($1, $2, clock_timestamp() + $3::interval)`,
		id, p.host, p.lease.String()); err != nil {
		p.closeLeaseConn()
		return err
	}
	p.mu.Lock()
	old := p.instance
	p.instance, p.liveUntil = id, sent.Add(p.lease)
	// The claims taken under the old lease stay held here until their
	// requests release them (another instance may take their rows now,
	// the old lease being over; a request here may not, while one of this
	// process holds the key), and their releases delete the old lease's
	// rows, not a new claim of the key.
	p.mu.Unlock()
	if old != "" {
		p.logger.Warn("this instance's lease in the shared store had run out (it was paused, or cut off from the database); it holds a new one and carries on, its earlier settlements are taken over like a dead instance's",
			zap.String("old_instance", old), zap.String("instance", id))
	}
	return nil
}

// keepLease renews the lease every fifth of its length, from the start of
// one renewal to the next (one that took longer is followed at once).
func (p *Store) keepLease() {
	defer p.loops.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-p.stop
		cancel()
	}()
	t := time.NewTicker(p.lease / 5)
	defer t.Stop()
	var loggedSlow time.Time
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		start := time.Now()
		p.renew(ctx)
		if took := time.Since(start); took > p.lease/3 && time.Since(loggedSlow) > slowRenewalLogEvery {
			loggedSlow = time.Now()
			p.logger.Warn("the PostgreSQL storage is slow: renewing this instance's lease took a large part of the lease; should a renewal take longer than the lease, the lease runs out and the instance is taken for dead. Bring the database closer, or set a longer lease (storage postgres ... { lease <duration> })",
				zap.String("storage", p.where), zap.Duration("renewal", took), zap.Duration("lease", p.lease))
		}
	}
}

// keepReleasing retries, every fifth of the lease, the releases of claims
// that failed, apart from the renewals so that it never delays one.
func (p *Store) keepReleasing() {
	defer p.loops.Done()
	t := time.NewTicker(p.lease / 5)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		ctx, cancel := p.ctx()
		p.retryReleases(ctx)
		cancel()
	}
}

// renew extends the lease, given as long as the lease lasts: an answer
// that comes later finds it run out anyway. One that ran out is not
// extended (another instance may have taken over), so the instance
// registers anew.
func (p *Store) renew(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, p.lease)
	defer cancel()
	id := p.Instance()
	conn, err := p.leaseConnection(ctx)
	if err == nil {
		sent := time.Now()
		tag, xerr := conn.Exec(ctx, `UPDATE x402_instances SET expires_at = clock_timestamp() + $2::interval
			WHERE id = $1 AND expires_at > clock_timestamp()`, id, p.lease.String())
		switch {
		case xerr != nil:
			err = xerr
			p.closeLeaseConn()
		case tag.RowsAffected() == 1:
			p.mu.Lock()
			p.liveUntil = sent.Add(p.lease)
			p.mu.Unlock()
			return
		default:
			p.mu.Lock()
			p.liveUntil = time.Time{}
			p.mu.Unlock()
			if err := p.register(ctx); err != nil {
				p.logger.Warn("registering this instance in the PostgreSQL storage failed; tried again shortly", zap.String("storage", p.where), zap.Error(err))
			}
			return
		}
	}
	select {
	case <-p.stop:
		return // closing: the renewal was cut on purpose
	default:
	}
	p.logger.Warn("renewing this instance's lease in the PostgreSQL storage failed; should the lease run out, paid requests are refused with 503 until the database answers again",
		zap.String("storage", p.where), zap.Bool("lease_holds", p.Live()), zap.Error(err))
}

// endLease ends the lease at Close, so that the instance's settlements
// are taken over at once, not after the lease runs out.
func (p *Store) endLease() {
	ctx, cancel := context.WithTimeout(context.Background(), max(2*time.Second, p.lease/2))
	defer cancel()
	const end = `UPDATE x402_instances SET expires_at = clock_timestamp() WHERE id = $1`
	if p.leaseConn != nil && !p.leaseConn.IsClosed() {
		_, _ = p.leaseConn.Exec(ctx, end, p.Instance())
	} else {
		_, _ = p.pool.Exec(ctx, end, p.Instance())
	}
	p.closeLeaseConn()
}
