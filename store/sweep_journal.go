package store

import (
	"bytes"
	"context"
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
	return s.newExpiredScan(lo, hi, c, expiredRows)
}

// sweepImages gathers the expired rows of a journaled sweep's windows
// until a batch is full.
type sweepImages struct {
	rows  []RawRow
	bytes int
}

// add appends a window's rows.
func (b *sweepImages) add(rows []expiredRow) {
	for _, r := range rows {
		b.rows = append(b.rows, RawRow{Key: r.k.b, Value: r.v.b, Ver: r.ver.n, ExpiresAt: r.exp.at})
		b.bytes += r.size()
	}
}

// full reports whether the batch is big enough to record and delete.
func (b *sweepImages) full() bool {
	return len(b.rows) >= sweepImageRows || b.bytes >= sweepImageBytes
}

// take returns the batch in key order and starts the next.
func (b *sweepImages) take() []RawRow {
	rows := b.rows
	b.rows, b.bytes = nil, 0
	slices.SortFunc(rows, func(x, y RawRow) int { return bytes.Compare(x.Key, y.Key) })
	return rows
}

// deleteImagedWindow records rows as the before-images of their delete
// commits (a chunk of Batch rows each), with one sync, then runs the
// commits, counting into res, reporting progress and pausing after each
// as deleteWindow does. A commit not run (an error, a cancel) is recorded
// not applied.
func (s *Store) deleteImagedWindow(ctx context.Context, opts SweepOptions, rows []RawRow, clock sweepClock, res *SweepResult) error {
	if len(rows) == 0 {
		return nil
	}
	var ws []PendingWrite
	for chunk := range slices.Chunk(rows, s.sweepChunk(opts)) {
		keys := make([][]byte, len(chunk))
		for i, r := range chunk {
			keys[i] = r.Key
		}
		ws = append(ws, PendingWrite{Op: WriteOp(ctx), Action: ActionOf(ctx), Kind: "sweep", Keys: keys, Imaged: true, Before: chunk})
	}
	js, err := s.recordAll(ctx, ws)
	if err != nil {
		return err
	}
	for i, j := range js {
		if err := ctx.Err(); err != nil {
			endAll(js[i:], err)
			return err
		}
		n, took, err := s.deleteStillExpired(ctx, j, ws[i].Before, clock.cut)
		if err != nil {
			endAll(js[i+1:], err)
			return err
		}
		res.LongestTx = max(res.LongestTx, took)
		res.Swept += n
		res.Batches++
		if opts.Progress != nil {
			opts.Progress(SweepProgress{Swept: res.Swept, Batches: res.Batches, Position: ws[i].Keys[len(ws[i].Keys)-1]})
		}
		if err := pause(ctx, opts.Pause, took); err != nil {
			endAll(js[i+1:], err)
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

// deleteStillExpired deletes, in one transaction, each of rows that still
// has the stamp it was read with (a row without a stamp: still none) and
// is still expired at cut, and records j's outcome: the rows deleted are
// its before-images, the others Kept. It returns how many it deleted and
// how long the transaction took.
func (s *Store) deleteStillExpired(ctx context.Context, j *journaled, rows []RawRow, cut int64) (int64, time.Duration, error) {
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
	q := "DELETE FROM kv WHERE k IN (" + strings.Join(same, " UNION ALL ") + ") AND expires_at IS NOT NULL AND expires_at <= ? RETURNING k"
	args := append(append(pairs, unstamped...), cut)
	deleted := make(map[string]bool, len(rows))
	began := time.Now()
	err := s.execBatch(ctx, []stmt{{sql: q, args: args, read: func(rs resultRows) error {
		clear(deleted)
		for rs.Next() {
			var k bytesCol
			if err := rs.Scan(&k); err != nil {
				return err
			}
			deleted[string(k.b)] = true
		}
		return rs.Err()
	}}})
	took := time.Since(began)
	var kept [][]byte
	for _, r := range rows {
		if !deleted[string(r.Key)] {
			kept = append(kept, r.Key)
		}
	}
	j.endKept(true, "", kept, err)
	return int64(len(deleted)), took, err
}
