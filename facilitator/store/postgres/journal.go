package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Journal is the settlement journal in PostgreSQL, shared by every
// instance on the database (Shared). Closing it leaves the store open:
// the store's owner closes that. The discovery catalog and the payers'
// cooling-offs are in the same database: the journal is a store.Catalog
// and a store.CoolOffs.
type Journal struct {
	p *Store
	*Catalog
	*CoolOffs
}

// The capabilities kept beside the journal.
var (
	_ store.Catalog  = (*Journal)(nil)
	_ store.CoolOffs = (*Journal)(nil)
)

// DSN is the store's connection string (credentials included), to open
// another instance on it.
func (j *Journal) DSN() string { return j.p.dsn }

// Journal is the store's settlement journal (always the same value, so
// that the engines of a process share their state on it).
func (p *Store) Journal() *Journal { return p.journal }

var _ store.Shared = (*Journal)(nil)
var _ store.Compacter = (*Journal)(nil)

// Put implements Journal: the records in one statement (one round trip,
// one transaction), fenced by this instance's lease.
func (j *Journal) Put(recs ...*store.Record) error {
	if len(recs) == 0 {
		return nil
	}
	args, err := j.putArgs(recs)
	if err != nil {
		return err
	}
	ctx, cancel := j.p.ctx()
	defer cancel()
	if _, err := j.p.pool.Exec(ctx, putSettlementsSQL, args...); err != nil {
		return pgError(err)
	}
	return nil
}

var _ store.PutReleaser = (*Journal)(nil)

// PutRelease implements PutReleaser: x402_put_settlements and the
// releases (releaseSpent's statements) as one batch, one round trip and
// one implicit transaction, so that a refused write (fenced, or another
// instance's settlement) releases nothing either. Then, as after a Put
// that failed, the holds are released on their own (releaseSpent, with
// its retries).
func (j *Journal) PutRelease(recs []*store.Record, rels []store.Release) error {
	if len(recs) == 0 || len(rels) == 0 {
		err := j.Put(recs...)
		j.ReleaseSettlements(rels...)
		return err
	}
	args, err := j.putArgs(recs)
	if err != nil {
		j.ReleaseSettlements(rels...)
		return err
	}
	keys, spent, blocks := releaseKeys(rels)
	groups := j.p.owners(keys)
	b := &pgx.Batch{}
	b.Queue(putSettlementsSQL, args...)
	for owner, ks := range groups {
		sql, rargs := releaseStatement(ks, owner, spent, blocks)
		b.Queue(sql, rargs...)
	}
	ctx, cancel := j.p.ctx()
	err = j.p.pool.SendBatch(ctx, b).Close()
	cancel()
	if err != nil {
		j.ReleaseSettlements(rels...)
		return pgError(err)
	}
	for owner, ks := range groups {
		j.p.released(ks, owner, nil)
	}
	return nil
}

// putSettlementsSQL writes the records of putArgs, fenced.
const putSettlementsSQL = `SELECT x402_put_settlements($1, $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::timestamptz[], $8::text[]::json[], $9::text[])`

// putArgs are putSettlementsSQL's arguments for recs.
func (j *Journal) putArgs(recs []*store.Record) ([]any, error) {
	// The records go as arrays, written together by x402_put_settlements
	// (a block's outcomes, a send group), all or none. A record given
	// twice is written once, as its last copy says, with the transactions
	// of both (one INSERT cannot write a row twice).
	at := make(map[string]int, len(recs))
	var ids, nets, signers, statuses, datas, hashes []string
	var nonces []int64
	var updated []time.Time
	for _, r := range recs {
		data, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		hs := make([]string, len(r.Txs))
		for k, x := range r.Txs {
			hs[k] = strings.ToLower(x.Hash)
		}
		h := strings.Join(hs, ",") // hex hashes hold no comma
		i, dup := at[r.ID]
		if !dup {
			i = len(ids)
			at[r.ID] = i
			ids, nets, signers, statuses, datas, hashes = append(ids, ""), append(nets, ""), append(signers, ""), append(statuses, ""), append(datas, ""), append(hashes, "")
			nonces, updated = append(nonces, 0), append(updated, time.Time{})
		} else if hashes[i] != "" && h != "" {
			h = hashes[i] + "," + h
		} else if h == "" {
			h = hashes[i]
		}
		ids[i], nets[i], signers[i], statuses[i], datas[i], hashes[i] = r.ID, r.Network, strings.ToLower(r.Signer), r.Status, string(data), h
		nonces[i], updated[i] = int64(r.TxNonce), r.UpdatedAt
	}
	return []any{j.p.Instance(), ids, nets, signers, nonces, statuses, updated, datas, hashes}, nil
}

