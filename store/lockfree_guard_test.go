package store_test

import (
	"context"
	"database/sql"
	"errors"
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
	ctx, w, s := spillStore(t, path)
	r := spillWithinRead(t, ctx, s, w, path, spillRows, true)
	if r.phantoms == 0 {
		t.Fatal("the first try saw no spilled row: the test reproduced nothing")
	}
	if r.tries < 2 || r.expired != 0 {
		t.Errorf("kept a read (try %d) that counted %d expired rows, none committed (the first try saw %d)", r.tries, r.expired, r.phantoms)
	}
}

// spillRows is the rows of spillStore's file.
const spillRows = 3000

// spillStore seeds spillRows rows in a rollback-journal file at path and
// returns a writer whose transactions spill into the file (cache_size=1)
// and a store whose lock-free connection is open, its cache warm.
func spillStore(t *testing.T, path string) (context.Context, *sql.Conn, *store.Store) {
	t.Helper()
	storetest.SeedRollbackJournal(t, path, spillRows)
	ctx := storetest.Ctx(t)
	w := writerConn(t, path, "cache_size(1)")
	s := storetest.Open(t, path, store.Options{})
	countLockFree(t, ctx, s)
	return ctx, w, s
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

// TestLockFreeReadersShareTheWatch: two lock-free reads on the store's
// two connections share its watch of the file. A writer spills pages
// into the file within the first read and rolls back (its time set
// back, as TestLockFreeSpillRolledBackWithinARead), and the second read,
// made meanwhile, takes the writes' events from the queue as it starts
// its kept try. The first read must still see that writes came and be
// tried again. Before the watch counted the events read, the second
// read's drain swallowed them and the first was kept with rows the
// writer never committed.
func TestLockFreeReadersShareTheWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	ctx, w, s := spillStore(t, path)
	execOn(t, w, "UPDATE kv_meta SET seq = seq + 1 WHERE id = 0") // the read's pages come from the file
	mtime := modTime(t, path)
	var tries int
	var expired, phantoms int64
	_, ok, err := store.ReadLockFree(s, ctx, func(ctx context.Context, conn store.Querier) error {
		tries++
		var err error
		if expired, err = walkExpiries(ctx, conn, func() {
			if tries == 1 { // the read's transaction has begun
				execOn(t, w, "BEGIN IMMEDIATE")
				execOn(t, w, spillSQL, spillRows/2)
			}
		}); err != nil || tries > 1 {
			return err
		}
		other := make(chan error, 1)
		go func() {
			_, err := store.ReadLockFreeLane(s, ctx, 1, func(ctx context.Context, conn store.Querier) error {
				_, err := walkExpiries(ctx, conn, func() {})
				return err
			})
			other <- err
		}()
		execOn(t, w, "ROLLBACK")
		setModTime(t, path, mtime)
		phantoms = expired
		return <-other // its kept try began after the rollback
	})
	if err != nil || !ok {
		t.Fatalf("read: ok %v, err %v", ok, err)
	}
	if phantoms == 0 {
		t.Fatal("the first try saw no spilled row: the test reproduced nothing")
	}
	if tries < 2 || expired != 0 {
		t.Errorf("kept a read (try %d) that counted %d expired rows, none committed (the first try saw %d)", tries, expired, phantoms)
	}
}

// walkExpiries counts the rows with an expiry in a walk of the table in
// rowid order, calling first after its first row.
func walkExpiries(ctx context.Context, conn store.Querier, first func()) (int64, error) {
	rs, err := conn.QueryContext(ctx, "SELECT expires_at IS NOT NULL FROM kv ORDER BY rowid")
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	var n int64
	for i := 0; rs.Next(); i++ {
		var e bool
		if err := rs.Scan(&e); err != nil {
			return n, err
		}
		if e {
			n++
		}
		if i == 0 {
			first()
		}
	}
	return n, rs.Err()
}

