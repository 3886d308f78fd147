package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"kvdeck/codec"
)

// DefaultSweepBatch is how many rows one sweep step examines and at most
// deletes: small enough that the write lock is held for a few milliseconds,
// so a live service keeps committing during a large sweep.
const DefaultSweepBatch = 1000

// countWindow is how many rows one counting read examines on a file.
const countWindow = 5000

// Over a remote transport every request costs a round trip and the
// server's own journal (WAL) lets readers and writers pass: one sweep read
// examines remoteSweepWindow rows, its expired keys are deleted in
// transactions of remoteSweepChunk rows (short for the server: primary-key
// deletes), and one counting read examines remoteCountWindow rows.
const (
	remoteSweepWindow = 50000
	remoteSweepChunk  = 5000
	remoteCountWindow = 200000
)

// SweepOptions configure Sweep.
type SweepOptions struct {
	// Now is the sweep's clock; zero means the store's clock.
	Now int64
	// Prefix limits the sweep to keys under it; empty sweeps everything
	// (undecodable rows included, like the reference).
	Prefix codec.Key
	// Batch is the number of rows one step examines (DefaultSweepBatch when
	// zero); each step deletes the expired ones among them in one short
	// transaction.
	Batch int
	// DryRun counts what would be swept without deleting.
	DryRun bool
	// Progress, when set, is called after each delete transaction.
	Progress func(SweepProgress)
	// Pause is how long the sweep waits after each delete transaction, so
	// that writers queued on the lock get it. Zero: on a file in
	// rollback-journal mode, as long as that transaction took (the sweep
	// holds the write lock at most about half the time: there even its
	// reads block a writer's commit); on a WAL file or a server, none
	// (readers do not block the writer there, and the next step's read
	// runs outside the write lock, which leaves the gap a waiting writer
	// takes). Negative: no pause.
	Pause time.Duration
	// RealNow is the real clock's now, for a sweep whose Now is a virtual
	// clock (zero: no guard). When Now is later than RealNow, the rows
	// expired at Now but still live at RealNow (a lease its holder still
	// holds) are kept unless IncludeLive: the sweep then deletes only rows
	// with expires_at <= RealNow, and its delete transactions re-check
	// that bound themselves. SweepResult.LiveByReal counts them.
	RealNow int64
	// IncludeLive sweeps the rows the real clock still sees live as well:
	// the user said so explicitly.
	IncludeLive bool
}

// sweepClock is a sweep's instants: now (the sweep's clock), cut (the
// expiry bound of what it deletes: now, or RealNow when the guard holds)
// and real (the real clock; now when there is no guard).
type sweepClock struct{ now, cut, real int64 }

// clockOf applies the guard of opts to now.
func clockOf(opts SweepOptions, now int64) sweepClock {
	c := sweepClock{now: now, cut: now, real: now}
	if opts.RealNow != 0 && opts.RealNow < now {
		c.real = opts.RealNow
		if !opts.IncludeLive {
			c.cut = opts.RealNow
		}
	}
	return c
}

// SweepProgress reports a sweep in flight.
type SweepProgress struct {
	Swept   int64
	Batches int
	// Position is the raw key the sweep has reached.
	Position []byte
}

// SweepResult is a sweep's receipt.
type SweepResult struct {
	// Swept is the number of rows deleted (or, in a dry run, that would be).
	Swept int64
	// Batches is the number of delete transactions.
	Batches int
	// Elapsed is the wall time of the sweep.
	Elapsed time.Duration
	// Remaining counts expired rows still present in the range afterwards
	// (non-zero after a cancel, or for rows a writer re-set meanwhile).
	Remaining int64
	// NextExpiry is the earliest expiry after Now in the range, if any.
	NextExpiry *int64
	// LiveByReal counts the rows in the range expired at Now but live at
	// SweepOptions.RealNow, as the sweep's reads found them: kept (not in
	// Swept) unless IncludeLive, swept with the rest when it is.
	LiveByReal int64
	// DryRun echoes the option.
	DryRun bool
	// LongestTx is the longest delete transaction, as the sweep timed it
	// around the transaction alone (the journal's Before and After
	// outside it): on a file, from BEGIN IMMEDIATE to the COMMIT's
	// return, the time it held the write lock; on a server, the
	// request's round trip (the server's lock is held for less).
	LongestTx time.Duration
}

