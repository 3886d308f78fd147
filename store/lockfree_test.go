package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestLockFreeTorture: a writer on its own connection (no busy timeout,
// rollback journal: DELETE, TRUNCATE and PERSIST) commits as fast as it
// can, keeping an invariant that spans pages (two balances far apart in
// one table that always sum to 1000, a log that grows by one row a commit
// and a counter equal to the log's length, so that the file grows and
// pages split), while the store reads the invariant
// without locks, validated (lockfree.go). No read may be torn, no commit
// of the writer may fail, and the reads must see commits. The control
// reads the same way without the checks: torn reads there show that the
// test can see one (what it counts is logged; it is not asserted, as the
// race is one of timing).
func TestLockFreeTorture(t *testing.T) {
	for _, mode := range []string{"delete", "truncate", "persist"} {
		t.Run(mode, func(t *testing.T) { lockFreeTorture(t, mode) })
	}
}

func lockFreeTorture(t *testing.T, mode string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, 2000)
	ctx := storetest.Ctx(t)
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)&_pragma=journal_mode("+mode+")&_pragma=synchronous(OFF)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL, pad BLOB)",
		"INSERT INTO acct VALUES (1, 500, zeroblob(3000)), (1000000, 500, zeroblob(3000))",
		"CREATE TABLE tally (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
		"INSERT INTO tally VALUES (0, 0)",
		"CREATE TABLE log (id INTEGER PRIMARY KEY, pad BLOB)",
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s := storetest.Open(t, path, store.Options{})
	const check = "SELECT (SELECT sum(bal) FROM acct), (SELECT count(*) FROM log WHERE length(pad) = 300), (SELECT n FROM tally WHERE id = 0)"
	var commits, lost atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			commits.Add(1)
			if err := tortureCommit(w, i); err != nil {
				lost.Add(1)
				t.Errorf("commit %d: %v", i, err)
			}
			pause := time.Duration(1+i%3) * 300 * time.Microsecond
			if raceOn {
				pause *= 20 // reads are ~10x slower: leave them quiet spells
			}
			time.Sleep(pause)
		}
	}()
	read := func(d time.Duration, read func(context.Context, func(context.Context, store.Querier) error) error) (reads, torn, errs int, seen int64) {
		var last int64
		for end := time.Now().Add(d); time.Now().Before(end); {
			var sum, logs, n int64
			err := read(ctx, func(ctx context.Context, conn store.Querier) error {
				return conn.QueryRowContext(ctx, check).Scan(&sum, &logs, &n)
			})
			reads++
			if err != nil {
				errs++
				continue
			}
			if sum != 1000 || logs != n || n < last {
				torn++
				if torn < 4 {
					t.Logf("torn read: sum %d, log %d, tally %d (after %d)", sum, logs, n, last)
				}
			}
			last = max(last, n)
		}
		return reads, torn, errs, last
	}
	validated := func(ctx context.Context, fn func(context.Context, store.Querier) error) error {
		_, ok, err := store.ReadLockFree(s, ctx, fn)
		if err == nil && !ok {
			return fmt.Errorf("fell back")
		}
		return err
	}
	unvalidated := func(ctx context.Context, fn func(context.Context, store.Querier) error) error {
		return store.ReadNoLockUnvalidated(s, ctx, fn)
	}
	reads, torn, errs, seen := read(1500*time.Millisecond, validated)
	creads, ctorn, cerrs, _ := read(500*time.Millisecond, unvalidated)
	close(stop)
	wg.Wait()
	lf := s.LockFreeCounts()
	t.Logf("%s: writer %d commits, %d lost; validated: %d reads, %d torn, %d errors or fallbacks, saw %d commits (%+v); control without checks: %d reads, %d torn, %d errors",
		mode, commits.Load(), lost.Load(), reads, torn, errs, seen, lf, creads, ctorn, cerrs)
	if torn > 0 {
		t.Errorf("%d of %d validated reads were torn", torn, reads)
	}
	if lost.Load() > 0 {
		t.Errorf("%d of %d commits lost beside lock-free reads", lost.Load(), commits.Load())
	}
	if seen < 10 {
		t.Errorf("the reads saw %d commits", seen)
	}
	// A read that kept meeting commits falls back (the caller then reads
	// with locks); most must not.
	if kept := reads - errs; kept < 20 || errs > reads/2 {
		t.Errorf("%d of %d validated reads kept, %d failed or fell back", kept, reads, errs)
	}
}

