package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A journaled sweep (a Recorder is set) reads the expired rows whole,
// lock-free on a rollback-journal file, gathers them into a batch of
// about sweepImageRows rows or sweepImageBytes, records them as the
// before-images of the batch's delete commits and syncs the journal once,
// and only then deletes them, Batch rows a commit, each row only while it
// still has the stamp it was read with and is still expired. A row
// rewritten in between is neither deleted nor claimed by the journal
// (WriteResult.Kept). One sync a batch, not one a commit: a sync costs
// about as much as a 1,000-row delete.
const (
	sweepImageRows  = 8192
	sweepImageBytes = 8 << 20
)

// sweepScan is the expired scan a sweep walks: keys alone when nothing is
// journaled; else whole rows (their before-images), in the scan's usual
// windows: a server's answer too large for it halves the window
// (serverConn.readWindowed), so requests stay few when the expired rows
// are few.
func (s *Store) sweepScan(lo, hi []byte, c sweepClock) *expiredScan {
	if s.recorder == nil {
		return s.newExpiredScan(lo, hi, c, expiredKeys)
	}
	x := s.newExpiredScan(lo, hi, c, expiredRows)
	x.packed = s.conn.traits().ownsFiles
	return x
}

// sweepImages gathers the expired rows of a journaled sweep's windows
// until a batch is full.
type sweepImages struct {
	batch   imageBatch
	bytes   int
	windows int
	// taken counts the batches taken: the first is its first window (on
	// a file one delete commit of rows: windowReads.first), so that the
	// deletes start while the next batch is read.
	taken int
}

// imageBatch is a batch of a journaled sweep's rows with what its
// windows' reads say of them: ceil, the lowest seq they were read at
// (every write since stamps its rows above it), seq, the highest
// kv_meta seq they were read at (PendingWrite.Seq), and walk, whether
// every window was a run of the key order wholly expired
// (windowRead.walkable).
type imageBatch struct {
	rows      []RawRow
	ceil, seq int64
	walk      bool
}

// add appends a window's rows.
func (b *sweepImages) add(r windowRead) {
	if b.windows == 0 {
		b.batch.ceil, b.batch.walk = r.w.seq, true
	}
	b.windows++
	b.batch.ceil = min(b.batch.ceil, r.w.seq)
	b.batch.seq = max(b.batch.seq, r.w.metaSeq)
	b.batch.walk = b.batch.walk && r.walkable()
	if b.batch.rows == nil && b.taken > 0 {
		b.batch.rows = make([]RawRow, 0, sweepImageRows+len(r.w.rows))
	}
	for _, r := range r.w.rows {
		b.batch.rows = append(b.batch.rows, RawRow{Key: r.k.b, Value: r.v.b, Ver: r.ver.n, ExpiresAt: r.exp.at})
		b.bytes += r.size()
	}
}

// full reports whether the batch is big enough to record and delete.
func (b *sweepImages) full() bool {
	return b.taken == 0 || len(b.batch.rows) >= sweepImageRows || b.bytes >= sweepImageBytes
}

// take returns the batch in key order and starts the next.
func (b *sweepImages) take() imageBatch {
	out := b.batch
	*b = sweepImages{taken: b.taken + 1}
	slices.SortFunc(out.rows, func(x, y RawRow) int { return bytes.Compare(x.Key, y.Key) })
	return out
}

// sweepImaged is a journaled sweep's walk of x (whole rows): a goroutine
// gathers the windows into batches and records each (recordBatches),
// while the batch recorded before is deleted here (deleteRecorded), so
// that reading, encoding and syncing the next batch's images overlap
// this one's deletes. The handover is unbuffered: one batch recorded
// ahead at most. Over a server the next window is read ahead as well
// (a round trip to hide); a file's reads are work for a core, and a
// third goroutine would take its time from the deletes.
func (s *Store) sweepImaged(ctx context.Context, opts SweepOptions, x *expiredScan, ahead bool, res *SweepResult) (expiredTotals, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan recordedBatch)
	var found expiredTotals
	ahead = ahead && !s.conn.traits().ownsFiles
	go func() {
		defer close(batches)
		found = s.recordBatches(rctx, opts, x, ahead, batches)
	}()
	var err error
	// held is the last commit recorded, made once the next batch comes
	// (unsynced) or none does (synced: execDeletes).
	var held recordedBatch
	for b := range batches {
		if err == nil {
			err = b.err
		}
		if err == nil {
			err = s.deleteRecorded(ctx, opts, held, x.clock, res, false)
			held = recordedBatch{} // made, or ended by the error
		}
		if err != nil {
			// Recorded, never sent: not applied.
			endAll(b.js, err)
			cancel()
			continue
		}
		b, held = b.split()
		if err = s.deleteRecorded(ctx, opts, b, x.clock, res, false); err != nil {
			cancel()
		}
	}
	if err != nil {
		endAll(held.js, err)
		return found, err
	}
	return found, s.deleteRecorded(ctx, opts, held, x.clock, res, true)
}

