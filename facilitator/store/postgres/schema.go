package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// migrations are the PostgreSQL schema's versions, applied in order, each
// once, in one transaction per start that holds an advisory lock, so that
// instances starting at the same moment migrate once and wait for each
// other. A migration is never edited once released: a change is a new one.
var migrations = []string{
	// 1: the journal, the redemption records with their payment ids, the
	// claims, the instances' leases and the signer keys' nonces.
	`
CREATE TABLE x402_instances (
	id         text PRIMARY KEY,
	host       text NOT NULL,
	started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
	expires_at timestamptz NOT NULL
);

CREATE TABLE x402_settlements (
	id         text PRIMARY KEY,
	owner      text NOT NULL,
	network    text NOT NULL,
	signer     text NOT NULL,
	tx_nonce   bigint NOT NULL,
	status     text NOT NULL,
	updated_at timestamptz NOT NULL,
	record     json NOT NULL
);
CREATE INDEX x402_settlements_pending ON x402_settlements (owner) WHERE status = 'pending';
CREATE INDEX x402_settlements_pending_nonce ON x402_settlements (signer, tx_nonce) WHERE status = 'pending';
CREATE INDEX x402_settlements_finished ON x402_settlements (updated_at) WHERE status <> 'pending';

CREATE TABLE x402_settlement_txs (
	hash text PRIMARY KEY,
	id   text NOT NULL REFERENCES x402_settlements (id) ON DELETE CASCADE
);
CREATE INDEX x402_settlement_txs_id ON x402_settlement_txs (id);

CREATE TABLE x402_redemptions (
	id           text PRIMARY KEY,
	state        text NOT NULL,
	valid_before bigint,
	payment_id   text UNIQUE,
	record       json NOT NULL
);
CREATE INDEX x402_redemptions_delivered ON x402_redemptions (valid_before) WHERE state = 'delivered';

CREATE TABLE x402_claims (
	key      text PRIMARY KEY,
	owner    text NOT NULL,
	taken_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX x402_claims_owner ON x402_claims (owner);

CREATE TABLE x402_nonces (
	chain  text NOT NULL,
	signer text NOT NULL,
	next   bigint NOT NULL,
	PRIMARY KEY (chain, signer)
);

-- x402_fence raises unless the instance's lease holds right now. It locks
-- the lease row (FOR SHARE) until the end of the caller's transaction, so
-- a take-over, which deletes the row of an instance whose lease ran out,
-- waits for a write that passed the check and sees it, or comes first and
-- fails it.
CREATE FUNCTION x402_fence(inst text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM x402_instances WHERE id = inst AND expires_at > clock_timestamp() FOR SHARE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'x402: the lease of instance % ran out; it writes nothing until it holds a lease again', inst
			USING ERRCODE = 'XF001';
	END IF;
END $$;

-- x402_put_settlement writes one journal record for instance inst, fenced.
-- A pending record is written only by the instance that follows it; a
-- settled one is never overwritten (its authorization moved money once,
-- for good); a failed one (nothing moved) may be settled anew by anyone.
CREATE FUNCTION x402_put_settlement(inst text, rid text, net text, sgn text, txn bigint, st text,
		upd timestamptz, rec json, hashes text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM x402_fence(inst);
	INSERT INTO x402_settlements AS s (id, owner, network, signer, tx_nonce, status, updated_at, record)
	VALUES (rid, inst, net, sgn, txn, st, upd, rec)
	ON CONFLICT (id) DO UPDATE SET owner = inst, network = net, signer = sgn, tx_nonce = txn,
		status = st, updated_at = upd, record = rec
	WHERE (s.owner = inst AND s.status = 'pending') OR s.status = 'failed';
	IF NOT FOUND THEN
		RAISE EXCEPTION 'x402: settlement % is followed by another instance, or settled', rid USING ERRCODE = 'XF002';
	END IF;
	INSERT INTO x402_settlement_txs (hash, id) SELECT h, rid FROM unnest(hashes) AS h
	ON CONFLICT (hash) DO NOTHING;
END $$;

-- x402_take_nonces hands instance inst the n nonces of a signer key from
-- max(the counter, floor) on, fenced.
CREATE FUNCTION x402_take_nonces(inst text, ch text, sgn text, floor bigint, n bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	first bigint;
BEGIN
	PERFORM x402_fence(inst);
	INSERT INTO x402_nonces AS c (chain, signer, next) VALUES (ch, sgn, floor + n)
	ON CONFLICT (chain, signer) DO UPDATE SET next = greatest(c.next, floor) + n
	RETURNING next - n INTO first;
	RETURN first;
END $$;
`,
	// 2: per-payer reservations. A settlement's claim carries its payer (on
	// one chain and token) and value while it is in flight; a transfer that
	// moved money keeps its row for a minute (spent_at), counted in the
	// first check of the payer's next reservations.
	`
ALTER TABLE x402_claims ADD COLUMN payer text, ADD COLUMN value numeric(78, 0),
	ADD COLUMN mined_block bigint, ADD COLUMN spent_at timestamptz;
CREATE INDEX x402_claims_payer ON x402_claims (payer) WHERE payer IS NOT NULL;
CREATE INDEX x402_claims_spent ON x402_claims (spent_at) WHERE spent_at IS NOT NULL;

-- x402_reserve reserves val for the settlement claim ckey of instance inst
-- against payer pkey's balance bal, fenced, one payer at a time (an
-- advisory lock on the payer, so that two instances reserving at once see
-- each other). Every reservation of the payer counts (in flight, or spent
-- in the last minute) except the claims in in_balance (known to be in
-- bal); a null in_balance counts them all. It answers 1 when reserved (or
-- reserved already by inst), 0 when the value does not fit, 2 when another
-- instance holds the settlement, 3 when inst holds no claim on it. A null
-- bal reserves without a check, taking the claim (a settlement followed
-- from the journal).
CREATE FUNCTION x402_reserve(inst text, ckey text, pkey text, val numeric, bal numeric, in_balance text[])
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	holder text;
	payee  text;
	taken  numeric;
BEGIN
	PERFORM x402_fence(inst);
	PERFORM pg_advisory_xact_lock(hashtextextended(pkey, 0));
	IF bal IS NULL THEN
		INSERT INTO x402_claims AS c (key, owner, payer, value) VALUES (ckey, inst, pkey, val)
		ON CONFLICT (key) DO UPDATE SET owner = inst, payer = pkey, value = val, mined_block = NULL, spent_at = NULL
		WHERE c.owner = inst OR NOT EXISTS (
			SELECT 1 FROM x402_instances i WHERE i.id = c.owner AND i.expires_at > clock_timestamp());
		IF FOUND THEN RETURN 1; END IF;
		RETURN 2;
	END IF;
	SELECT owner, payer INTO holder, payee FROM x402_claims WHERE key = ckey FOR UPDATE;
	IF NOT FOUND THEN RETURN 3; END IF;
	IF holder <> inst THEN RETURN 2; END IF;
	IF payee IS NOT NULL THEN RETURN 1; END IF;
	SELECT coalesce(sum(value), 0) INTO taken FROM x402_claims
	WHERE payer = pkey AND (spent_at IS NULL OR spent_at > clock_timestamp() - interval '1 minute')
		AND NOT (in_balance IS NOT NULL AND key = ANY(in_balance));
	IF taken + val > bal THEN RETURN 0; END IF;
	UPDATE x402_claims SET payer = pkey, value = val WHERE key = ckey;
	RETURN 1;
END $$;
`,
	// 3: many journal records in one set-based write (a block's outcomes,
	// a send group): the lease checked once, every row written by one
	// INSERT, under the rules of x402_put_settlement, all or none.
	`
CREATE FUNCTION x402_put_settlements(inst text, rids text[], nets text[], sgns text[], txns bigint[], sts text[],
		upds timestamptz[], recs json[], hashes text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	refused text;
BEGIN
	PERFORM x402_fence(inst);
	WITH u AS (
		SELECT * FROM unnest(rids, nets, sgns, txns, sts, upds, recs) AS u(id, net, sgn, txn, st, upd, rec)
	), w AS (
		INSERT INTO x402_settlements AS s (id, owner, network, signer, tx_nonce, status, updated_at, record)
		SELECT id, inst, net, sgn, txn, st, upd, rec FROM u
		ON CONFLICT (id) DO UPDATE SET owner = inst, network = excluded.network, signer = excluded.signer,
			tx_nonce = excluded.tx_nonce, status = excluded.status, updated_at = excluded.updated_at, record = excluded.record
		WHERE (s.owner = inst AND s.status = 'pending') OR s.status = 'failed'
		RETURNING s.id)
	SELECT u.id INTO refused FROM u WHERE u.id NOT IN (SELECT id FROM w) LIMIT 1;
	IF refused IS NOT NULL THEN
		RAISE EXCEPTION 'x402: settlement % is followed by another instance, or settled', refused USING ERRCODE = 'XF002';
	END IF;
	INSERT INTO x402_settlement_txs (hash, id)
	SELECT h, u.id FROM unnest(rids, hashes) AS u(id, hs), unnest(string_to_array(u.hs, ',')) AS h
	ON CONFLICT (hash) DO NOTHING;
END $$;
`,
	// 4: access grants (a payment buys its payer a route until an end),
	// the Sign-In-With-X nonces already used, and named secrets (the key
	// that signs access cookies), shared by every instance.
	`
CREATE TABLE x402_grants (
	route    text NOT NULL,
	payer    text NOT NULL,
	start_at timestamptz NOT NULL,
	end_at   timestamptz NOT NULL,
	tx_hash  text,
	network  text,
	PRIMARY KEY (route, payer)
);
CREATE INDEX x402_grants_end ON x402_grants (end_at);

CREATE TABLE x402_siwx_nonces (
	nonce      text PRIMARY KEY,
	expires_at timestamptz NOT NULL
);
CREATE INDEX x402_siwx_nonces_expires ON x402_siwx_nonces (expires_at);

CREATE TABLE x402_secrets (
	name       text PRIMARY KEY,
	value      bytea NOT NULL,
	created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
`,
	// 5: the bazaar catalog: other sellers' resources learnt from
	// the declarations their paying clients echoed, one row per resource,
	// tool and payee, listed by every instance alike.
	`
CREATE TABLE x402_catalog (
	key        text PRIMARY KEY,
	type       text NOT NULL,
	pay_to     text NOT NULL,
	networks   text[] NOT NULL,
	schemes    text[] NOT NULL,
	data       bytea NOT NULL,
	size       int NOT NULL,
	updated_at timestamptz NOT NULL
);
CREATE INDEX x402_catalog_updated ON x402_catalog (updated_at);
`,
	// 6: cooling-offs: a payer (or every wallet with one code) whose mined
	// settlement reverted though its simulation had passed is refused
	// until until_at; strikes double the next one.
	`
CREATE TABLE x402_cool_offs (
	key      text PRIMARY KEY,
	strikes  int NOT NULL,
	until_at timestamptz NOT NULL,
	tx_hash  text NOT NULL
);
CREATE INDEX x402_cool_offs_until ON x402_cool_offs (until_at);
`,
	// 7: the paywall's payment channels (x402 batch-settlement), one row
	// per channel id, created from a verified deposit only; charged moves
	// by one conditional UPDATE per paid request.
	`
CREATE TABLE x402_channels (
	id                    text PRIMARY KEY,
	network               text NOT NULL,
	config                json NOT NULL,
	balance               numeric(78, 0) NOT NULL,
	charged               numeric(78, 0) NOT NULL DEFAULT 0,
	voucher_max           numeric(78, 0),
	voucher_sig           bytea,
	claimed               numeric(78, 0) NOT NULL,
	block                 bigint NOT NULL,
	withdraw_requested_at timestamptz,
	last_activity         timestamptz NOT NULL,
	state                 text NOT NULL,
	CHECK (claimed <= charged)
);
CREATE INDEX x402_channels_to_claim ON x402_channels (network, last_activity) WHERE charged > claimed;
CREATE INDEX x402_channels_idle ON x402_channels (last_activity) WHERE state = 'open';
CREATE INDEX x402_channels_withdrawing ON x402_channels (withdraw_requested_at) WHERE withdraw_requested_at IS NOT NULL;
`,
	// 8: a channel's refundNonce as last read from the chain (the nonce
	// its next cooperative refund signs), and the channels whose refund
	// is under way or to retry.
	`
ALTER TABLE x402_channels ADD COLUMN refund_nonce numeric(78, 0) NOT NULL DEFAULT 0;
CREATE INDEX x402_channels_refunding ON x402_channels (last_activity) WHERE state = 'refunding';
`,
	// 9: the watch marks: per chain watch (the withdraw watch of one
	// network and receiver), the next block it reads, so that the
	// instance that takes the watch over resumes there.
	`
CREATE TABLE x402_watch_marks (
	key        text PRIMARY KEY,
	block      bigint NOT NULL,
	updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
`,
	// 10: the redemption records by their settlement's transaction (the
	// look-up of a receipt by transaction, issue 34).
	`
CREATE INDEX x402_redemptions_tx ON x402_redemptions ((lower(record->>'txHash')));
`,
	// 11: a voucher's charge (charged, voucher_max, voucher_sig,
	// last_activity) is a HOT update: no index names a column it writes,
	// so PostgreSQL rewrites the row in its page and no index entry
	// (issue 35). The partial indexes over last_activity and charged made
	// every charge write three index entries and bloat the hot rows' index
	// until vacuum: a third of the charges' rate in a pgbench of the
	// charge statement. The periodic lists (to claim, idle, refunding,
	// closed) read their network's or state's rows through these two and
	// sort them.
	`
DROP INDEX x402_channels_to_claim;
DROP INDEX x402_channels_idle;
DROP INDEX x402_channels_refunding;
CREATE INDEX x402_channels_network ON x402_channels (network);
CREATE INDEX x402_channels_state ON x402_channels (state);
`,
	// 12: the fence of a claim under way (FenceClaim): no charge, on any
	// instance, takes a channel's charged below it, so that a claim round
	// never takes more than the receipts state. Not indexed: a charge
	// stays a HOT update.
	`
ALTER TABLE x402_channels ADD COLUMN claiming numeric(78, 0) NOT NULL DEFAULT 0;
`,
	// 13: when a refund on a public voucher of the channel was last let
	// through (TakeRefundSlot): one per refund_window for every instance,
	// not for each.
	`
ALTER TABLE x402_channels ADD COLUMN refund_slot_at timestamptz;
`,
}

// migrationLock is the advisory lock key that serialises migrations.
const migrationLock = 0x783430320001 // "x402" 1

// migrate brings the schema up to date.
func migrate(ctx context.Context, conn interface {
	Begin(context.Context) (pgx.Tx, error)
}) (applied int, err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS x402_schema_migrations (
		version    int PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`); err != nil {
		return 0, err
	}
	var have int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM x402_schema_migrations`).Scan(&have); err != nil {
		return 0, err
	}
	if have > len(migrations) {
		return 0, fmt.Errorf("the database's x402 schema is version %d, newer than this build knows (%d): run the newer build, or a database of its own", have, len(migrations))
	}
	for v := have + 1; v <= len(migrations); v++ {
		if _, err := tx.Exec(ctx, migrations[v-1]); err != nil {
			return 0, fmt.Errorf("schema migration %d: %w", v, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO x402_schema_migrations (version) VALUES ($1)`, v); err != nil {
			return 0, err
		}
		applied++
	}
	return applied, tx.Commit(ctx)
}