// tortureCommit moves an amount between the two balances, adds a row to
// the log and counts it in tally, in one transaction.
func tortureCommit(w *sql.DB, i int) error {
	tx, err := w.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	amt := i%97 - 48
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE acct SET bal = bal - ? WHERE id = 1", []any{amt}},
		{"INSERT INTO log (pad) VALUES (zeroblob(300))", nil},
		{"UPDATE tally SET n = n + 1 WHERE id = 0", nil},
		{"UPDATE acct SET bal = bal + ? WHERE id = 1000000", []any{amt}},
	} {
		if _, err := tx.Exec(q.sql, q.args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// TestLockFreeDiscardedTryKeepsNoPages: a try whose statement ran while a
// commit was being written (page 1, with the new change counter, already
// in the file; the log's pages not yet) is discarded, and the pages it
// read must not answer the next try. SQLite's pager takes the counter of
// a page 1 it reads from the file as the version of everything it caches
// after it (readDbPage copies it into dbFileVers), so that the next
// transaction, finding that counter on disk once the commit is done,
// keeps the cached pages, old ones included. The commit is written by
// hand here, in two steps around the statement of the first try, so that
// the interleaving is certain (TestLockFreeTorture meets it by chance).
func TestLockFreeDiscardedTryKeepsNoPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, 100)
	ctx := storetest.Ctx(t)
	before, after := twoCommitsOneSize(t, path)
	page := int(before[16])<<8 | int(before[17])
	if page == 1 {
		page = 65536
	}
	writeAt(t, path, before, 0) // the file as it was before the commit
	s := storetest.Open(t, path, store.Options{})
	logs, n := warmRead(t, ctx, s)
	want := n + 1
	tries := 0
	_, ok, err := store.ReadLockFree(s, ctx, func(ctx context.Context, conn store.Querier) error {
		tries++
		if tries > 1 {
			return conn.QueryRowContext(ctx, tornCheck).Scan(&logs, &n)
		}
		writeAt(t, path, after[:page], 0) // the commit's page 1 ...
		var old int64
		err := conn.QueryRowContext(ctx, "SELECT count(*) FROM log").Scan(&old)
		writeAt(t, path, after, 0) // ... and the rest of it
		return err
	})
	if err != nil || !ok {
		t.Fatalf("read: ok %v, err %v", ok, err)
	}
	if tries < 2 {
		t.Fatalf("the try that read during the commit was kept")
	}
	if logs != n || n != want {
		t.Errorf("read after the commit: log %d, tally %d (want both %d)", logs, n, want)
	}
}

