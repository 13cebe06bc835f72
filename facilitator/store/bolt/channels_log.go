package bolt

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/bbolt"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// The bbolt channel store answers a charge before bbolt commits it: the
// charged record is appended to a write-ahead log beside the bbolt file
// with one write(2) (so it survives a kill -9 of the process once the
// request is answered: the kernel holds it) and checkpointed into bbolt,
// in one transaction and one fsync for every charge of the interval,
// every chanLogEvery. Opening the store replays the log into bbolt.
// Power loss (not a crash of the process) can lose the charges of the
// last interval: what the seller was owed for requests it served, never
// the buyer's money (a charge only lowers what the buyer's vouchers can
// still take, and the buyer's next voucher resynchronises from the
// record as it was).
//
// Every other channel write (Sync, MarkClaimed, SetChannelState, Prune)
// commits to bbolt as before, in the same transaction as the charges
// logged before it, and a sequence number kept in bbolt in that
// transaction tells replay which logged charges bbolt already holds: a
// log record is replayed only when it is newer than the bbolt state.

// chanLogEvery is how often logged charges are checkpointed into bbolt
// (and so how much power loss can take).
const chanLogEvery = 100 * time.Millisecond

// chanLogMaxBytes checkpoints early when a log file grows past it.
const chanLogMaxBytes = 8 << 20

// chanLogMaxRecord bounds one log record (a charge record).
const chanLogMaxRecord = 64 << 10

// chanLogHeader is a record's header: payload length (uint32), CRC-32C
// of seq and payload (uint32), seq (uint64), big endian.
const chanLogHeader = 16

// bucketChannelLog holds the last log sequence number bbolt holds.
var (
	bucketChannelLog = []byte("payment-channels-log")
	keyChannelLogSeq = []byte("applied")
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// chanLog is the write-ahead log of the bbolt channel store and the
// records it holds ahead of bbolt.
type chanLog struct {
	db   *bbolt.DB
	base string // files base.<generation>

	ck sync.Mutex // one checkpoint (or bbolt write) at a time
	mu sync.Mutex // what follows
	// dirty are the records charged since the last checkpoint began;
	// flushing those a running checkpoint writes.
	dirty, flushing map[string]*store.Channel
	seq             uint64   // last sequence number logged
	f               *os.File // the file appended to
	gen             uint64   // its generation
	size            int64    // its size
	old             []string // files rotated away, not yet checkpointed
	buf             []byte
	broken          error // the log could not be written or rotated

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
}

// openChanLog replays the log files of the bbolt file at path into it,
// removes them and starts a new one with its checkpoint loop.
func openChanLog(db *bbolt.DB, path string) (*chanLog, error) {
	l := &chanLog{db: db, base: path + ".channels-log", dirty: map[string]*store.Channel{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	files, gens, err := l.files()
	if err != nil {
		return nil, err
	}
	if err := l.replay(files); err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			return nil, fmt.Errorf("removing the replayed channel log %s: %w", f, err)
		}
	}
	if len(gens) > 0 {
		l.gen = gens[len(gens)-1]
	}
	if err := l.rotate(); err != nil {
		return nil, err
	}
	go l.loop()
	return l, nil
}

// files lists the log files, oldest first.
func (l *chanLog) files() ([]string, []uint64, error) {
	names, err := filepath.Glob(l.base + ".*")
	if err != nil {
		return nil, nil, err
	}
	type file struct {
		name string
		gen  uint64
	}
	var fs []file
	for _, n := range names {
		g, err := strconv.ParseUint(strings.TrimPrefix(n, l.base+"."), 10, 64)
		if err == nil {
			fs = append(fs, file{n, g})
		}
	}
	slices.SortFunc(fs, func(a, b file) int { return cmp.Compare(a.gen, b.gen) })
	var out []string
	var gens []uint64
	for _, f := range fs {
		out, gens = append(out, f.name), append(gens, f.gen)
	}
	return out, gens, nil
}

// replay puts the records of files newer than bbolt's into bbolt, in
// one transaction. A file is read up to its first torn or corrupt record
// (a write cut by power loss): nothing after it was answered durable.
func (l *chanLog) replay(files []string) error {
	return l.db.Update(func(tx *bbolt.Tx) error {
		applied := logSeqOf(tx)
		seq := applied
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				return fmt.Errorf("reading the channel log %s: %w", name, err)
			}
			for len(data) >= chanLogHeader {
				n := binary.BigEndian.Uint32(data[0:4])
				if n > chanLogMaxRecord || int(n) > len(data)-chanLogHeader {
					break
				}
				if crc32.Checksum(data[8:chanLogHeader+int(n)], crc32c) != binary.BigEndian.Uint32(data[4:8]) {
					break
				}
				s := binary.BigEndian.Uint64(data[8:16])
				payload := data[chanLogHeader : chanLogHeader+int(n)]
				data = data[chanLogHeader+int(n):]
				if s <= applied {
					continue
				}
				k, charged, v, at, err := decodeChargeRecord(payload)
				if err != nil {
					return fmt.Errorf("the channel log %s: %w", name, err)
				}
				c, err := boltChannel(tx, k)
				if err != nil {
					return err
				}
				if c != nil { // a charge is logged only for a record bbolt holds
					c.ApplyCharge(charged, v, at)
					data, err := c.MarshalJSON()
					if err != nil {
						return err
					}
					if err := tx.Bucket(bucketChannels).Put([]byte(k), data); err != nil {
						return err
					}
				}
				seq = max(seq, s)
			}
		}
		l.seq = seq
		return putLogSeq(tx, seq)
	})
}

