package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Redemptions is the paywall's redemption store in PostgreSQL. A
// payment id is a unique column of its record's row, so a record and the
// binding of its id are written and removed together, and the database
// settles two instances binding one id at once. Closing it leaves the
// store open. The payment channels, the access grants with the named
// secrets, and the cooling-offs (the same table as the journal's: the keys
// tell them apart) are in the same database: the store is a
// store.Channels (and store.WatchMarks), a store.Grants, a
// store.RotatingSecrets and a store.CoolOffs.
type Redemptions struct {
	p *Store
	*Channels
	*Grants
	*CoolOffs
}

// The capabilities kept beside the redemptions.
var (
	_ store.Channels        = (*Redemptions)(nil)
	_ store.WatchMarks      = (*Redemptions)(nil)
	_ store.Grants          = (*Redemptions)(nil)
	_ store.RotatingSecrets = (*Redemptions)(nil)
	_ store.CoolOffs        = (*Redemptions)(nil)
)

// DSN is the store's connection string (credentials included), to open
// another instance on it.
func (s *Redemptions) DSN() string { return s.p.dsn }

// Where is the store's address with its credentials cut, for logs.
func (s *Redemptions) Where() string { return s.p.where }

// Redemptions is the store's redemption records.
func (p *Store) Redemptions() *Redemptions { return p.redemptions }

var _ store.Redemptions = (*Redemptions)(nil)

// Get implements Redemptions.
func (s *Redemptions) Get(id string) (*store.Redemption, error) {
	ctx, cancel := s.p.ctx()
	defer cancel()
	r := new(store.Redemption)
	err := s.p.pool.QueryRow(ctx, `SELECT record FROM x402_redemptions WHERE id = $1`, id).Scan(r)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, pgError(err)
	}
	return r, nil
}

// Put implements Redemptions. A record whose key a request of this
// process holds a claim on (Claim) is written only while that claim is
// still this instance's (fenced, see heldBy): ErrClaimLost otherwise.
func (s *Redemptions) Put(id string, r *store.Redemption) error {
	_, err := s.put(id, r, putUpdate)
	return err
}

// Create implements Redemptions, fenced as Put.
func (s *Redemptions) Create(id string, r *store.Redemption) (bool, error) {
	return s.put(id, r, `DO NOTHING`)
}

var _ store.ReleasingPutter = (*Redemptions)(nil)

// PutReleasing implements ReleasingPutter: Put's statement and the
// release's (the claim row of the lease it was taken under) as one batch,
// one round trip and one implicit transaction. The write locks the claim
// row (fenceOn) and the release deletes it after the write, so a
// take-over waits for both and then reads the record.
func (s *Redemptions) PutReleasing(id string, r *store.Redemption) (bool, error) {
	owner := s.heldBy(id)
	if owner == nil {
		return false, s.Put(id, r)
	}
	args, err := recordArgs(id, r, owner)
	if err != nil {
		return false, err
	}
	b := &pgx.Batch{}
	b.Queue(putSQL(putUpdate), args...)
	b.Queue(`DELETE FROM x402_claims WHERE key = $1 AND owner = $2`, id, *owner)
	ctx, cancel := s.p.ctx()
	defer cancel()
	br := s.p.pool.SendBatch(ctx, b)
	var held, wrote bool
	err = br.QueryRow().Scan(&held, &wrote)
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, putError(err)
	}
	s.p.released([]string{id}, *owner, nil)
	if !held {
		return true, claimLost(id)
	}
	return true, nil
}

// putUpdate is Put's conflict clause: the record replaces the row.
const putUpdate = `DO UPDATE SET state = excluded.state, valid_before = excluded.valid_before,
			payment_id = excluded.payment_id, record = excluded.record`

// fenceOn is the first part of a redemption write: the row of the claim on
// the record's key (parameter k) by the lease it was taken under (o), locked
// (FOR SHARE) until the write commits, so that another instance taking
// the claim over waits for the write and then reads it, or comes first
// and the write finds no row. With no claim held here (o null) it is
// one row: the write is not fenced.
func fenceOn(k, o string) string {
	return `WITH held AS (
		SELECT 1 FROM x402_claims WHERE ` + o + `::text IS NOT NULL AND key = ` + k + ` AND owner = ` + o + ` FOR SHARE),
	fence AS (SELECT 1 FROM held UNION ALL SELECT 1 WHERE ` + o + `::text IS NULL)`
}