// twoCommitsOneSize adds a log table and a tally to the file at path and
// commits until one commit (a log row and the tally) leaves the file's
// size alone; it returns the file before and after that commit.
func twoCommitsOneSize(t *testing.T, path string) (before, after []byte) {
	t.Helper()
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(delete)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	for _, q := range []string{
		"CREATE TABLE tally (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
		"INSERT INTO tally VALUES (0, 0)",
		"CREATE TABLE log (id INTEGER PRIMARY KEY, pad BLOB)",
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for range 200 {
		if before, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Exec("BEGIN; INSERT INTO log (pad) VALUES (zeroblob(300)); UPDATE tally SET n = n + 1 WHERE id = 0; COMMIT"); err != nil {
			t.Fatal(err)
		}
		if after, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		if len(before) == len(after) && len(before) > 0 {
			return before, after
		}
	}
	t.Fatal("every commit grew the file")
	return nil, nil
}

// writeAt writes b into the file at path at off (a test writing SQLite's
// file by hand, while no connection holds a lock on it).
func writeAt(t *testing.T, path string, b []byte, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLockFreeVersionBeforeJournal: a try reads data_version, then checks
// the journal (lockfree.go's step 1), so that a commit whose page 1, with
// the new change counter, was read at data_version is either seen under
// way (a hot journal) or wholly written. Here a commit is written by hand
// between those two checks: its journal and page 1 first, its tally's page
// during the try's statement (which then reads the new tally beside the
// old log), the rest after it, the file's time set back after each write
// (as on a file system whose timestamps move once a clock tick). Checked
// the other way round, the journal was cold and data_version, read after
// page 1, did not move again by the end: the torn read was kept.
//
// The journal written by hand has a zero first byte: SQLite's own test
// for a hot journal at a transaction's start reads that byte only, and
// takes it as cold, as it does a writer's journal written just after that
// test and before the transaction reads the counter (a window too short
// to meet on purpose); kvdeck's check reads the whole header.
func TestLockFreeVersionBeforeJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, 100)
	ctx := storetest.Ctx(t)
	before, after := twoCommitsOneSize(t, path)
	size := int(before[16])<<8 | int(before[17])
	if size == 1 {
		size = 65536
	}
	tallyPage := rootPage(t, path, "tally")
	writeAt(t, path, before, 0)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mtime := st.ModTime()
	write := func(b []byte, off int) { // and set the file's time back
		writeAt(t, path, b, int64(off))
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	journal := append(make([]byte, 1), []byte("\xd9\xd5\x05\xf9 \xa1c\xd7")...) // a zero, then SQLite's magic
	s := storetest.Open(t, path, store.Options{})
	logs, n := warmRead(t, ctx, s)
	want := n + 1
	begun, done := false, false
	finish := func() {
		write(after, 0)
		if err := os.Remove(path + "-journal"); err != nil {
			t.Fatal(err)
		}
		done = true
	}
	store.SetLockFreeHook(s, func() {
		switch {
		case !begun: // the commit's journal, then its page 1
			begun = true
			if err := os.WriteFile(path+"-journal", journal, 0o644); err != nil {
				t.Fatal(err)
			}
			write(after[:size], 0)
		case !done: // the try was discarded before its statement
			finish()
		}
	})
	_, ok, err := store.ReadLockFree(s, ctx, func(ctx context.Context, conn store.Querier) error {
		if done {
			return conn.QueryRowContext(ctx, tornCheck).Scan(&logs, &n)
		}
		off := (tallyPage - 1) * size
		write(after[off:off+size], off) // the tally's page, during the statement
		err := conn.QueryRowContext(ctx, tornCheck).Scan(&logs, &n)
		finish()
		return err
	})
	if err != nil || !ok || !done {
		t.Fatalf("read: ok %v, err %v, commit written %v", ok, err, done)
	}
	if logs != n || n != want {
		t.Errorf("read kept: log %d, tally %d (want both %d): a torn read", logs, n, want)
	}
}

// rootPage is the root page of table name in the database at path.
func rootPage(t *testing.T, path, name string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var page int
	if err := db.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = ?", name).Scan(&page); err != nil {
		t.Fatal(err)
	}
	return page
}

// tornCheck reads the log's rows and the tally that counts them: equal in
// every committed state of the file.
const tornCheck = "SELECT (SELECT count(*) FROM log), (SELECT n FROM tally WHERE id = 0)"

// warmRead makes one lock-free read of s (its cache then holds the file)
// and returns the log's count and the tally, which must agree.
func warmRead(t *testing.T, ctx context.Context, s *store.Store) (logs, n int64) {
	t.Helper()
	if _, ok, err := store.ReadLockFree(s, ctx, func(ctx context.Context, conn store.Querier) error {
		return conn.QueryRowContext(ctx, tornCheck).Scan(&logs, &n)
	}); err != nil || !ok || logs != n {
		t.Fatalf("warm read: ok %v, err %v, log %d, tally %d", ok, err, logs, n)
	}
	return logs, n
}