// Sweep deletes rows with expires_at <= now, like the reference's
// sweepExpired, but in steps: a short read examines the next Batch rows in
// key order and returns the expired ones, then a short transaction deletes
// them, re-checking each row's expiry (so a row a service re-set meanwhile
// survives). No read or write spans more than one step. Cancelling ctx
// stops between steps; the result then says how much was done, with ctx's
// error.
func (s *Store) Sweep(ctx context.Context, opts SweepOptions) (SweepResult, error) {
	start := time.Now()
	now := opts.Now
	if now == 0 {
		now = s.Now()
	}
	clock := clockOf(opts, now)
	batch, chunk := s.sweepSizes(opts)
	res := SweepResult{DryRun: opts.DryRun}
	if !opts.DryRun {
		if err := s.checkWritable("sweep"); err != nil {
			return res, err
		}
	}
	lo, hi, err := bounds(ListOptions{Prefix: opts.Prefix, Unbounded: len(opts.Prefix) == 0})
	if err != nil {
		return res, err
	}
	if opts.DryRun {
		var n expiredCount
		n, res.NextExpiry, err = s.countExpired(ctx, lo, hi, clock)
		res.Swept, res.LiveByReal = n.expired, n.liveByReal
		res.Remaining = res.Swept
		res.Elapsed = time.Since(start)
		return res, err
	}
	if opts.Pause == 0 && !s.sweepPauses(ctx) {
		opts.Pause = -1
	}
	var found int64
	var next *int64
	for cursor := lo; cursor != nil; {
		if err = ctx.Err(); err != nil {
			break
		}
		var w keysWindow
		if w, err = s.expiredWindow(ctx, cursor, hi, batch, clock); err != nil {
			break
		}
		if s.knobs.sweepStepHook != nil {
			s.knobs.sweepStepHook()
		}
		found += int64(len(w.expired))
		res.LiveByReal += w.liveByReal
		next = earliest(next, w.next)
		cursor = w.after
		if err = s.deleteWindow(ctx, opts, w, chunk, clock, &res); err != nil {
			break
		}
	}
	if err == nil {
		res.Remaining, res.NextExpiry = found-res.Swept, next
	} else {
		// Count what is left with a fresh context: ctx may be the cancelled one.
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var n expiredCount
		n, res.NextExpiry, _ = s.countExpired(cctx, lo, hi, clock)
		res.Remaining = n.expired
		cancel()
	}
	res.Elapsed = time.Since(start)
	return res, err
}

// sweepSizes returns how many rows a sweep's read examines (batch) and
// how many keys one delete takes (chunk): the caller's Batch for both,
// else a window read in one request with smaller deletes on a server,
// else DefaultSweepBatch.
func (s *Store) sweepSizes(opts SweepOptions) (batch, chunk int) {
	switch {
	case opts.Batch > 0:
		return opts.Batch, opts.Batch
	case s.target.Transport.Remote():
		return remoteSweepWindow, remoteSweepChunk
	}
	return DefaultSweepBatch, DefaultSweepBatch
}

// sweepPauses reports whether a sweep pauses after each delete by
// default: on a file in rollback-journal mode (or one whose mode cannot be
// read), not on a WAL file or a server.
func (s *Store) sweepPauses(ctx context.Context) bool {
	if s.target.Transport.Remote() {
		return false
	}
	var mode string
	if found, err := s.queryRow(ctx, "SELECT journal_mode FROM pragma_journal_mode()", nil, &mode); err != nil || !found {
		return true
	}
	return !strings.EqualFold(mode, "wal")
}

