package store

import (
	"context"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/retry"
)

// DefaultSweepBatch is how many expired rows one delete transaction of a
// sweep on a file takes at most: few enough that the write lock is held
// for a few milliseconds, so a live service keeps committing during a
// large sweep.
const DefaultSweepBatch = 1000

// Over a remote transport every request costs a round trip and the
// server's own journal (WAL) lets readers and writers pass: one sweep read
// examines remoteSweepWindow rows (its answer holds their expired keys),
// which are deleted in transactions of remoteSweepChunk rows (short for
// the server: primary-key deletes), and one counting read examines
// remoteCountWindow rows (its answer is one row: a store of a million
// rows is counted in a request or two, as the change feed reads it).
const (
	remoteSweepWindow = 50000
	remoteSweepChunk  = 5000
	remoteCountWindow = 1000000
)

// SweepOptions configure Sweep.
type SweepOptions struct {
	// Now is the sweep's clock; zero means the store's clock.
	Now int64
	// Prefix limits the sweep to keys under it; empty sweeps everything
	// (undecodable rows included, like the reference).
	Prefix codec.Key
	// Batch is the most expired rows one delete transaction takes
	// (DefaultSweepBatch on a file when zero, remoteSweepChunk over a
	// server). The reads that find them examine windows the store sizes
	// (expired.go).
	Batch int
	// DryRun counts what would be swept without deleting.
	DryRun bool
	// Each, in a dry run, is handed every row the sweep would delete, in
	// key order, before Sweep returns; on a file the rows and the
	// receipt's counts come from the same reads.
	Each func(Entry) error
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
// sweepExpired, but in steps: a short read finds the expired rows of the
// next window by SQL (expired.go: only their keys travel), then short
// transactions delete them, Batch at a time, each re-checking every row's
// expiry (so a row a service re-set meanwhile survives). No read or write
// spans more than one step. Cancelling ctx stops between transactions;
// the result then says how much was done, with ctx's error.
func (s *Store) Sweep(ctx context.Context, opts SweepOptions) (SweepResult, error) {
	start := time.Now()
	now := opts.Now
	if now == 0 {
		now = s.Now()
	}
	clock := clockOf(opts, now)
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
		var t expiredTotals
		t, err = s.dryRun(ctx, opts.Prefix, lo, hi, clock, opts.Each)
		res.Swept, res.Remaining, res.LiveByReal, res.NextExpiry = t.expired, t.expired, t.liveByReal, t.next
		res.Elapsed = time.Since(start)
		return res, err
	}
	// Where reads do not wait on writes (a WAL file, a server) the next
	// window is read while this one's keys are deleted; on a
	// rollback-journal file the sweep pauses after each delete instead.
	ahead := !s.sweepPauses()
	if opts.Pause == 0 && ahead {
		opts.Pause = -1
	}
	found, err := s.sweepWindows(ctx, opts, s.sweepScan(lo, hi, clock), ahead, &res)
	// The last commits' outcome lines may still be in the cache (a
	// BatchRecorder syncs them with the next window's images): synced
	// before Sweep says it is done.
	if serr := s.syncRecorder(); err == nil {
		err = serr
	}
	res.LiveByReal = found.liveByReal
	if err == nil {
		res.Remaining, res.NextExpiry = found.expired-res.Swept, found.next
	} else {
		// Count what is left with a fresh context: ctx may be the cancelled one.
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		left, _ := s.countExpired(cctx, lo, hi, clock)
		res.Remaining, res.NextExpiry = left.expired, left.next
		cancel()
	}
	res.Elapsed = time.Since(start)
	return res, err
}

// sweepWindows reads x's windows and deletes the expired keys of each,
// counting into res; it returns the windows' summaries added up. With
// ahead, the next window is read beside the current one's deletes.
func (s *Store) sweepWindows(ctx context.Context, opts SweepOptions, x *expiredScan, ahead bool, res *SweepResult) (expiredTotals, error) {
	if x.mode == expiredRows {
		return s.sweepImaged(ctx, opts, x, ahead, res)
	}
	var found expiredTotals
	reads := windowReads{x: x, ahead: ahead}
	defer reads.stop()
	// held is the last commit's keys, deleted once another commit comes
	// (unsynced) or none does (synced: execDeletes).
	var held windowRead
	for {
		if err := ctx.Err(); err != nil {
			return found, err
		}
		r := reads.get(ctx)
		if r.err != nil {
			return found, r.err
		}
		if s.knobs.sweepStepHook != nil {
			s.knobs.sweepStepHook()
		}
		found.add(r.w)
		if len(r.w.keys) > 0 {
			if err := s.deleteWindow(ctx, opts, held.w, held.walkable(), x.clock, res, false); err != nil {
				return found, err
			}
			head := r
			head.w.keys, held = r.w.keys[:lastChunk(len(r.w.keys), s.sweepChunk(opts))], r
			held.w.keys = r.w.keys[len(head.w.keys):]
			if err := s.deleteWindow(ctx, opts, head.w, r.walkable(), x.clock, res, false); err != nil {
				return found, err
			}
		}
		if r.done {
			return found, s.deleteWindow(ctx, opts, held.w, held.walkable(), x.clock, res, true)
		}
	}
}