// split parts b into its commits but the last, and the last (none when
// b has no commit).
func (b recordedBatch) split() (head, last recordedBatch) {
	if len(b.js) == 0 {
		return b, recordedBatch{}
	}
	n := len(b.js) - 1
	head, last = b, b
	head.ws, head.js = b.ws[:n], b.js[:n]
	last.ws, last.js = b.ws[n:], b.js[n:]
	return head, last
}

// recordedBatch is a batch whose images are recorded (js, for the delete
// commits ws), or the error that ended the walk.
type recordedBatch struct {
	imageBatch
	ws  []PendingWrite
	js  []*journaled
	err error
}

// recordBatches records the batches gatherBatches reads from x's
// windows, handing each to out as it is recorded, or the error that ended
// the walk. Reading the next batch's windows, encoding and syncing this
// one's images and deleting the one before run at once, on a goroutine
// each: on a file each of the three is work for a core, and in turn each
// left the others' cores idle. It returns what the windows found.
func (s *Store) recordBatches(ctx context.Context, opts SweepOptions, x *expiredScan, ahead bool, out chan<- recordedBatch) expiredTotals {
	gathered := make(chan recordedBatch)
	var found expiredTotals
	go func() {
		defer close(gathered)
		found = s.gatherBatches(ctx, opts, x, ahead, gathered)
	}()
	for b := range gathered {
		if b.err == nil {
			if err := ctx.Err(); err != nil {
				b.err = err // not recorded: the sweep is ending
			} else {
				b = s.recordBatch(ctx, opts, b.imageBatch)
			}
		}
		out <- b
	}
	return found
}

// gatherBatches reads x's windows and gathers their rows into batches,
// handing each to out (unrecorded); it ends at the range's end or at the
// first error, which it hands over too, and returns what the windows
// found.
func (s *Store) gatherBatches(ctx context.Context, opts SweepOptions, x *expiredScan, ahead bool, out chan<- recordedBatch) expiredTotals {
	var found expiredTotals
	var imgs sweepImages
	reads := windowReads{x: x, ahead: ahead}
	if s.conn.traits().ownsFiles { // a server's first window would be one more request
		reads.first = s.sweepChunk(opts)
	}
	defer reads.stop()
	for {
		if err := ctx.Err(); err != nil {
			out <- recordedBatch{err: err}
			return found
		}
		r := reads.get(ctx)
		if r.err != nil {
			out <- recordedBatch{err: r.err}
			return found
		}
		if s.knobs.sweepStepHook != nil {
			s.knobs.sweepStepHook()
		}
		found.add(r.w)
		imgs.add(r)
		if b := imgs.batch; (imgs.full() || r.done) && len(b.rows) > 0 {
			out <- recordedBatch{imageBatch: imgs.take()}
		}
		if r.done {
			return found
		}
	}
}

// recordBatch records b's delete commits, a chunk of Batch rows each,
// their rows as before-images, with one sync.
func (s *Store) recordBatch(ctx context.Context, opts SweepOptions, b imageBatch) recordedBatch {
	out := recordedBatch{imageBatch: b}
	for chunk := range slices.Chunk(b.rows, s.sweepChunk(opts)) {
		keys := make([][]byte, len(chunk))
		for i, r := range chunk {
			keys[i] = r.Key
		}
		out.ws = append(out.ws, PendingWrite{Op: WriteOp(ctx), Action: ActionOf(ctx), Kind: "sweep", Keys: keys, Imaged: true, Before: chunk, Seq: b.seq})
	}
	out.js, out.err = s.recordAll(ctx, out.ws)
	return out
}

