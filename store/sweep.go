package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"kvdeck/codec"
)

// DefaultSweepBatch is how many rows one sweep transaction deletes: small
// enough that the write lock is held for a few milliseconds, so a live
// service keeps committing during a large sweep.
const DefaultSweepBatch = 1000

// SweepOptions configure Sweep.
type SweepOptions struct {
	// Now is the sweep's clock; zero means the store's clock.
	Now int64
	// Prefix limits the sweep to keys under it; empty sweeps everything
	// (undecodable rows included, like the reference).
	Prefix codec.Key
	// Batch is the number of rows per delete transaction (DefaultSweepBatch
	// when zero).
	Batch int
	// DryRun counts what would be swept without deleting.
	DryRun bool
	// Progress, when set, is called after each batch with the running total.
	Progress func(SweepProgress)
}

// SweepProgress reports a sweep in flight.
type SweepProgress struct {
	Swept   int64
	Batches int
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
	// (non-zero after a cancel, or when writers expire rows meanwhile).
	Remaining int64
	// NextExpiry is the earliest expiry after Now in the range, if any.
	NextExpiry *int64
	// DryRun echoes the option.
	DryRun bool
}

// Sweep deletes rows with expires_at <= now, like the reference's
// sweepExpired, but in batches: it finds a batch with a read, then deletes
// it in a short transaction that re-checks each row's expiry (so a row a
// service re-set meanwhile survives). Cancelling ctx stops between batches;
// the result then says how much was done, along with ctx's error.
func (s *Store) Sweep(ctx context.Context, opts SweepOptions) (SweepResult, error) {
	start := time.Now()
	now := opts.Now
	if now == 0 {
		now = s.Now()
	}
	batch := opts.Batch
	if batch <= 0 {
		batch = DefaultSweepBatch
	}
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
	rangeSQL, rangeArgs := rangeWhere(lo, hi)
	if opts.DryRun {
		n, err := s.countExpired(ctx, rangeSQL, rangeArgs, now)
		res.Swept = n
		if err == nil {
			res.Remaining = n
			res.NextExpiry, err = s.nextExpiry(ctx, rangeSQL, rangeArgs, now)
		}
		res.Elapsed = time.Since(start)
		return res, err
	}
	cursor := lo
	for {
		if err := ctx.Err(); err != nil {
			return s.finishSweep(res, rangeSQL, rangeArgs, now, start, err)
		}
		keys, err := s.expiredKeys(ctx, cursor, hi, now, batch)
		if err != nil {
			return s.finishSweep(res, rangeSQL, rangeArgs, now, start, err)
		}
		if len(keys) == 0 {
			break
		}
		args := make([]any, 0, len(keys)+1)
		for _, k := range keys {
			args = append(args, k)
		}
		args = append(args, now)
		var n int64
		err = s.execBatchScan(ctx, []stmt{{
			sql:  "DELETE FROM kv WHERE k IN (?" + strings.Repeat(", ?", len(keys)-1) + ") AND expires_at IS NOT NULL AND expires_at <= ? RETURNING 1",
			args: args,
		}}, 0, func(rows *sql.Rows) error {
			for rows.Next() {
				n++
			}
			return rows.Err()
		})
		if err != nil {
			return s.finishSweep(res, rangeSQL, rangeArgs, now, start, err)
		}
		res.Swept += n
		res.Batches++
		if opts.Progress != nil {
			opts.Progress(SweepProgress{Swept: res.Swept, Batches: res.Batches})
		}
		cursor = append(keys[len(keys)-1], 0x00)
		if len(keys) < batch {
			break
		}
	}
	return s.finishSweep(res, rangeSQL, rangeArgs, now, start, nil)
}

// finishSweep fills in what is left and when the next row expires. After a
// failure it still reports the work done; the counts use a fresh context
// when ctx was cancelled.
func (s *Store) finishSweep(res SweepResult, rangeSQL string, rangeArgs []any, now int64, start time.Time, cause error) (SweepResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if n, err := s.countExpired(ctx, rangeSQL, rangeArgs, now); err == nil {
		res.Remaining = n
	}
	if next, err := s.nextExpiry(ctx, rangeSQL, rangeArgs, now); err == nil {
		res.NextExpiry = next
	}
	res.Elapsed = time.Since(start)
	return res, cause
}

func (s *Store) expiredKeys(ctx context.Context, lo, hi []byte, now int64, limit int) ([][]byte, error) {
	where, args := rangeWhere(lo, hi)
	rows, err := s.query(ctx, "SELECT k FROM kv WHERE "+where+" AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY k LIMIT ?", append(args, now, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys [][]byte
	for rows.Next() {
		var k []byte
		if err := rows.Scan(&k); err != nil {
			return nil, s.classify(err)
		}
		keys = append(keys, k)
	}
	s.rowsRead.Add(int64(len(keys)))
	return keys, s.classify(rows.Err())
}

func (s *Store) countExpired(ctx context.Context, rangeSQL string, rangeArgs []any, now int64) (int64, error) {
	var n int64
	_, err := s.queryRow(ctx, "SELECT count(*) FROM kv WHERE "+rangeSQL+" AND expires_at IS NOT NULL AND expires_at <= ?", append(append([]any{}, rangeArgs...), now), &n)
	return n, err
}

func (s *Store) nextExpiry(ctx context.Context, rangeSQL string, rangeArgs []any, now int64) (*int64, error) {
	var next sql.NullInt64
	_, err := s.queryRow(ctx, "SELECT min(expires_at) FROM kv WHERE "+rangeSQL+" AND expires_at > ?", append(append([]any{}, rangeArgs...), now), &next)
	return nullable(next), err
}

// rangeWhere renders [lo, hi) as SQL; hi nil means unbounded.
func rangeWhere(lo, hi []byte) (string, []any) {
	if hi == nil {
		return "k >= ?", []any{lo}
	}
	return "k >= ? AND k < ?", []any{lo, hi}
}