// lastChunk is where the last of n keys' chunks of chunk keys starts.
func lastChunk(n, chunk int) int { return (n - 1) / chunk * chunk }

// windowReads hands a sweep its windows, one read ahead when asked.
type windowReads struct {
	x       *expiredScan
	ahead   bool
	pending chan windowRead
	// first, when not zero, bounds the first window's rows.
	first int
}

// windowRead is one window read: its mode (byRowid) and whether it was
// the range's last.
type windowRead struct {
	w             expiredWindow
	byRowid, done bool
	err           error
}

// walkable reports whether the window's deletes may walk its keys' range
// as a plain range DELETE does: a window of keys wholly expired is one
// run of the key order. Else each key is a seek (a walk would hold the
// write lock over live rows too).
func (r windowRead) walkable() bool {
	return !r.byRowid && int(r.w.expired) == r.w.examined
}

// get returns the next window and, ahead, starts reading the one after.
// Only the read in flight touches x.
func (r *windowReads) get(ctx context.Context) windowRead {
	var wr windowRead
	if r.pending != nil {
		wr, r.pending = <-r.pending, nil
	} else {
		wr = r.read(ctx)
	}
	if r.ahead && wr.err == nil && !wr.done {
		r.pending = make(chan windowRead, 1)
		go func(ch chan<- windowRead) { ch <- r.read(ctx) }(r.pending)
	}
	return wr
}

// read reads the next window now. Read ahead, a window's rows are its
// own: the scan starts the next window's afresh (the next read runs
// while they are used). Else the next read reuses their array: the
// caller is done with them by its next get.
func (r *windowReads) read(ctx context.Context) windowRead {
	if r.first > 0 {
		r.x.win.bound, r.first = r.first, 0
		defer func() { r.x.win.bound = 0 }()
	}
	w, err := r.x.next(ctx)
	if r.ahead {
		r.x.rows = make([]expiredRow, 0, len(w.rows)) // the next window's, sized as this one
	} else {
		r.x.rows = r.x.rows[:0]
	}
	return windowRead{w: w, byRowid: r.x.byRowid, done: r.x.done, err: err}
}

// stop waits for a read still in flight.
func (r *windowReads) stop() {
	if r.pending != nil {
		<-r.pending
		r.pending = nil
	}
}

// dryRun counts what a sweep at c would delete in [lo, hi) (the range of
// prefix) and, with
// each, hands each such row over in key order: on a file from the same
// reads (listExpired); over a server, where a listing is one streamed
// request filtered by the server and a count window holds a million rows,
// a listing then the count.
func (s *Store) dryRun(ctx context.Context, prefix codec.Key, lo, hi []byte, c sweepClock, each func(Entry) error) (expiredTotals, error) {
	if each == nil {
		return s.countExpired(ctx, lo, hi, c)
	}
	if !s.conn.traits().serverFilters {
		return s.listExpired(ctx, lo, hi, c, 0, each)
	}
	if err := s.scanExpiredRemote(ctx, prefix, c.cut, 0, each); err != nil {
		return expiredTotals{}, err
	}
	return s.countExpired(ctx, lo, hi, c)
}

// sweepChunk is how many keys one delete transaction takes.
func (s *Store) sweepChunk(opts SweepOptions) int {
	if opts.Batch > 0 {
		return opts.Batch
	}
	return s.conn.traits().sweepChunk
}

// sweepPauses reports whether a sweep pauses after each delete by
// default: on a file in rollback-journal mode, not on a WAL file or a
// server. The mode is the one the store knows (the file's header at open,
// then what its reads saw): asking SQLite would take a read lock, which a
// service's commit meets.
func (s *Store) sweepPauses() bool {
	return s.conn.traits().ownsFiles && s.watch.journal.Load() != journalOther
}