// deleteWindow deletes the expired keys one window read found, chunk
// keys per transaction, counting each delete into res and reporting
// progress after it, then pausing as opts says.
func (s *Store) deleteWindow(ctx context.Context, opts SweepOptions, w keysWindow, chunk int, clock sweepClock, res *SweepResult) error {
	expired := w.expired
	// Most of the window expired: each delete walks its keys' range (as a
	// plain range DELETE does) rather than seeking every key.
	walk := len(expired)*4 >= w.examined
	for len(expired) > 0 {
		keys := expired[:min(chunk, len(expired))]
		expired = expired[len(keys):]
		// The guard holds in the delete's own transaction: it deletes
		// only rows expired at clock.cut, so a row re-set meanwhile to
		// a time the real clock has not reached survives.
		n, took, err := s.deleteExpired(ctx, keys, clock.cut, w.seq, walk)
		if err != nil {
			return err
		}
		res.LongestTx = max(res.LongestTx, took)
		res.Swept += n
		res.Batches++
		if opts.Progress != nil {
			opts.Progress(SweepProgress{Swept: res.Swept, Batches: res.Batches, Position: keys[len(keys)-1]})
		}
		// Counted before the pause: a cancel during it must not lose the
		// batch that was already deleted.
		if err := pause(ctx, opts.Pause, took); err != nil {
			return err
		}
	}
	return nil
}

// keysWindow is what one sweep step read.
type keysWindow struct {
	expired [][]byte
	next    *int64
	// after is where the next step starts; nil at the end of the range.
	after []byte
	// liveByReal counts the window's rows expired at the sweep's now but
	// live by the real clock.
	liveByReal int64
	// examined is how many rows the window read; seq is the store's seq
	// as that read saw it (a row written since has a higher ver).
	examined int
	seq      int64
}

// expiredWindow examines the next n rows from lo and returns the keys
// among them expired at c.cut, the earliest expiry after c.now, how many
// are live at c.real but expired at c.now, and the position after them.
func (s *Store) expiredWindow(ctx context.Context, lo, hi []byte, n int, c sweepClock) (keysWindow, error) {
	if !s.target.Transport.Remote() {
		return s.expiredWindowFile(ctx, lo, hi, n, c)
	}
	where, args := rangeWhere(lo, hi)
	q := "WITH w AS MATERIALIZED (SELECT k, expires_at FROM kv WHERE " + where + " ORDER BY k LIMIT ?) " +
		"SELECT 0, k, NULL, NULL, NULL, NULL FROM w WHERE expires_at IS NOT NULL AND expires_at <= ? " +
		"UNION ALL SELECT 1, max(k), min(CASE WHEN expires_at > ? THEN expires_at END), count(*), (SELECT seq FROM kv_meta WHERE id = 0), " +
		"count(*) FILTER (WHERE expires_at > ? AND expires_at <= ?) FROM w"
	rows, err := s.query(ctx, q, append(args, n, c.cut, c.now, c.real, c.now)...)
	if err != nil {
		return keysWindow{}, err
	}
	defer rows.Close()
	var w keysWindow
	for rows.Next() {
		var summary int
		var k []byte
		var next expiryCol
		var examined, seq, live sql.NullInt64
		if err := rows.Scan(&summary, &k, &next, &examined, &seq, &live); err != nil {
			return keysWindow{}, s.classify(err)
		}
		if summary == 0 {
			w.expired = append(w.expired, k)
			continue
		}
		w.next, w.liveByReal, w.examined, w.seq = next.at, live.Int64, int(examined.Int64), seq.Int64
		if k != nil && examined.Int64 >= int64(n) { // a full window: more rows may follow
			w.after = append(k, 0x00)
		}
	}
	s.rowsRead.Add(int64(len(w.expired) + 1))
	return w, s.classify(rows.Err())
}