// ByTx implements Journal.
func (j *Journal) ByTx(hash string) (*store.Record, error) {
	return j.one(`SELECT s.record FROM x402_settlement_txs t JOIN x402_settlements s ON s.id = t.id WHERE t.hash = $1`, strings.ToLower(hash))
}

// ByID implements Journal.
func (j *Journal) ByID(id string) (*store.Record, error) {
	return j.one(`SELECT record FROM x402_settlements WHERE id = $1`, id)
}

func (j *Journal) one(sql string, arg string) (*store.Record, error) {
	ctx, cancel := j.p.ctx()
	defer cancel()
	r := new(store.Record)
	if err := j.p.pool.QueryRow(ctx, sql, arg).Scan(r); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, store.ErrNotFound
		}
		return nil, pgError(err)
	}
	return r, nil
}

// Pending implements Journal: the pending settlements this instance
// follows (those of dead instances come through TakeOver).
func (j *Journal) Pending() ([]*store.Record, error) {
	ctx, cancel := j.p.ctx()
	defer cancel()
	rows, err := j.p.pool.Query(ctx, `SELECT record FROM x402_settlements WHERE status = 'pending' AND owner = $1`, j.p.Instance())
	if err != nil {
		return nil, pgError(err)
	}
	out, err := collectRecords(rows)
	store.SortByNonce(out)
	return out, pgError(err)
}

// PendingAt implements Shared.
func (j *Journal) PendingAt(ctx context.Context, signer string, nonce uint64) ([]*store.Record, error) {
	rows, err := j.p.pool.Query(ctx, `SELECT record FROM x402_settlements WHERE status = 'pending' AND signer = $1 AND tx_nonce = $2`,
		strings.ToLower(signer), int64(nonce))
	if err != nil {
		return nil, pgError(err)
	}
	return collectRecords(rows)
}

// Compact implements Compacter.
func (j *Journal) Compact(cutoff time.Time) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tag, err := j.p.pool.Exec(ctx, `DELETE FROM x402_settlements WHERE status <> 'pending' AND updated_at < $1`, cutoff)
	return int(tag.RowsAffected()), pgError(err)
}

// Close implements Journal; the store stays open.
func (j *Journal) Close() error { return nil }

// Instance implements Shared.
func (j *Journal) Instance() string { return j.p.Instance() }

// Where implements Shared.
func (j *Journal) Where() string { return j.p.Where() }

// Live implements Shared.
func (j *Journal) Live() bool { return j.p.Live() }

// Nonces implements Shared: one round trip, fenced.
func (j *Journal) Nonces(ctx context.Context, chain, signer string, floor uint64, n int) (uint64, error) {
	var first int64
	err := j.p.pool.QueryRow(ctx, `SELECT x402_take_nonces($1, $2, $3, $4, $5)`,
		j.p.Instance(), chain, strings.ToLower(signer), int64(floor), int64(n)).Scan(&first)
	if err != nil {
		return 0, pgError(err)
	}
	return uint64(first), nil
}

// GiveBack implements Shared.
func (j *Journal) GiveBack(ctx context.Context, chain, signer string, first, end uint64) (bool, error) {
	return j.p.execOne(ctx, `UPDATE x402_nonces SET next = $3 WHERE chain = $1 AND signer = $2 AND next = $4`,
		chain, strings.ToLower(signer), int64(first), int64(end))
}

// HoldSettlement implements Shared. The hold is a claim (key "settle:"
// and the record ID) that no pending record of another instance stands
// against. One whose release has not reached the database yet is still
// held (see Claims.Claim).
func (j *Journal) HoldSettlement(ctx context.Context, id string) (bool, error) {
	if j.p.releasing("settle:" + id) {
		return false, nil
	}
	inst := j.p.Instance()
	var owner string
	err := j.p.pool.QueryRow(ctx, `INSERT INTO x402_claims AS c (key, owner)
		SELECT $1, $2 WHERE NOT EXISTS (
			SELECT 1 FROM x402_settlements s WHERE s.id = $3 AND s.status = 'pending' AND s.owner <> $2)
		ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, taken_at = clock_timestamp()
		WHERE (c.owner = excluded.owner AND c.mined_block IS NULL)
			OR NOT EXISTS (SELECT 1 FROM x402_instances i WHERE i.id = c.owner AND i.expires_at > clock_timestamp())
		RETURNING owner`, "settle:"+id, inst, id).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, pgError(err)
}