// deleteWindow deletes the expired keys window w found (in key order,
// when the store's seq was w.seq), a chunk of keys per transaction,
// counting each delete into res and reporting progress after it, then
// pausing as opts says; with sync, the last transaction syncs
// (execDeletes).
func (s *Store) deleteWindow(ctx context.Context, opts SweepOptions, w expiredWindow, walk bool, clock sweepClock, res *SweepResult, sync bool) error {
	chunk := s.sweepChunk(opts)
	expired := w.keys
	for len(expired) > 0 {
		keys := expired[:min(chunk, len(expired))]
		expired = expired[len(keys):]
		// The guard holds in the delete's own transaction: it deletes
		// only rows expired at clock.cut, so a row re-set meanwhile to
		// a time the real clock has not reached survives.
		n, took, err := s.deleteExpired(ctx, keys, clock.cut, w.seq, walk, w.odd > 0, sync && len(expired) == 0)
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

// deleteExpired deletes keys (in key order, as a window read found them
// when the store's seq was seq) in one transaction of a sweep that is not
// journaled, re-checking their expiry, and returns how many rows it
// deleted and how long the transaction took. A row written since the
// read has a ver above seq (every write stamps its rows with the seq it
// issues): it survives, expired or not, so the DELETE removes only rows
// of keys. With walk, the DELETE walks the keys' range in index order, as
// a plain range DELETE does (the read found most of the range expired),
// instead of a seek per key. A ver that is not a number (an odd row) is
// no stamp: such a row is judged by its keys alone, named in the
// statement when the read found odd rows among them (naming them costs a
// walk twice its time). Unless sync, a WAL file's commit is not synced
// (execDeletes). A journaled sweep deletes with deleteStillExpired.
func (s *Store) deleteExpired(ctx context.Context, keys [][]byte, now, seq int64, walk, odd, sync bool) (int64, time.Duration, error) {
	var where string
	var args []any
	switch {
	case walk && !odd:
		where = "k >= ? AND k <= ? AND ver <= ?"
		args = []any{keyArg(keys[0]), keyArg(keys[len(keys)-1]), seq}
	case walk:
		where = "k >= ? AND k <= ? AND (ver <= ? OR (typeof(ver) NOT IN ('integer', 'real') AND +k IN (" + placeholders(len(keys)) + ")))"
		args = append(append(args, keyArg(keys[0]), keyArg(keys[len(keys)-1]), seq), byteArgs(keys)...)
	default:
		where = "k IN (" + placeholders(len(keys)) + ") AND (ver <= ? OR typeof(ver) NOT IN ('integer', 'real'))"
		args = append(byteArgs(keys), seq)
	}
	q := "DELETE FROM kv WHERE " + where + " AND expires_at IS NOT NULL AND expires_at <= ?"
	began := time.Now()
	var n int64
	// The count alone, by changes() in the same transaction (RETURNING
	// costs SQLite itself about half again a plain DELETE's time: it
	// keeps every returned row).
	err := s.execDeletes(ctx, []stmt{{sql: q, args: append(args, now)}, {sql: "SELECT changes()", read: func(rows resultRows) error {
		for rows.Next() {
			if err := rows.Scan(&n); err != nil {
				return err
			}
		}
		return rows.Err()
	}}}, sync)
	took := time.Since(began)
	return n, took, err
}

// pause waits d, or took when d is zero, without outliving ctx.
func pause(ctx context.Context, d, took time.Duration) error {
	if d == 0 {
		d = took
	}
	return retry.Wait(ctx, d)
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
// at now would delete; limit caps them (zero: no cap). Only expired rows
// are read: on a file by windows of rows (expired.go, listExpired), over
// a remote transport by one listing the server filters (pages of expired
// rows only, sized in bytes).
func (s *Store) ScanExpired(ctx context.Context, prefix codec.Key, now int64, limit int, fn func(Entry) error) error {
	if s.conn.traits().serverFilters {
		return s.scanExpiredRemote(ctx, prefix, now, limit, fn)
	}
	lo, hi, err := bounds(ListOptions{Prefix: prefix, Unbounded: len(prefix) == 0})
	if err != nil {
		return err
	}
	_, err = s.listExpired(ctx, lo, hi, sweepClock{now: now, cut: now, real: now}, limit, fn)
	return err
}

// scanExpiredRemote is ScanExpired over a remote transport.
func (s *Store) scanExpiredRemote(ctx context.Context, prefix codec.Key, now int64, limit int, fn func(Entry) error) error {
	return s.Scan(ctx, ListOptions{Prefix: prefix, IncludeExpired: true, Unbounded: len(prefix) == 0, expiredAt: now, Limit: limit}, func(e Entry) error {
		if e.Live(now) { // cannot happen: the server filtered on the same rule
			return nil
		}
		return fn(e)
	})
}