// expiredWindowFile is expiredWindow on a file, in one pass: every row
// the window examines comes back with what SQL says of it (expired at
// c.cut, its expiry when after c.now, live at c.real but expired at
// c.now), summed here. A read of a file is a call, not a request: one
// pass over the window costs less than the server's form, which
// materialises the window to send back only the expired keys and a
// summary (measured: about 40% less on a window of 1000 expired rows).
// SQL compares, as in the server's form: an odd expires_at (TEXT, REAL)
// is judged the same way.
func (s *Store) expiredWindowFile(ctx context.Context, lo, hi []byte, n int, c sweepClock) (keysWindow, error) {
	where, args := rangeWhere(lo, hi)
	q := "SELECT k, expires_at IS NOT NULL AND expires_at <= ?, CASE WHEN expires_at > ? THEN expires_at END, " +
		"expires_at > ? AND expires_at <= ?, (SELECT seq FROM kv_meta WHERE id = 0) FROM kv WHERE " + where + " ORDER BY k LIMIT ?"
	var w keysWindow
	var last []byte
	// Without SQLite's locks on a rollback-journal file where it can
	// (readShort): the delete that follows is a write, this read need not
	// hold a service's commit off.
	err := s.readShort(ctx, q, append([]any{c.cut, c.now, c.real, c.now}, append(args, n)...), func(rows resultRows) error {
		w, last = keysWindow{}, nil
		for rows.Next() {
			var k []byte
			var expired, live sql.NullBool
			var next expiryCol
			if err := rows.Scan(&k, &expired, &next, &live, &w.seq); err != nil {
				return s.classify(err)
			}
			w.examined++
			last = k
			if expired.Bool {
				w.expired = append(w.expired, k)
			}
			if live.Bool {
				w.liveByReal++
			}
			w.next = earliest(w.next, next.at)
		}
		return s.classify(rows.Err())
	})
	if err != nil {
		return keysWindow{}, err
	}
	if last != nil && w.examined >= n { // a full window: more rows may follow
		w.after = append(last, 0x00)
	}
	s.rowsRead.Add(int64(w.examined))
	return w, nil
}

// deleteExpired deletes keys (in key order, as a window read found them
// when the store's seq was seq) in one transaction, re-checking their
// expiry, and returns how many rows it deleted and how long the
// transaction took. Each batch is one journaled write (Kind "sweep"): its
// before-images are the rows the DELETE itself removed (RETURNING), so a
// row re-set meanwhile, which survives, is not in them. A row written
// since the read has a ver above seq (every write stamps its rows with
// the seq it issues): it survives, expired or not, so the DELETE removes
// only rows of keys. With walk, the DELETE walks the keys' range in index
// order, as a plain range DELETE does (the read found most of the range
// expired), instead of a seek per key. A ver that is not a number (an odd
// row) is no stamp: such a row is judged by its keys alone.
func (s *Store) deleteExpired(ctx context.Context, keys [][]byte, now, seq int64, walk bool) (int64, time.Duration, error) {
	j, err := s.beginWrite(ctx, PendingWrite{Kind: "sweep", Keys: keys})
	if err != nil {
		return 0, 0, err
	}
	var where string
	var args []any
	if walk {
		where = "k >= ? AND k <= ? AND (ver <= ? OR (typeof(ver) NOT IN ('integer', 'real') AND +k IN (" + placeholders(len(keys)) + ")))"
		args = append(append(args, keyArg(keys[0]), keyArg(keys[len(keys)-1]), seq), byteArgs(keys)...)
	} else {
		where = "k IN (" + placeholders(len(keys)) + ") AND (ver <= ? OR typeof(ver) NOT IN ('integer', 'real'))"
		args = append(byteArgs(keys), seq)
	}
	q := "DELETE FROM kv WHERE " + where + " AND expires_at IS NOT NULL AND expires_at <= ?"
	began := time.Now()
	var n int64
	if j != nil {
		n, err = s.deleteReturning(ctx, j, q, append(args, now))
	} else {
		// No journal, no before-images: the count alone, by changes() in
		// the same transaction (RETURNING costs SQLite itself about half
		// again a plain DELETE's time: it keeps every returned row).
		err = s.execBatch(ctx, []stmt{{sql: q, args: append(args, now)}, {sql: "SELECT changes()", read: func(rows resultRows) error {
			for rows.Next() {
				if err := rows.Scan(&n); err != nil {
					return err
				}
			}
			return rows.Err()
		}}})
	}
	took := time.Since(began)
	j.end(true, "", err)
	return n, took, err
}

// expiredCount is what countExpired counts.
type expiredCount struct {
	// expired: expires_at <= the clock's cut; liveByReal: expired at its
	// now but live at its real clock.
	expired, liveByReal int64
}