// ReserveSettlement implements Shared (x402_reserve, one round trip).
func (j *Journal) ReserveSettlement(ctx context.Context, id, payer string, value, balance *big.Int, inBalance []string) (bool, error) {
	var bal *string
	if balance != nil {
		s := balance.String()
		bal = &s
	}
	var keys []string
	if inBalance != nil {
		keys = make([]string, len(inBalance))
		for i, k := range inBalance {
			keys[i] = "settle:" + k
		}
	}
	var res int
	err := j.p.pool.QueryRow(ctx, `SELECT x402_reserve($1, $2, $3, $4::numeric, $5::numeric, $6)`,
		j.p.Instance(), "settle:"+id, strings.ToLower(payer), value.String(), bal, keys).Scan(&res)
	if err != nil {
		return false, pgError(err)
	}
	switch res {
	case 0:
		return false, nil
	case 1:
		return true, nil
	case 2:
		return false, store.ErrFollowedElsewhere
	default:
		return false, errors.New("no hold on settlement " + id + " in the shared store to reserve its value against (a hold given back, or taken over after the lease ran out); nothing was reserved")
	}
}

// Reservations implements Shared.
func (j *Journal) Reservations(ctx context.Context, payer string) ([]string, error) {
	rows, err := j.p.pool.Query(ctx, `SELECT substr(key, 8) FROM x402_claims
		WHERE payer = $1 AND (spent_at IS NULL OR spent_at > clock_timestamp() - interval '1 minute')`, strings.ToLower(payer))
	if err != nil {
		return nil, pgError(err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ReleaseSettlements implements Shared: in one statement, the holds that
// moved money keep their rows as spent at their block, the others go.
func (j *Journal) ReleaseSettlements(rels ...store.Release) {
	if len(rels) == 0 {
		return
	}
	j.p.releaseSpent(releaseKeys(rels))
}

// releaseKeys are the claim keys of rels' holds, and those of the holds
// that moved money with their blocks (releaseSpent's arguments).
func releaseKeys(rels []store.Release) (keys, spent []string, blocks []int64) {
	keys = make([]string, len(rels))
	for i, r := range rels {
		keys[i] = "settle:" + r.ID
		if r.MinedAt != 0 {
			spent, blocks = append(spent, keys[i]), append(blocks, int64(r.MinedAt))
		}
	}
	return keys, spent, blocks
}

// TakeOver implements Shared: in one round trip and one transaction (a
// batch: the statements before one Sync, all or none), the leases that
// ran out are ended, the pending settlements on networks of their
// instances (and of any instance no longer registered) become this
// instance's, and the claims of instances no longer registered go.
func (j *Journal) TakeOver(ctx context.Context, networks []string) ([]*store.Record, error) {
	inst := j.p.Instance()
	b := &pgx.Batch{}
	b.Queue(`SELECT x402_fence($1)`, inst)
	b.Queue(`DELETE FROM x402_instances WHERE expires_at < clock_timestamp()`)
	b.Queue(`UPDATE x402_settlements SET owner = $1
		WHERE status = 'pending' AND network = ANY($2) AND owner <> $1
		AND NOT EXISTS (SELECT 1 FROM x402_instances i WHERE i.id = x402_settlements.owner)
		RETURNING record`, inst, networks)
	b.Queue(`DELETE FROM x402_claims c WHERE NOT EXISTS (SELECT 1 FROM x402_instances i WHERE i.id = c.owner)
		OR c.spent_at < clock_timestamp() - interval '1 minute'`)
	br := j.p.pool.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, pgError(err)
	}
	if _, err := br.Exec(); err != nil {
		return nil, pgError(err)
	}
	rows, err := br.Query()
	if err != nil {
		return nil, pgError(err)
	}
	recs, err := collectRecords(rows)
	if err != nil {
		return nil, pgError(err)
	}
	if _, err := br.Exec(); err != nil {
		return nil, pgError(err)
	}
	if err := br.Close(); err != nil {
		return nil, pgError(err)
	}
	store.SortByNonce(recs)
	return recs, nil
}