// logSeqOf is the last log sequence number bbolt holds.
func logSeqOf(tx *bbolt.Tx) uint64 {
	if bk := tx.Bucket(bucketChannelLog); bk != nil {
		if v := bk.Get(keyChannelLogSeq); len(v) == 8 {
			return binary.BigEndian.Uint64(v)
		}
	}
	return 0
}

// putLogSeq records that bbolt holds the log up to seq.
func putLogSeq(tx *bbolt.Tx, seq uint64) error {
	bk, err := tx.CreateBucketIfNotExists(bucketChannelLog)
	if err != nil {
		return err
	}
	return bk.Put(keyChannelLogSeq, binary.BigEndian.AppendUint64(nil, seq))
}

// rotate starts the next log file; the current one, if any, waits in old
// for the checkpoint that holds its records. Called with mu held (or
// before the log is shared).
func (l *chanLog) rotate() error {
	name := fmt.Sprintf("%s.%d", l.base, l.gen+1)
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		l.broken = fmt.Errorf("creating the channel log %s: %w", name, err)
		return l.broken
	}
	if l.f != nil {
		l.f.Close()
		l.old = append(l.old, l.f.Name())
	}
	l.f, l.gen, l.size, l.broken = f, l.gen+1, 0, nil
	return nil
}

// append logs charge c (the record after it) as the next record, with one
// write. Called with mu held.
func (l *chanLog) append(c *store.Channel) error {
	if l.f == nil {
		return fmt.Errorf("%w: the channel store is closed", store.ErrUnavailable)
	}
	if l.broken != nil {
		if l.rotate() != nil {
			return l.broken
		}
	}
	seq := l.seq + 1
	b := appendChargeRecord(append(l.buf[:0], make([]byte, chanLogHeader)...), c)
	binary.BigEndian.PutUint32(b[0:4], uint32(len(b)-chanLogHeader))
	binary.BigEndian.PutUint64(b[8:16], seq)
	binary.BigEndian.PutUint32(b[4:8], crc32.Checksum(b[8:], crc32c))
	l.buf = b
	if _, err := l.f.Write(b); err != nil {
		// A write cut short leaves a torn record that replay stops at:
		// later records go to a new file.
		l.broken = fmt.Errorf("writing the channel log %s: %w", l.f.Name(), err)
		return l.broken
	}
	l.seq, l.size = seq, l.size+int64(len(b))
	if l.size > chanLogMaxBytes {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// current is the record of k held ahead of bbolt, if any. Called with
// mu held.
func (l *chanLog) current(k string) (*store.Channel, bool) {
	if c, ok := l.dirty[k]; ok {
		return c, true
	}
	c, ok := l.flushing[k]
	return c, ok
}

// charge is Charge: the record (ahead of bbolt, else read from it)
// checked and charged, logged, and held until the next checkpoint.
func (l *chanLog) charge(k string, prev, charged *big.Int, v store.ChannelVoucher) (*store.Channel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, ok := l.current(k)
	if !ok {
		err := l.db.View(func(tx *bbolt.Tx) error {
			var err error
			cur, err = boltChannel(tx, k)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if cur == nil {
		return nil, store.ErrChannelNotFound
	}
	if err := store.ChargeRefusal(cur, prev, charged); err != nil {
		return cur.Clone(), err
	}
	// Records held ahead of bbolt are never changed in place: a charge
	// makes a new one, sharing the amounts it does not change.
	next := new(store.Channel)
	*next = *cur
	next.ApplyCharge(charged, v, time.Now())
	if err := l.append(next); err != nil {
		return nil, err
	}
	l.dirty[k] = next
	return next.Clone(), nil
}

// read is the record of k: ahead of bbolt, else from it.
func (l *chanLog) read(k string) (*store.Channel, error) {
	l.mu.Lock()
	if c, ok := l.current(k); ok {
		l.mu.Unlock()
		return c.Clone(), nil
	}
	l.mu.Unlock()
	// A record not held ahead of bbolt now is in bbolt already: a later
	// charge would be newer than this read, as with any read.
	var out *store.Channel
	err := l.db.View(func(tx *bbolt.Tx) error {
		var err error
		out, err = boltChannel(tx, k)
		return err
	})
	return out, err
}

// overlay replaces, in a list read from bbolt, the records held ahead of
// it. Called with mu held.
func (l *chanLog) overlay(c *store.Channel) *store.Channel {
	if d, ok := l.current(c.ID); ok {
		return d.Clone()
	}
	return c
}

// update runs a bbolt write after the logged charges, in one
// transaction with them, so that bbolt never holds a write older than a
// charge it lacks.
func (l *chanLog) update(fn func(tx *bbolt.Tx) error) error {
	l.ck.Lock()
	defer l.ck.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.db.Update(func(tx *bbolt.Tx) error {
		if err := l.putAll(tx, l.dirty, l.seq); err != nil {
			return err
		}
		return fn(tx)
	})
	if err != nil {
		return err
	}
	if len(l.dirty) > 0 {
		l.dirty = map[string]*store.Channel{}
		if l.rotate() == nil {
			l.removeOld()
		}
	}
	return nil
}

// putAll writes records and the log sequence bbolt then holds.
func (l *chanLog) putAll(tx *bbolt.Tx, recs map[string]*store.Channel, seq uint64) error {
	if len(recs) == 0 {
		return nil
	}
	bk, err := tx.CreateBucketIfNotExists(bucketChannels)
	if err != nil {
		return err
	}
	for k, c := range recs {
		data, err := c.MarshalJSON()
		if err != nil {
			return err
		}
		if err := bk.Put([]byte(k), data); err != nil {
			return err
		}
	}
	return putLogSeq(tx, seq)
}

// removeOld removes the log files whose records bbolt holds. Called with
// mu held.
func (l *chanLog) removeOld() {
	for _, n := range l.old {
		_ = os.Remove(n) // a file left is replayed and skipped by its seqs
	}
	l.old = nil
}

// checkpoint commits the charges logged so far into bbolt, in one
// transaction, without holding charges up while bbolt syncs: new ones go
// to a new log file meanwhile.
func (l *chanLog) checkpoint() error {
	l.ck.Lock()
	defer l.ck.Unlock()
	l.mu.Lock()
	if len(l.dirty) == 0 {
		l.mu.Unlock()
		return nil
	}
	snap, seq := l.dirty, l.seq
	l.flushing, l.dirty = snap, map[string]*store.Channel{}
	rotated := l.rotate() == nil
	old := l.old
	l.mu.Unlock()
	err := l.db.Update(func(tx *bbolt.Tx) error { return l.putAll(tx, snap, seq) })
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushing = nil
	if err != nil {
		for k, c := range snap {
			if _, ok := l.dirty[k]; !ok {
				l.dirty[k] = c
			}
		}
		return fmt.Errorf("checkpointing the channel log into bbolt: %w", err)
	}
	if rotated {
		l.old = l.old[len(old):]
		for _, n := range old {
			_ = os.Remove(n)
		}
	}
	return nil
}

// loop checkpoints every chanLogEvery (and when a log file is large).
func (l *chanLog) loop() {
	defer close(l.done)
	t := time.NewTicker(chanLogEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		case <-l.kick:
		}
		_ = l.checkpoint() // kept in the log; tried again next tick
	}
}

// close stops the loop, checkpoints and removes the log.
func (l *chanLog) close() error {
	select {
	case <-l.stop:
		return nil
	default:
	}
	close(l.stop)
	<-l.done
	err := l.checkpoint()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		if err == nil {
			l.old = append(l.old, l.f.Name())
			l.removeOld()
		}
		l.f = nil
	}
	return err
}

// A charge record (the log's payload): the channel id (32 bytes), charged
// and the voucher's max (16 bytes each, uint128), the charge's time (Unix
// nanoseconds, 8 bytes) and the voucher's signature (the rest). Replay
// applies it to the record bbolt holds, as Charge did.
const chargeRecordFixed = 32 + 16 + 16 + 8

// appendChargeRecord appends c's charge record to b.
func appendChargeRecord(b []byte, c *store.Channel) []byte {
	var w [32]byte
	copy(w[:], common32(c.ID))
	b = append(b, w[:]...)
	b = append(b, c.Charged.FillBytes(w[:16])...)
	b = append(b, c.VoucherMax.FillBytes(w[:16])...)
	b = binary.BigEndian.AppendUint64(b, uint64(c.LastActivity.UnixNano()))
	return append(b, c.VoucherSignature...)
}

// decodeChargeRecord reads a charge record.
func decodeChargeRecord(p []byte) (id string, charged *big.Int, v store.ChannelVoucher, at time.Time, err error) {
	if len(p) <= chargeRecordFixed || len(p) > chargeRecordFixed+store.MaxVoucherSignature {
		return "", nil, v, at, fmt.Errorf("a charge record of %d bytes", len(p))
	}
	id = "0x" + hex.EncodeToString(p[:32])
	charged = new(big.Int).SetBytes(p[32:48])
	v.Max = new(big.Int).SetBytes(p[48:64])
	at = time.Unix(0, int64(binary.BigEndian.Uint64(p[64:72])))
	v.Signature = append([]byte(nil), p[72:]...)
	return id, charged, v, at, nil
}

// common32 is a channel key's 32 bytes.
func common32(k string) []byte {
	b, _ := hex.DecodeString(strings.TrimPrefix(k, "0x"))
	return b
}

// boltChannel reads a record in a transaction; nil when there is none.
func boltChannel(tx *bbolt.Tx, k string) (*store.Channel, error) {
	bk := tx.Bucket(bucketChannels)
	if bk == nil {
		return nil, nil
	}
	v := bk.Get([]byte(k))
	if v == nil {
		return nil, nil
	}
	c := new(store.Channel)
	return c, json.Unmarshal(v, c)
}