// TestLockFreeHotJournalAtStatementStart: a lock-free read whose
// statement begins while SQLite takes the journal for hot gets
// SQLITE_READONLY_ROLLBACK (776): a read-only connection may not roll a
// journal back. Beside a live writer that is a race: SQLite finds the
// journal, finds no writer's lock, and assumes it hot when it can no
// longer open it (the writer deleted it as its transaction ended). Here
// a hot journal (a stopped writer's, the file left as it was) appears as
// the try's statement begins and is gone before the try ends: journal,
// data_version, the file and its watch are then as they were, and the
// try must be made again, not kept with the error. Before, it was kept,
// and stats said "store is read-only ... file permissions".
func TestLockFreeHotJournalAtStatementStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	const rows = 3000
	storetest.SeedRollbackJournal(t, path, rows)
	ctx := storetest.Ctx(t)
	_, journal := stoppedWriter(t, path, rows) // the file is as before it
	s := storetest.Open(t, path, store.Options{})
	countLockFree(t, ctx, s)
	tries := 0
	var n int64
	_, ok, err := store.ReadLockFree(s, ctx, func(ctx context.Context, conn store.Querier) error {
		tries++
		if tries == 1 {
			if err := os.WriteFile(path+"-journal", journal, 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(path + "-journal")
		}
		return conn.QueryRowContext(ctx, "SELECT count(*) FROM kv WHERE expires_at IS NULL").Scan(&n)
	})
	if err != nil || !ok || n != rows {
		t.Fatalf("read (try %d): ok %v, %d rows without expiry of %d, err %v", tries, ok, n, rows, err)
	}
	if tries < 2 {
		t.Errorf("the try that met the hot journal was kept")
	}
}

// TestReadOnlyHotJournal: a read-only store (locks taken, mode=ro) finds
// a hot journal that a writer left, which it may not roll back (776).
// While it lasts, reads are tried again, up to the busy timeout: once a
// connection that may write rolls the journal back, the read answers the
// committed rows. A journal that stays gives ErrLocked, naming the hot
// journal, never file permissions. Before: at once "store is read-only:
// the database file refused a write (file permissions or mode=ro)".
func TestReadOnlyHotJournal(t *testing.T) {
	const rows = 3000
	for _, rescued := range []bool{true, false} {
		t.Run(map[bool]string{true: "rolled-back", false: "stays"}[rescued], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kv.db")
			storetest.SeedRollbackJournal(t, path, rows)
			ctx := storetest.Ctx(t)
			db, journal := stoppedWriter(t, path, rows)
			busy := 5 * time.Second
			if !rescued {
				busy = 300 * time.Millisecond
			}
			s := storetest.Open(t, path, store.Options{ReadOnly: true, BusyTimeout: busy})
			store.SetLockFreeOff(s, true) // the locked read alone
			writeAt(t, path, db, 0)
			if err := os.WriteFile(path+"-journal", journal, 0o644); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			if rescued {
				raw := storetest.RawDB(t, path)
				go func() {
					time.Sleep(100 * time.Millisecond)
					var n int64
					done <- raw.QueryRowContext(ctx, "SELECT count(*) FROM kv").Scan(&n)
				}()
			}
			st, err := s.Stats(ctx, 0)
			if rescued {
				if rerr := <-done; rerr != nil {
					t.Fatalf("the rescuing connection: %v", rerr)
				}
				if err != nil || st.Rows != rows || st.Expired != 0 {
					t.Fatalf("stats: %d rows, %d expired, %v (want %d rows, none expired)", st.Rows, st.Expired, err, rows)
				}
				return
			}
			if !errors.Is(err, store.ErrLocked) || errors.Is(err, store.ErrReadOnly) ||
				strings.Contains(err.Error(), "permission") || strings.Contains(err.Error(), "readonly database") || !strings.Contains(err.Error(), "hot") {
				t.Fatalf("stats beside a journal left hot: %v (want ErrLocked naming the hot journal, no permissions)", err)
			}
			t.Log(err)
		})
	}
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
	opened := s.LockFreeCounts() // the open's schema check, before
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
	if lf := s.LockFreeCounts(); lf.Reads != opened.Reads {
		t.Errorf("lock-free reads where blind: %+v (%+v at open)", lf, opened)
	}
	// The reads with locks were said, once, with why.
	if note := s.LockedReadNote(); !strings.Contains(note, "nfs") || !strings.Contains(note, "watch for writes") {
		t.Errorf("the store said %q before its reads with locks", note)
	}
	wal := filepath.Join(t.TempDir(), "wal.db")
	if n := storetest.Open(t, wal, store.Options{Create: true}).LockFreeNotice(); n != "" {
		t.Errorf("notice on a WAL file: %q", n)
	}
}

// stoppedWriter leaves the store at path as a writer stopped in the
// middle of a transaction leaves it: pages spilled into the file and the
// hot journal that holds them as they were (taken while the writer held
// its lock, then rolled back). It returns the file and the journal.
func stoppedWriter(t *testing.T, path string, rows int) (db, journal []byte) {
	t.Helper()
	w := writerConn(t, path, "cache_size(1)")
	execOn(t, w, "BEGIN IMMEDIATE")
	execOn(t, w, spillSQL, rows/2)
	var err error
	if db, err = os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if journal, err = os.ReadFile(path + "-journal"); err != nil {
		t.Fatal(err)
	}
	execOn(t, w, "ROLLBACK")
	if journal[0] == 0 {
		t.Fatal("the writer's journal is not hot: nothing spilled")
	}
	return db, journal
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
