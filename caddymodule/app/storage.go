package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
)

// StorageConfig is where the x402 app keeps its durable state when it is
// not the embedded bbolt files of one instance.
type StorageConfig struct {
	// Postgres is the connection string of a PostgreSQL database (a libpq
	// URL: postgres://user:password@host:5432/database?sslmode=...) that
	// holds the settlement journal, the redemption records, the payment
	// ids and the coordination of signer keys, so that any number of Caddy
	// instances with the same config serve as one. Give it as a
	// placeholder ({env.X402_DATABASE_URL} or {file./path}), so that the
	// password is not in the config the admin API serves: a literal
	// connection string with a password is refused. The instance creates
	// and migrates its own tables (x402_*) in the existing database.
	Postgres string `json:"postgres,omitempty"`
	// Lease is how long an instance's lease in PostgreSQL lasts without
	// renewal (default 5s): an instance that cannot renew it for that
	// long (killed, paused, cut off) is taken for dead, and a live one
	// takes over its pending settlements. It is renewed every fifth of
	// it, on a connection of its own, so it holds while the database's
	// round trips take up to about a third of it; it also bounds each
	// statement (twice the lease, at least 5s). Longer rides out a slower
	// or more distant database; shorter fails over sooner. Every instance
	// on the database should have the same.
	Lease caddy.Duration `json:"lease,omitempty"`
}

// Bounds of the storage lease.
const (
	minStorageLease = time.Second
	maxStorageLease = 10 * time.Minute
)

// validate checks the storage settings that need no connection.
func (s *StorageConfig) validate(a *App) error {
	if s.Postgres == "" {
		return errors.New("storage needs a backend: storage postgres <connection string>")
	}
	if a.Journal != "" || a.Redemptions != "" {
		return errors.New("journal and redemptions name the embedded bbolt files of one instance; with storage postgres the journal and the redemption records live in PostgreSQL, so remove them")
	}
	if l := time.Duration(s.Lease); l != 0 && (l < minStorageLease || l > maxStorageLease) {
		return fmt.Errorf("storage postgres lease %v is out of range: give %v to %v (the default is 5s)", l, minStorageLease, maxStorageLease)
	}
	if !strings.Contains(s.Postgres, "{") && dsnHasPassword(s.Postgres) {
		return fmt.Errorf("storage postgres %s holds a password in the config (which the admin API serves): give it as a placeholder such as {env.X402_DATABASE_URL}", postgres.RedactDSN(s.Postgres))
	}
	return nil
}

// dsnHasPassword reports whether a connection string holds a password.
func dsnHasPassword(dsn string) bool {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return true
		}
	}
	for _, f := range strings.Fields(dsn) {
		if k, _, _ := strings.Cut(f, "="); k == "password" {
			return true
		}
	}
	return strings.Contains(dsn, "password=")
}

// OpenSecrets opens the secrets (the access server key) in the PostgreSQL
// storage for a command run beside the instances ("caddy x402 rotate-key"),
// its placeholder resolved from this process's environment.
func (s *StorageConfig) OpenSecrets(ctx context.Context) (*postgres.Secrets, error) {
	dsn, err := caddy.NewReplacer().ReplaceOrErr(strings.TrimSpace(s.Postgres), true, true)
	if err != nil || dsn == "" {
		return nil, fmt.Errorf("storage postgres: the placeholder %s cannot be resolved or is empty here: set it as for the instances (for example export X402_DATABASE_URL=postgres://...)",
			postgres.RedactDSN(s.Postgres))
	}
	return postgres.OpenSecrets(ctx, dsn)
}

// sharedPostgres is the PostgreSQL store held in the usage pool: one per
// connection string in the process, shared by consecutive configs, so
// that a reload keeps the instance's lease (and with it what it follows).
type sharedPostgres struct{ p *postgres.Store }

// Destruct ends the lease and closes the connections when the last config
// using the store is gone.
func (s *sharedPostgres) Destruct() error { return s.p.Close() }

// provisionPostgres opens (or reuses) the PostgreSQL store and returns it
// with the name that stands for it in journal IDs and errors (credentials
// cut).
func (a *App) provisionPostgres() (*postgres.Store, string, error) {
	dsn, err := caddy.NewReplacer().ReplaceOrErr(strings.TrimSpace(a.Storage.Postgres), true, true)
	if err != nil || dsn == "" {
		return nil, "", fmt.Errorf("x402: storage postgres: the placeholder %s cannot be resolved or is empty: set it (for example export X402_DATABASE_URL=postgres://...)",
			postgres.RedactDSN(a.Storage.Postgres))
	}
	sum := sha256.Sum256([]byte(dsn))
	id := "postgres:" + postgres.RedactDSN(dsn) + "#" + hex.EncodeToString(sum[:6])
	key := "storage:" + hex.EncodeToString(sum[:])
	val, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		p, err := postgres.Open(ctx, dsn, postgres.Options{Lease: time.Duration(a.Storage.Lease), Logger: a.logger.Named("storage")})
		if err != nil {
			return nil, err
		}
		a.logger.Info("x402 state is in PostgreSQL, shared by every instance on it",
			zap.String("storage", p.Where()), zap.String("instance", p.Instance()))
		return &sharedPostgres{p: p}, nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("x402: %w", err)
	}
	a.keys = append(a.keys, key)
	return val.(*sharedPostgres).p, id, nil
}