// heldBy is the lease under which a request of this process holds the
// claim on key, or nil when none does (the write is then not fenced).
func (s *Redemptions) heldBy(key string) *string {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	owner, ok := s.p.claims[key]
	if !ok {
		return nil
	}
	return &owner
}

// put writes a record, doing onConflict when the authorization has one,
// and says whether it wrote; fenced by the claim on id held here, if any.
func (s *Redemptions) put(id string, r *store.Redemption, onConflict string) (bool, error) {
	args, err := recordArgs(id, r, s.heldBy(id))
	if err != nil {
		return false, err
	}
	ctx, cancel := s.p.ctx()
	defer cancel()
	var held, wrote bool
	if err := s.p.pool.QueryRow(ctx, putSQL(onConflict), args...).Scan(&held, &wrote); err != nil {
		return false, putError(err)
	}
	if !held {
		return false, claimLost(id)
	}
	return wrote, nil
}

// putSQL writes the record of recordArgs, doing onConflict when the
// authorization has one, fenced by the claim of the lease $6 (fenceOn),
// and answers whether the fence held and whether it wrote.
func putSQL(onConflict string) string {
	return fenceOn("$1", "$6") + `, w AS (
		INSERT INTO x402_redemptions (id, state, valid_before, payment_id, record)
		SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM fence)
		ON CONFLICT (id) ` + onConflict + ` RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM fence), EXISTS (SELECT 1 FROM w)`
}

// recordArgs are putSQL's arguments: the record of id, fenced by the
// claim of the lease owner (nil: not fenced).
func recordArgs(id string, r *store.Redemption, owner *string) ([]any, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var vb *int64
	if v, err := strconv.ParseInt(r.ValidBefore, 10, 64); err == nil {
		vb = &v
	}
	var pid *string
	if r.PaymentID != "" {
		pid = &r.PaymentID
	}
	return []any{id, r.State, vb, pid, string(data), owner}, nil // text: []byte is sent as bytea
}

// putError is a record write's error: ErrPaymentIDTaken for a payment id
// bound to another record, else pgError's.
func putError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "x402_redemptions_payment_id_key" {
		return store.ErrPaymentIDTaken
	}
	return pgError(err)
}

// claimLost is ErrClaimLost for the record of id.
func claimLost(id string) error {
	return fmt.Errorf("%w (record %s)", store.ErrClaimLost, id)
}

// Delete implements Redemptions, fenced as Put.
func (s *Redemptions) Delete(id string) error {
	ctx, cancel := s.p.ctx()
	defer cancel()
	var held bool
	err := s.p.pool.QueryRow(ctx, fenceOn("$1", "$2")+`, d AS (
		DELETE FROM x402_redemptions WHERE id = $1 AND EXISTS (SELECT 1 FROM fence))
		SELECT EXISTS (SELECT 1 FROM fence)`, id, s.heldBy(id)).Scan(&held)
	if err != nil {
		return pgError(err)
	}
	if !held {
		return claimLost(id)
	}
	return nil
}

// ByPaymentID implements Redemptions.
func (s *Redemptions) ByPaymentID(key string) (string, *store.Redemption, error) {
	ctx, cancel := s.p.ctx()
	defer cancel()
	var id string
	r := new(store.Redemption)
	err := s.p.pool.QueryRow(ctx, `SELECT id, record FROM x402_redemptions WHERE payment_id = $1`, key).Scan(&id, r)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, pgError(err)
	}
	return id, r, nil
}

// ByTransaction implements Redemptions, through the index on the
// record's lower-cased txHash (migration 10).
func (s *Redemptions) ByTransaction(tx string) (string, *store.Redemption, error) {
	ctx, cancel := s.p.ctx()
	defer cancel()
	var id string
	r := new(store.Redemption)
	err := s.p.pool.QueryRow(ctx, `SELECT id, record FROM x402_redemptions WHERE lower(record->>'txHash') = $1
		ORDER BY id LIMIT 1`, store.TxKey(tx)).Scan(&id, r)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, pgError(err)
	}
	return id, r, nil
}