// deleteRecorded runs b's delete commits, counting into res, reporting
// progress and pausing after each as deleteWindow does; with sync, the
// last one syncs (execDeletes). A commit not run (an error, a cancel) is
// recorded not applied.
func (s *Store) deleteRecorded(ctx context.Context, opts SweepOptions, b recordedBatch, clock sweepClock, res *SweepResult, sync bool) error {
	for i, j := range b.js {
		if err := ctx.Err(); err != nil {
			endAll(b.js[i:], err)
			return err
		}
		last := sync && i == len(b.js)-1
		n, took, err := s.deleteStillExpired(ctx, j, imageBatch{rows: b.ws[i].Before, ceil: b.ceil, walk: b.walk}, clock.cut, last)
		if err != nil {
			endAll(b.js[i+1:], err)
			return err
		}
		res.LongestTx = max(res.LongestTx, took)
		res.Swept += n
		res.Batches++
		if opts.Progress != nil {
			opts.Progress(SweepProgress{Swept: res.Swept, Batches: res.Batches, Position: b.ws[i].Keys[len(b.ws[i].Keys)-1]})
		}
		if err := pause(ctx, opts.Pause, took); err != nil {
			endAll(b.js[i+1:], err)
			return err
		}
	}
	return nil
}

// recordAll tells the Recorder ws, with one sync when it is a
// BatchRecorder (else one each); an error wraps ErrJournal, and none of
// ws may then be made.
func (s *Store) recordAll(ctx context.Context, ws []PendingWrite) ([]*journaled, error) {
	out := make([]*journaled, 0, len(ws))
	if b, ok := s.recorder.(BatchRecorder); ok {
		ids, err := b.BeforeAll(ctx, ws)
		if err != nil {
			return nil, fmt.Errorf("%w: sweep not made: %w", ErrJournal, err)
		}
		for i, id := range ids {
			out = append(out, s.journaledAs(ctx, id, ws[i]))
		}
		return out, nil
	}
	for _, w := range ws {
		j, err := s.beginWrite(ctx, w)
		if err != nil {
			endAll(out, err)
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// endAll records js not applied: they were never sent.
func endAll(js []*journaled, err error) {
	for _, j := range js {
		j.end(false, "", fmt.Errorf("not sent: %w", err))
	}
}

// deleteStillExpired deletes, in one transaction, each of b's rows that
// still has the stamp it was read with (a row without a stamp: still
// none) and is still expired at cut, and records j's outcome: the rows
// deleted are its before-images, the others Kept. It returns how many it
// deleted and how long the transaction took.
//
// A row read with a stamp at most b.ceil that still has one at most
// b.ceil has not been written since (every write stamps its rows above
// the seq it read), so most rows go by one plain DELETE, of their keys or
// of their range when b.walk says nothing else expired lies in it, whose
// count proves them all deleted. A short count (a row written since)
// fails its statement, so the transaction is rolled back and every row
// is deleted by its (key, stamp) pair instead, naming the rows it
// deleted: four times the work, for a batch a writer touched.
func (s *Store) deleteStillExpired(ctx context.Context, j *journaled, b imageBatch, cut int64, sync bool) (int64, time.Duration, error) {
	began := time.Now()
	n, deleted, err := s.deleteCounted(ctx, b, cut, sync)
	if errors.Is(err, errRowsWritten) {
		n, deleted, err = s.deletePairs(ctx, b.rows, cut, sync)
	}
	took := time.Since(began)
	var kept [][]byte
	for _, r := range b.rows {
		if err == nil && deleted != nil && !deleted[string(r.Key)] {
			kept = append(kept, r.Key)
		}
	}
	j.endKept(true, "", kept, err)
	return n, took, err
}

// errRowsWritten: a counted delete found fewer rows than it was given.
var errRowsWritten = errors.New("rows written since they were read")

// shortCount is a statement that fails, with a JSON path naming
// errRowsWritten, unless the statement before it changed as many rows
// as its argument: SQLite has no RAISE outside a trigger, and a failed
// statement rolls its transaction back, on a file and on a server alike.
const shortCount = "SELECT CASE WHEN changes() = ? THEN 1 ELSE json_extract('{}', 'rows written since they were read') END"

// deleteCounted deletes b's rows by a plain DELETE checked by its count
// (deleteStillExpired), those read with a stamp above b.ceil or none by
// their pairs, all in one transaction; deleted names the rows deleted,
// nil when it is all of them. Unless sync, a WAL file's commit is not
// synced (execDeletes).
func (s *Store) deleteCounted(ctx context.Context, b imageBatch, cut int64, sync bool) (int64, map[string]bool, error) {
	plain := make([][]byte, 0, len(b.rows))
	var odd []RawRow
	for _, r := range b.rows {
		if r.Ver > 0 && r.Ver <= b.ceil {
			plain = append(plain, r.Key)
		} else {
			odd = append(odd, r)
		}
	}
	var stmts []stmt
	if len(plain) > 0 {
		where, args := "k >= ? AND k <= ?", []any{keyArg(plain[0]), keyArg(plain[len(plain)-1])}
		if !b.walk || len(odd) > 0 {
			where, args = "k IN ("+placeholders(len(plain))+")", byteArgs(plain)
		}
		stmts = append(stmts,
			stmt{sql: "DELETE FROM kv WHERE " + where + " AND ver <= ? AND expires_at IS NOT NULL AND expires_at <= ?", args: append(args, b.ceil, cut)},
			stmt{sql: shortCount, args: []any{len(plain)}, read: drain})
	}
	var deleted map[string]bool
	if len(odd) > 0 {
		var st stmt
		st, deleted = pairsDelete(odd, cut)
		stmts = append(stmts, st)
	}
	if err := s.execDeletes(ctx, stmts, sync); err != nil {
		if strings.Contains(err.Error(), errRowsWritten.Error()) {
			return 0, nil, errRowsWritten
		}
		return 0, nil, err
	}
	if deleted == nil {
		return int64(len(plain)), nil, nil
	}
	for _, k := range plain {
		deleted[string(k)] = true
	}
	return int64(len(deleted)), deleted, nil
}

// deletePairs deletes, in one transaction, each of rows still at the
// stamp it was read with and still expired at cut, and names them.
func (s *Store) deletePairs(ctx context.Context, rows []RawRow, cut int64, sync bool) (int64, map[string]bool, error) {
	st, deleted := pairsDelete(rows, cut)
	err := s.execDeletes(ctx, []stmt{st}, sync)
	return int64(len(deleted)), deleted, err
}

// pairsDelete is the DELETE of each of rows still at the stamp it was
// read with (a row without one: still none) and still expired at cut,
// and the set its answer fills with the keys it deleted.
func pairsDelete(rows []RawRow, cut int64) (stmt, map[string]bool) {
	var pairs, unstamped []any
	for _, r := range rows {
		if r.Ver == 0 {
			unstamped = append(unstamped, keyArg(r.Key))
		} else {
			pairs = append(pairs, keyArg(r.Key), r.Ver)
		}
	}
	// The rows still as read, by a primary-key lookup per (key, stamp)
	// pair (CROSS JOIN keeps the pairs the outer loop); a row-value IN
	// over the pairs took four times as long.
	var same []string
	if len(pairs) > 0 {
		same = append(same, "SELECT kv.k FROM (VALUES (?, ?)"+strings.Repeat(", (?, ?)", len(pairs)/2-1)+
			") AS e CROSS JOIN kv ON kv.k = e.column1 AND kv.ver = e.column2")
	}
	if len(unstamped) > 0 {
		same = append(same, "SELECT k FROM kv WHERE k IN ("+placeholders(len(unstamped))+") AND (ver = 0 OR NOT "+wholeVerSQL+")")
	}
	deleted := make(map[string]bool, len(rows))
	return stmt{
		sql:  "DELETE FROM kv WHERE k IN (" + strings.Join(same, " UNION ALL ") + ") AND expires_at IS NOT NULL AND expires_at <= ? RETURNING k",
		args: append(append(pairs, unstamped...), cut),
		read: func(rs resultRows) error {
			clear(deleted)
			for rs.Next() {
				var k bytesCol
				if err := rs.Scan(&k); err != nil {
					return err
				}
				deleted[string(k.b)] = true
			}
			return rs.Err()
		},
	}, deleted
}

// drain reads a statement's answer to its end.
func drain(rs resultRows) error {
	var v any
	for rs.Next() {
		if err := rs.Scan(&v); err != nil {
			return err
		}
	}
	return rs.Err()
}
