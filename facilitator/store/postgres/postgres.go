package postgres

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Options tunes the PostgreSQL store.
type Options struct {
	// Lease is how long an instance's lease lasts without renewal: after
	// it runs out, the instance is taken for dead, its pending settlements
	// are taken over by a live one and its claims may be taken. It is
	// renewed every fifth of it, on a connection of its own, each renewal
	// given as long as the lease lasts, so a store whose round trips take
	// up to about a third of the lease keeps it. It also bounds the store:
	// a statement is given twice the lease (at least 5 s), a new
	// connection the lease. Zero means 5 s.
	Lease time.Duration
	// MaxConns bounds the connections to the database. Zero means 16.
	MaxConns int32
	// Logger receives the store's logs; nil means none.
	Logger *zap.Logger
}

// Store is the shared store in a PostgreSQL database: the settlement
// journal, the redemption records and their payment ids, the claims, and
// the coordination of signer keys (nonces, instance leases) for any number
// of instances. It creates and migrates its own tables (prefixed x402_) in
// an existing database. Journal, Redemptions and Claims are its views.
type Store struct {
	pool    *pgxpool.Pool
	logger  *zap.Logger
	dsn     string
	where   string // the redacted DSN
	lease   time.Duration
	timeout time.Duration // a statement's budget (ctx)
	host    string
	// chargeMode is how a voucher's charge statements go (charge.go).
	chargeMode pgx.QueryExecMode

	// leaseCfg and leaseConn are the lease's own connection, used by
	// register and keepLease only (one at a time), so that its renewal
	// never waits for the pool, nor is cut by another statement's budget.
	leaseCfg  *pgx.ConnConfig
	leaseConn *pgx.Conn
	loops     sync.WaitGroup // keepLease, keepReleasing

	mu        sync.Mutex
	instance  string    // the current lease's instance ID
	liveUntil time.Time // the lease holds until then, by the local clock
	// claims are the keys a request of this process holds, or whose
	// release has not reached the database yet, each with the lease ID
	// its row names (the lease it was claimed under): a release deletes
	// that row, never a row of the key that a later claim wrote.
	claims  map[string]string
	unclaim map[string]string // releases that failed, tried again: key -> the row's owner

	journal     *Journal
	redemptions *Redemptions
	claimsView  *Claims

	stop, done chan struct{}
	closeOnce  sync.Once
}

// Open connects to the database at dsn (a libpq URL or key=value
// string), migrates the schema, and registers this instance with a lease
// that it renews until Close.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	where := RedactDSN(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("the PostgreSQL storage %s is not a valid connection string (postgres://user:password@host:5432/database?sslmode=...): %s", where, scrub(err, dsn))
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 16
	}
	if opts.Lease <= 0 {
		opts.Lease = 5 * time.Second
	}
	cfg.MaxConns = opts.MaxConns
	tune(cfg, dsn, opts.Lease)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the PostgreSQL storage %s: %s", where, scrub(err, dsn))
	}
	p := &Store{pool: pool, logger: opts.Logger, dsn: dsn, where: where, lease: opts.Lease,
		timeout: max(5*time.Second, 2*opts.Lease), leaseCfg: cfg.ConnConfig.Copy(), chargeMode: chargeMode(cfg, dsn),
		claims: map[string]string{}, unclaim: map[string]string{}, stop: make(chan struct{}), done: make(chan struct{})}
	if p.logger == nil {
		p.logger = zap.NewNop()
	}
	p.journal = &Journal{p: p, Catalog: &Catalog{p}, CoolOffs: &CoolOffs{p}}
	p.redemptions = &Redemptions{p: p, Channels: &Channels{p: p}, Grants: &Grants{p}, CoolOffs: &CoolOffs{p}}
	p.claimsView = &Claims{p}
	p.host, _ = os.Hostname()
	applied, err := migrate(ctx, pool)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("preparing the x402 tables in the PostgreSQL storage %s (is the database reachable, and may this user create tables?): %s", where, scrub(err, dsn))
	}
	if applied > 0 {
		p.logger.Info("migrated the x402 tables of the PostgreSQL storage", zap.String("storage", where), zap.Int("migrations", applied))
	}
	checkDurability(ctx, pool, p.logger, where)
	if err := p.register(ctx); err != nil {
		p.closeLeaseConn()
		pool.Close()
		return nil, fmt.Errorf("registering this instance in the PostgreSQL storage %s: %s", where, scrub(err, dsn))
	}
	p.loops.Add(2)
	go p.keepLease()
	go p.keepReleasing()
	go func() { p.loops.Wait(); close(p.done) }()
	return p, nil
}

// DSN is the connection string the store was opened with. It holds
// credentials: never log it (Where is for that).
func (p *Store) DSN() string { return p.dsn }

// Where is the storage's connection string with its credentials, path and
// options cut (RedactDSN), for logs and errors.
func (p *Store) Where() string { return p.where }

// Pool is the connection pool, for tests and tools.
func (p *Store) Pool() *pgxpool.Pool { return p.pool }

// Close ends the lease (so that the instance's settlements are taken over
// at once, not after the lease runs out) and the connections.
func (p *Store) Close() error {
	p.closeOnce.Do(func() {
		close(p.stop)
		<-p.done
		p.endLease()
		p.pool.Close()
	})
	return nil
}

// RedactDSN cuts the credentials, path and options of a connection
// string, as the RPC URLs are shown: postgres://user:pass@host:5432/db?x
// shows as postgres://…@host:5432/…?…. A key=value string shows only its
// host and port.
func RedactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Host != "" {
		out := u.Scheme + "://"
		if u.User != nil {
			out += "…@"
		}
		out += u.Host
		if u.Path != "" && u.Path != "/" {
			out += "/…"
		}
		if u.RawQuery != "" {
			out += "?…"
		}
		return out
	}
	var host, port string
	for _, f := range strings.Fields(dsn) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "host":
			host = v
		case "port":
			port = v
		}
	}
	if host == "" {
		return "postgres (connection string hidden)"
	}
	if port != "" {
		host += ":" + port
	}
	return "postgres host=" + host + " (credentials hidden)"
}

// scrub is an error's text without the connection string or its password,
// should the driver have quoted them.
func scrub(err error, dsn string) string {
	s := err.Error()
	if dsn != "" {
		s = strings.ReplaceAll(s, dsn, RedactDSN(dsn))
	}
	if u, perr := url.Parse(dsn); perr == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			s = strings.ReplaceAll(s, pw, "…")
		}
	}
	for _, f := range strings.Fields(dsn) {
		if k, v, _ := strings.Cut(f, "="); k == "password" && v != "" {
			s = strings.ReplaceAll(s, v, "…")
		}
	}
	return s
}

// rows collects the JSON records a query returns.
func collectRecords(rows pgx.Rows) ([]*store.Record, error) {
	var out []*store.Record
	for rows.Next() {
		r := new(store.Record)
		if err := rows.Scan(r); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