// Prune implements Redemptions.
func (s *Redemptions) Prune(expiredBefore int64) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tag, err := s.p.pool.Exec(ctx, `DELETE FROM x402_redemptions WHERE state = $1 AND valid_before < $2`, store.RedeemDelivered, expiredBefore)
	return int(tag.RowsAffected()), pgError(err)
}

// Close implements Redemptions; the store stays open.
func (s *Redemptions) Close() error { return nil }

// Claims are claims shared by every instance on the database.
type Claims struct{ p *Store }

// Claims is the store's claims.
func (p *Store) Claims() *Claims { return p.claimsView }

var _ store.Claims = (*Claims)(nil)

// Claim implements Claims: one round trip. A key held by an instance whose
// lease ran out is taken.
//
// A key whose release has not reached the database yet (its release
// failed and waits for a retry, see releaseSpent) is still held here: its
// row names this instance and the retry deletes whatever row of this
// instance has the key, so a new claim taken meanwhile would be deleted
// under the request that holds it, for another instance to take too.
func (c *Claims) Claim(ctx context.Context, key string) (store.ClaimResult, error) {
	res, _, err := c.claim(ctx, key, false)
	return res, err
}

var _ store.RecordClaimer = (*Claims)(nil)

// ClaimRecord implements RecordClaimer: Claim and the read of the key's
// record in one round trip (a batch, one implicit transaction). The read
// is a statement of its own after the claim's, so it sees what an earlier
// holder wrote before the claim was taken from it (each statement reads
// what was committed when it starts; a holder's write locks the claim row,
// so the claim waits for that write's commit).
func (c *Claims) ClaimRecord(ctx context.Context, key string) (store.ClaimResult, *store.Redemption, error) {
	return c.claim(ctx, key, true)
}

// claimSQL takes the claim on key $1 for the lease $2, fenced: an instance
// whose lease ran out (the database was away) takes no claim until it
// holds a lease again, so its paid requests are answered as the store
// being away, not half-served. It returns a row when the claim is taken.
const claimSQL = `WITH fence AS (SELECT x402_fence($2))
	INSERT INTO x402_claims AS c (key, owner) SELECT $1, $2 FROM fence
	ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, taken_at = clock_timestamp()
	WHERE c.owner = excluded.owner
		OR NOT EXISTS (SELECT 1 FROM x402_instances i WHERE i.id = c.owner AND i.expires_at > clock_timestamp())
	RETURNING owner`

// claim is Claim, with the key's record read too when read is set.
func (c *Claims) claim(ctx context.Context, key string, read bool) (store.ClaimResult, *store.Redemption, error) {
	p := c.p
	p.mu.Lock()
	if _, ok := p.claims[key]; ok {
		p.mu.Unlock()
		return store.HeldHere, nil, nil
	}
	inst := p.instance
	p.claims[key] = inst
	p.mu.Unlock()
	var taken bool
	var rec *store.Redemption
	var err error
	if read {
		taken, rec, err = p.claimReading(ctx, key, inst)
	} else {
		var owner string
		err = p.pool.QueryRow(ctx, claimSQL, key, inst).Scan(&owner)
		taken = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
	}
	if taken && err == nil {
		return store.Claimed, rec, nil
	}
	p.mu.Lock()
	delete(p.claims, key)
	p.mu.Unlock()
	return store.HeldElsewhere, nil, pgError(err)
}

// claimReading sends the claim of key for the lease inst and the read of
// the key's record as one batch: whether the claim was taken, and the
// record (nil when there is none, or the claim was not taken). Both
// statements run in one implicit transaction: an error means the batch
// did not commit (or its answer was lost, as a lone statement's can be).
func (p *Store) claimReading(ctx context.Context, key, inst string) (bool, *store.Redemption, error) {
	b := &pgx.Batch{}
	b.Queue(claimSQL, key, inst)
	b.Queue(`SELECT record FROM x402_redemptions WHERE id = $1`, key)
	br := p.pool.SendBatch(ctx, b)
	defer br.Close()
	var owner string
	err := br.QueryRow().Scan(&owner)
	taken := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, nil, err
	}
	rec := new(store.Redemption)
	switch err := br.QueryRow().Scan(rec); {
	case errors.Is(err, pgx.ErrNoRows):
		rec = nil
	case err != nil:
		return false, nil, err
	}
	if err := br.Close(); err != nil {
		return false, nil, err
	}
	if !taken {
		return false, nil, nil
	}
	return true, rec, nil
}