// countExpired counts the rows in [lo, hi) expired at c.cut and those
// expired at c.now but live at c.real, and finds the earliest expiry after
// c.now, in windows of countWindow rows (one short aggregate read each,
// on the server when it is remote; shorter beside a writer: readWindowed).
// A statement finds its window's end by an index-only OFFSET, then
// aggregates the range up to it directly (no subquery handing rows over
// one by one).
func (s *Store) countExpired(ctx context.Context, lo, hi []byte, c sweepClock) (expiredCount, *int64, error) {
	var total expiredCount
	var next *int64
	window := s.newReadWindow(windowCount, countWindow)
	if s.target.Transport.Remote() {
		window = s.newReadWindow(windowCount, remoteCountWindow)
	}
	// ?4 the range's start, ?5 its end (NULL unbounded), ?6 the window.
	upper, end := "k < ?5", "?5"
	if hi == nil {
		upper, end = "?5 IS NULL", "CAST((SELECT max(k) FROM kv) || x'00' AS BLOB)"
	}
	q := "WITH w(x) AS MATERIALIZED (SELECT (SELECT k FROM kv WHERE k >= ?4 AND " + upper + " ORDER BY k LIMIT 1 OFFSET ?6)) " +
		"SELECT count(*) FILTER (WHERE expires_at <= ?1), count(*) FILTER (WHERE expires_at > ?2 AND expires_at <= ?3), " +
		"min(expires_at) FILTER (WHERE expires_at > ?3), (SELECT x FROM w) FROM kv WHERE k >= ?4 AND k < coalesce((SELECT x FROM w), " + end + ")"
	for cursor := lo; cursor != nil; {
		var bound any
		if hi != nil {
			bound = hi
		}
		var n, live int64
		var min expiryCol
		var last []byte
		stmt := func(n int) (string, []any) { return q, []any{c.cut, c.real, c.now, cursor, bound, n} }
		err := s.readWindowed(ctx, window, stmt, func(rows resultRows) error {
			if !rows.Next() {
				return s.classify(rows.Err())
			}
			return s.classify(rows.Scan(&n, &live, &min, &last))
		})
		if err != nil {
			return total, next, err
		}
		total.expired += n
		total.liveByReal += live
		next = earliest(next, min.at)
		cursor = last // the next window's first key; nil when the range is done
	}
	return total, next, nil
}

// errEnough stops a scan that has what it needs.
var errEnough = errors.New("enough")

// pause waits d, or took when d is zero, without outliving ctx.
func pause(ctx context.Context, d, took time.Duration) error {
	if d == 0 {
		d = took
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func earliest(a, b *int64) *int64 {
	if a == nil || (b != nil && *b < *a) {
		return b
	}
	return a
}

// rangeWhere renders [lo, hi) as SQL; hi nil means unbounded.
func rangeWhere(lo, hi []byte) (string, []any) {
	if lo == nil {
		lo = []byte{} // a nil []byte would bind as NULL, and k >= NULL matches nothing
	}
	if hi == nil {
		return "k >= ?", []any{lo}
	}
	return "k >= ? AND k < ?", []any{lo, hi}
}

// ScanExpired streams the expired rows under prefix (all rows, undecodable
// ones included, for an empty prefix) at now, in key order: what a sweep
// at now would delete; limit caps them (zero: no cap). Over a remote transport the filter runs on the
// server (pages of expired rows only, sized in bytes); on a file it reads
// every row in short pages and filters them here, so that no read runs
// long over a sparse range.
func (s *Store) ScanExpired(ctx context.Context, prefix codec.Key, now int64, limit int, fn func(Entry) error) error {
	if !s.target.Transport.Remote() {
		n := 0
		err := s.Dump(ctx, prefix, func(e Entry) error {
			if e.Live(now) {
				return nil
			}
			if n++; limit > 0 && n > limit {
				return errEnough
			}
			return fn(e)
		})
		if errors.Is(err, errEnough) {
			return nil
		}
		return err
	}
	return s.Scan(ctx, ListOptions{Prefix: prefix, IncludeExpired: true, Unbounded: len(prefix) == 0, expiredAt: now, Limit: limit}, func(e Entry) error {
		if e.Live(now) { // cannot happen: the server filtered on the same rule
			return nil
		}
		return fn(e)
	})
}
