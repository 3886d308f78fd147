package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
)

// readShort runs one read statement and hands its rows to read: on a
// rollback-journal file without SQLite's locks where it can (lockfree.go:
// a service's commit that meets kvdeck's SHARED lock fails, the reference
// setting no busy timeout; read may then be called more than once, and
// must start afresh each time), else, or when the file kept being written
// during every try, the ordinary way. For the statements that examine many
// rows and run again and again: the census's windows, the expired scans'.
func (s *Store) readShort(ctx context.Context, q string, args []any, read func(resultRows) error) error {
	return s.conn.readShort(ctx, q, args, read)
}

func (f *fileConn) readShort(ctx context.Context, q string, args []any, read func(resultRows) error) error {
	_, err := f.readShortTries(ctx, 0, lockFreeTries, true, q, args, read)
	return err
}

// readShort: a server's read is one request.
func (c *serverConn) readShort(ctx context.Context, q string, args []any, read func(resultRows) error) error {
	return c.s.readLocked(ctx, q, args, read)
}

// readLocked runs one read statement the ordinary way (queryLocked) and
// hands its rows to read.
func (s *Store) readLocked(ctx context.Context, q string, args []any, read func(resultRows) error) error {
	rows, err := s.queryLocked(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return read(rows)
}

// errWindowTooLong: every lock-free try of a window failed, and it was
// not read (readShortTries without fallback).
var errWindowTooLong = errors.New("store: every lock-free try of a window failed")

// readShortTries is readShort trying tries times without locks on the
// connection of lane (lockFreeLanes); without fallback, when they all
// fail, it reads nothing and returns errWindowTooLong. lockFree reports a
// read kept without locks.
func (f *fileConn) readShortTries(ctx context.Context, lane, tries int, fallback bool, q string, args []any, read func(resultRows) error) (lockFree bool, err error) {
	s := f.s
	if f.lockFreeUsable() {
		_, ok, err := s.readLockFreeTries(ctx, lane, tries, fallback, func(ctx context.Context, conn lfConn) error {
			rows, err := conn.QueryContext(ctx, q, args...)
			if err != nil {
				return s.classify(err)
			}
			defer rows.Close()
			return read(rows)
		})
		if ok || err != nil {
			return ok, err
		}
		if !fallback {
			return false, errWindowTooLong
		}
	}
	return false, s.readLocked(ctx, q, args, read)
}

// queryLockFree runs one read statement without SQLite's locks
// (readLockFree) and hands its rows on once the read was kept: they are
// read whole first, as a try may be discarded (the caller of query sees
// nothing of the tries). ok is false when every try met a writer's
// commit (the caller reads with locks).
func (s *Store) queryLockFree(ctx context.Context, q string, args []any) (rows *reqRows, ok bool, err error) {
	var buf bufRows
	_, ok, err = s.readLockFree(ctx, func(ctx context.Context, conn lfConn) error {
		buf = bufRows{at: -1}
		rows, err := conn.QueryContext(ctx, q, args...)
		if err != nil {
			return s.classify(err)
		}
		defer rows.Close()
		return buf.fill(rows)
	})
	if err != nil || !ok {
		return nil, ok, err
	}
	return &reqRows{rowSource: &buf, cancel: func() {}}, true, nil
}

// bufRows are the rows of a statement read whole, as database/sql scans
// them into an any (nil, int64, float64, string, []byte: a copy), and
// handed to the destinations as a server's answer is (assign).
type bufRows struct {
	rows [][]any
	at   int
}

// fill reads every row of rows.
func (b *bufRows) fill(rows *sql.Rows) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	for rows.Next() {
		row := make([]any, len(cols))
		dest := make([]any, len(cols))
		for i := range row {
			dest[i] = &row[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		b.rows = append(b.rows, row)
	}
	b.at = -1
	return rows.Err()
}

// Next moves to the next row.
func (b *bufRows) Next() bool {
	if b.at+1 >= len(b.rows) {
		return false
	}
	b.at++
	return true
}

// Scan copies the current row into dest (see assign).
func (b *bufRows) Scan(dest ...any) error {
	row := b.rows[b.at]
	if len(dest) != len(row) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(row))
	}
	for i, d := range dest {
		if err := assign(d, row[i]); err != nil {
			return fmt.Errorf("scan column %d: %w", i, err)
		}
	}
	return nil
}

// Err is nil: the rows were read whole.
func (b *bufRows) Err() error { return nil }

// Close does nothing: the statement is over.
func (b *bufRows) Close() error { return nil }

