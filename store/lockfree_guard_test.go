package store_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// expiredSQL counts the rows with an expiry: none in a seeded store, and
// none committed by the tests' writers.
const expiredSQL = "SELECT count(*) FROM kv WHERE expires_at IS NOT NULL"

// spillSQL sets an expiry on 150 rows spread over the second half of a
// seeded store (one in ten): with cache_size=1 the writer spills their
// pages into the database file before its transaction ends.
const spillSQL = "UPDATE kv SET expires_at = 1 WHERE rowid IN (SELECT rowid FROM kv WHERE rowid > ? AND rowid % 10 = 3 LIMIT 150)"

// TestLockFreeSpillRolledBackWithinARead: a writer's transaction spills
// pages into the file (cache_size=1) while a lock-free read walks the
// table, and is rolled back before the read ends; its playback puts the
// pages and the change counter back, and the file's time is set back
// after it, as on a file system whose times move once a clock tick (ext4
// and xfs before Linux 6.13, ramfs: TestLockFreeSpillOnRamfs). Journal,
// data_version, size and time are then as they were before the read,
// which saw rows the writer never committed: only the watch of the
// file's writes tells, and the read must be tried again. Before the
// watch, the read was kept with the phantom rows.
func TestLockFreeSpillRolledBackWithinARead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	const rows = 3000
	storetest.SeedRollbackJournal(t, path, rows)
	ctx := storetest.Ctx(t)
	w := writerConn(t, path, "cache_size(1)")
	s := storetest.Open(t, path, store.Options{})
	countLockFree(t, ctx, s) // the connection is open, its cache warm
	r := spillWithinRead(t, ctx, s, w, path, rows, true)
	if r.phantoms == 0 {
		t.Fatal("the first try saw no spilled row: the test reproduced nothing")
	}
	if r.tries < 2 || r.expired != 0 {
		t.Errorf("kept a read (try %d) that counted %d expired rows, none committed (the first try saw %d)", r.tries, r.expired, r.phantoms)
	}
}

// spillRead is what spillWithinRead saw: the phantom rows of its first
// try, the expired rows of the try kept and how many tries it took, and
// whether the file's time moved over the first try.
type spillRead struct {
	phantoms, expired int64
	tries             int
	timeMoved         bool
}

// spillWithinRead commits (the read's transaction then finds a new change
// counter and takes its pages from the file), then makes a lock-free read
// of the expiries of s's rows, in whose first try w spills an expiry on
// rows of the second half into the file after the first row was read,
// and rolls back once the walk is done; setBack sets the file's time back
// to what it was before the try.
func spillWithinRead(t *testing.T, ctx context.Context, s *store.Store, w *sql.Conn, path string, rows int, setBack bool) spillRead {
	t.Helper()
	execOn(t, w, "UPDATE kv_meta SET seq = seq + 1 WHERE id = 0")
	mtime := modTime(t, path)
	var r spillRead
	_, ok, err := store.ReadLockFree(s, ctx, func(ctx context.Context, conn store.Querier) error {
		r.tries++
		r.expired = 0
		rs, err := conn.QueryContext(ctx, "SELECT expires_at IS NOT NULL FROM kv ORDER BY rowid")
		if err != nil {
			return err
		}
		defer rs.Close()
		for n := 0; rs.Next(); n++ {
			var e bool
			if err := rs.Scan(&e); err != nil {
				return err
			}
			if e {
				r.expired++
			}
			if n == 0 && r.tries == 1 { // the read's transaction has begun
				execOn(t, w, "BEGIN IMMEDIATE")
				execOn(t, w, spillSQL, rows/2)
			}
		}
		if r.tries == 1 {
			execOn(t, w, "ROLLBACK")
			if setBack {
				setModTime(t, path, mtime)
			}
			r.phantoms, r.timeMoved = r.expired, !modTime(t, path).Equal(mtime)
		}
		return rs.Err()
	})
	if err != nil || !ok {
		t.Fatalf("read: ok %v, err %v", ok, err)
	}
	return r
}

// TestLockFreeNoticeWhereBlind: where kvdeck cannot watch the file for
// writes, no read is made without locks (nothing could tell a spill
// rolled back within it), the reads answer with locks, and
// LockFreeNotice says so once asked; on a watched file it is empty.
func TestLockFreeNoticeWhereBlind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	const rows = 200
	storetest.SeedRollbackJournal(t, path, rows)
	ctx := storetest.Ctx(t)
	s := storetest.Open(t, path, store.Options{})
	if n := s.LockFreeNotice(); n != "" {
		t.Fatalf("notice on a watched file: %q", n)
	}
	store.BlindLockFree(s, "its file system (nfs) may not report writes made on another machine")
	n := s.LockFreeNotice()
	for _, want := range []string{path, "nfs", "read lock", "busy timeout"} {
		if !strings.Contains(n, want) {
			t.Errorf("notice %q does not say %q", n, want)
		}
	}
	if _, ok, err := store.ReadLockFree(s, ctx, func(ctx context.Context, conn store.Querier) error {
		t.Error("a read ran without locks")
		return nil
	}); ok || err != nil {
		t.Errorf("lock-free read where blind: ok %v, err %v", ok, err)
	}
	st, err := s.Stats(ctx, 0)
	if err != nil || st.Rows != rows {
		t.Fatalf("stats: %d rows of %d, %v", st.Rows, rows, err)
	}
	if _, err := s.Version(ctx); err != nil {
		t.Fatal(err)
	}
	if lf := s.LockFreeCounts(); lf.Reads != 0 {
		t.Errorf("lock-free reads where blind: %+v", lf)
	}
	wal := filepath.Join(t.TempDir(), "wal.db")
	if n := storetest.Open(t, wal, store.Options{Create: true}).LockFreeNotice(); n != "" {
		t.Errorf("notice on a WAL file: %q", n)
	}
}

// writerConn is a connection of its own to the file at path (busy
// timeout 0, as the reference's service), with the given pragmas.
func writerConn(t *testing.T, path string, pragmas ...string) *sql.Conn {
	t.Helper()
	dsn := "file:" + path + "?_pragma=busy_timeout(0)"
	for _, p := range pragmas {
		dsn += "&_pragma=" + p
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// execOn runs q on conn.
func execOn(t *testing.T, conn *sql.Conn, q string, args ...any) {
	t.Helper()
	if _, err := conn.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// countLockFree counts the expired rows of s in a lock-free read, which
// must be kept, and finds none.
func countLockFree(t *testing.T, ctx context.Context, s *store.Store) {
	t.Helper()
	var n int64
	if _, ok, err := store.ReadLockFree(s, ctx, func(ctx context.Context, conn store.Querier) error {
		return conn.QueryRowContext(ctx, expiredSQL).Scan(&n)
	}); err != nil || !ok || n != 0 {
		t.Fatalf("lock-free count: ok %v, %d expired, %v", ok, n, err)
	}
}

// modTime is the file's modification time.
func modTime(t *testing.T, path string) time.Time {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.ModTime()
}

// setModTime sets the file's times back to mtime.
func setModTime(t *testing.T, path string, mtime time.Time) {
	t.Helper()
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}