// Release implements Claims.
func (c *Claims) Release(key string) { c.p.releaseClaims(key) }

// releaseClaims deletes claims of this instance, in one round trip; a
// delete that fails is tried again with the lease's renewals, so a key is
// not held for the life of the instance.
func (p *Store) releaseClaims(keys ...string) { p.releaseSpent(keys, nil, nil) }

// releaseSpent is releaseClaims, except that the keys in spent whose
// claims carry a reservation (x402_reserve) keep their rows as spent at
// the given blocks: a transfer that moved money still counts against
// balances read at older blocks. A key is held here (Claim answers
// HeldHere) until its release has reached the database: a release that
// fails is retried (retryReleases) and only then lets the key go. Each
// key's row is the one of the lease it was claimed under (a settlement's
// hold, not in claims: the current lease).
func (p *Store) releaseSpent(keys, spent []string, blocks []int64) {
	if len(keys) == 0 {
		return
	}
	for owner, ks := range p.owners(keys) {
		ctx, cancel := p.ctx()
		sql, args := releaseStatement(ks, owner, spent, blocks)
		_, err := p.pool.Exec(ctx, sql, args...)
		cancel()
		p.released(ks, owner, err)
	}
}

// releaseStatement deletes the claims ks of the lease owner, except that
// those in spent that carry a reservation keep their rows as spent at
// their blocks (releaseSpent).
func releaseStatement(ks []string, owner string, spent []string, blocks []int64) (string, []any) {
	if len(spent) == 0 {
		return `DELETE FROM x402_claims WHERE key = ANY($1) AND owner = $2`, []any{ks, owner}
	}
	return `WITH s AS (
		UPDATE x402_claims c SET mined_block = m.b, spent_at = clock_timestamp()
		FROM unnest($3::text[], $4::bigint[]) AS m(k, b)
		WHERE c.key = m.k AND c.owner = $2 AND c.payer IS NOT NULL
		RETURNING c.key)
	DELETE FROM x402_claims WHERE key = ANY($1) AND owner = $2 AND key NOT IN (SELECT key FROM s)`,
		[]any{ks, owner, spent, blocks}
}

// owners groups keys by the lease their rows name: the one each was
// claimed under, or the current one.
func (p *Store) owners(keys []string) map[string][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string][]string{}
	for _, k := range keys {
		owner, ok := p.claims[k]
		if !ok {
			owner = p.instance
		}
		out[owner] = append(out[owner], k)
	}
	return out
}

// released notes how the release of keys' rows of owner went: a failed
// one waits for a retry (the keys stay held), a done one lets them go.
func (p *Store) released(keys []string, owner string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range keys {
		switch {
		case err != nil:
			p.unclaim[k] = owner
		case p.unclaim[k] == owner || p.claims[k] == owner:
			delete(p.unclaim, k)
			if p.claims[k] == owner {
				delete(p.claims, k)
			}
		}
	}
}

// releasing reports whether key's release waits for a retry.
func (p *Store) releasing(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.unclaim[key]
	return ok
}

// testHookRetryReleases, when set (by tests only), runs in retryReleases
// between reading the keys to release and deleting their rows.
var testHookRetryReleases func(keys []string)

// retryReleases deletes the claims whose release failed, and only then
// lets their keys go (Claim held them meanwhile).
func (p *Store) retryReleases(ctx context.Context) {
	p.mu.Lock()
	byOwner := map[string][]string{}
	var keys []string
	for k, owner := range p.unclaim {
		byOwner[owner] = append(byOwner[owner], k)
		keys = append(keys, k)
	}
	p.mu.Unlock()
	if len(keys) == 0 {
		return
	}
	if testHookRetryReleases != nil {
		testHookRetryReleases(keys)
	}
	for owner, ks := range byOwner {
		if _, err := p.pool.Exec(ctx, `DELETE FROM x402_claims WHERE key = ANY($1) AND owner = $2`, ks, owner); err == nil {
			p.released(ks, owner, nil)
		}
	}
}