// Windows that shrink beside a writer. A windowed read (the census's
// statements, the expired scans of sweeps, dry runs and previews) examines up to a window of rows per
// statement, each read without locks on a rollback-journal file and kept
// only when no commit came during it: a window that takes longer than the
// gaps between a writer's commits is never kept, and was read with locks
// (a commit that meets them fails). So a window whose windowTries
// lock-free tries all fail is halved and read again, down to windowFloor
// rows, where it is tried as readShort tries (and then read with locks);
// after windowGrowAfter windows kept in a row it doubles again, up to its
// full size. A floor window read with locks means that the file is being
// written without a gap (a long commit, one commit after another): the
// rest of the read then goes at full size as readShort reads, until a
// window is kept without locks again (else every one of many small
// windows would wait out all its tries). The store remembers the last window of each kind of read
// (windowKind), where the next read of that kind starts: each census
// need not find again, by failing, what the writer leaves room for. On
// an idle file, a server or a file in WAL mode the window keeps its full
// size.
const (
	windowFloor     = 64
	windowTries     = 2
	windowGrowAfter = 4
)

// windowKind names the windowed reads whose windows the store remembers
// apart (their rows cost differently).
type windowKind int

const (
	windowCensus windowKind = iota
	windowChecked
	windowCount
	windowList
	windowFind
	windowChildren
	windowLevel
	windowExpired
	windowKinds
)

// readWindow is the size of a windowed read's next statement.
type readWindow struct {
	// n is the next statement's window, max its full size; kept counts
	// the windows kept without locks since n last changed.
	n, max, kept int
	// locked: a floor window was read with locks, and no window was kept
	// without them since; the windows keep their full size.
	locked bool
	// last is where the store remembers n.
	last *atomic.Int64
	// bound, when not zero, is what the caller needs of the next
	// statement at most: its window is min(n, bound) rows, and a window
	// too long for the writer's gaps is halved from that.
	bound int
	// lane is the lock-free connection its statements run on
	// (lockFreeLanes): 0 but for a listing's second reader.
	lane int
}

// size is the next statement's window.
func (w *readWindow) size() int {
	if w.bound > 0 && w.bound < w.n {
		return w.bound
	}
	return w.n
}

// newReadWindow starts a windowed read of kind whose full window is max
// rows, at the store's last window of that kind.
func (s *Store) newReadWindow(kind windowKind, max int) *readWindow {
	w := &readWindow{n: max, max: max, last: &s.windows[kind]}
	if n := int(w.last.Load()); n > 0 && n < max {
		w.n = n
	}
	return w
}

// set makes n the next window.
func (w *readWindow) set(n int) {
	w.n, w.kept = n, 0
	w.last.Store(int64(n))
}

// readWindowed runs the statement stmt(n) for a window of w.n rows and
// hands its rows to read (which may be called more than once, and must
// start afresh each time), shrinking the window until a lock-free read of
// it is kept (see above), and sizes w's next window.
func (s *Store) readWindowed(ctx context.Context, w *readWindow, stmt func(n int) (string, []any), read func(resultRows) error) error {
	return s.conn.readWindowed(ctx, w, stmt, read)
}

// readWindowed: a server's windows keep their full size, but for an
// answer the server refuses as too large (its response limit), which
// halves the window until it fits; answers that fit grow it back.
func (c *serverConn) readWindowed(ctx context.Context, w *readWindow, stmt func(n int) (string, []any), read func(resultRows) error) error {
	for {
		n := w.size()
		q, args := stmt(n)
		err := c.readShort(ctx, q, args, read)
		if !tooLarge(err) || n <= 1 {
			if err == nil && w.n < w.max {
				w.keep()
			}
			return err
		}
		w.set(max(n/2, 1))
	}
}

func (f *fileConn) readWindowed(ctx context.Context, w *readWindow, stmt func(n int) (string, []any), read func(resultRows) error) error {
	if !f.lockFreeUsable() || f.lockFree() == nil {
		q, args := stmt(w.size())
		return f.readShort(ctx, q, args, read)
	}
	for {
		n := w.size()
		q, args := stmt(n)
		if w.locked || n <= windowFloor {
			lockFree, err := f.readShortTries(ctx, w.lane, lockFreeTries, true, q, args, read)
			switch {
			case lockFree:
				w.locked = false
				w.keep()
			case err == nil && !w.locked:
				w.locked = true
				w.set(w.max)
			}
			return err
		}
		lockFree, err := f.readShortTries(ctx, w.lane, windowTries, false, q, args, read)
		if !errors.Is(err, errWindowTooLong) {
			if lockFree {
				w.keep()
			}
			return err
		}
		w.set(max(n/2, windowFloor))
	}
}

// keep counts a window kept without locks, doubling the next one after
// windowGrowAfter in a row.
func (w *readWindow) keep() {
	if w.kept++; w.kept >= windowGrowAfter && w.n < w.max {
		w.set(min(2*w.n, w.max))
	}
}
