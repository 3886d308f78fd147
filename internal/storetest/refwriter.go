package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// RefOp is one commit of a RefWriter: the raw keys it sets (to Value)
// and deletes.
type RefOp struct {
	Set, Delete [][]byte
	Value       string
}

// RefWriter is a neighbour shaped like the reference's service on an
// embedded file (../shared/spec/reference-store.md §8): a connection of
// its own (modernc.org/sqlite, busy_timeout 0, the file's journal mode
// left as it is), committing on a fixed period in the reference's
// statement shape (BEGIN IMMEDIATE; UPDATE kv_meta ... RETURNING ok, seq;
// an upsert or delete per mutation; COMMIT). A commit that meets a lock
// fails at once, as the service's would: it counts as lost.
type RefWriter struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	commits int
	lost    []string // the error of every lost commit
	spent   time.Duration
}

// StartRefWriter starts a RefWriter on the file at path, committing next(i)
// every period until Stop.
func StartRefWriter(t testing.TB, path string, period time.Duration, next func(i int) RefOp) *RefWriter {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	w := &RefWriter{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	t.Cleanup(func() { w.Stop(); db.Close() })
	go w.run(period, next)
	return w
}

func (w *RefWriter) run(period time.Duration, next func(i int) RefOp) {
	defer close(w.done)
	tick := time.NewTicker(period)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
		t0 := time.Now()
		err := w.commit(next(i))
		w.mu.Lock()
		w.commits++
		w.spent += time.Since(t0)
		if err != nil {
			w.lost = append(w.lost, fmt.Sprintf("commit %d: %v", i, err))
		}
		w.mu.Unlock()
	}
}

// commit runs one commit the reference's way (RefCommit).
func (w *RefWriter) commit(op RefOp) error { return RefCommit(w.db, op) }

// RefCommit runs one commit of op on db the reference's way: BEGIN
// IMMEDIATE, the statements, COMMIT; on an error, ROLLBACK. A test that
// must see the store between commits (a dump after each) drives it
// itself; db is opened as StartRefWriter opens its own.
func RefCommit(db *sql.DB, op RefOp) (err error) {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	bump := "0"
	if len(op.Set) > 0 {
		bump = "1"
	}
	var ok, seq int64
	if err := conn.QueryRowContext(ctx, "UPDATE kv_meta SET seq = seq + "+bump+", ok = 1 WHERE id = 0 RETURNING ok, seq").Scan(&ok, &seq); err != nil {
		return err
	}
	for _, k := range op.Set {
		if _, err := conn.ExecContext(ctx, "INSERT INTO kv (k, v, ver, expires_at) SELECT ?, ?, seq, ? FROM kv_meta WHERE id = 0 AND ok = 1 "+
			"ON CONFLICT (k) DO UPDATE SET v = excluded.v, ver = excluded.ver, expires_at = excluded.expires_at", k, op.Value, nil); err != nil {
			return err
		}
	}
	for _, k := range op.Delete {
		if _, err := conn.ExecContext(ctx, "DELETE FROM kv WHERE k = ? AND (SELECT ok FROM kv_meta WHERE id = 0) = 1", k); err != nil {
			return err
		}
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return err
}

// Stop ends the writer (once; later calls return the same figures):
// the commits tried and the errors of the lost ones.
func (w *RefWriter) Stop() (commits int, lost []string) {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.commits, append([]string(nil), w.lost...)
}

// Commits is how many commits the writer has tried so far.
func (w *RefWriter) Commits() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.commits
}

// Close is Stop, and closes the writer's connection: in WAL mode an
// idle connection holds a shared lock on the file until it is closed.
func (w *RefWriter) Close() (commits int, lost []string) {
	commits, lost = w.Stop()
	w.db.Close()
	return commits, lost
}

// Busy reports whether every lost commit was lost to a lock (SQLITE_BUSY):
// any other error is the test's own fault.
func Busy(lost []string) bool {
	for _, l := range lost {
		if !strings.Contains(l, "SQLITE_BUSY") && !strings.Contains(l, "database is locked") {
			return false
		}
	}
	return true
}

// SeedRollbackJournal creates a store at path in rollback-journal mode
// (journal_mode=DELETE, as the reference leaves a file it creates) with
// rows rows under ["bulk", i] (values of about 60 bytes, stamps 1..rows)
// and seq = rows, written in one statement.
func SeedRollbackJournal(t testing.TB, path string, rows int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`PRAGMA journal_mode = DELETE`,
		`CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER)`,
		`CREATE TABLE IF NOT EXISTS kv_meta (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, ok INTEGER NOT NULL)`,
		`INSERT OR IGNORE INTO kv_meta (id, seq, ok) VALUES (0, 0, 0)`,
		fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) `+
			`INSERT INTO kv SELECT CAST(x'0262756c6b0004' || unhex(printf('8%%015x', i)) AS BLOB), '{"holder":"' || hex(randomblob(16)) || '","n":' || i || '}', i, NULL FROM c`, rows),
		fmt.Sprintf(`UPDATE kv_meta SET seq = %d`, rows),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var blobs int
	if err := db.QueryRow("SELECT count(*) FROM kv WHERE typeof(k) = 'blob'").Scan(&blobs); err != nil || blobs != rows {
		t.Fatalf("%d blob keys of %d, %v", blobs, rows, err)
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "delete" {
		t.Fatalf("journal mode %q, %v", mode, err)
	}
}

// JournalMode is the journal mode ("delete", "wal", ...) a new
// connection of another program finds in the file at path.
func JournalMode(t testing.TB, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	return mode
}

// BulkRaw is the raw key of row i of SeedRollbackJournal: ["bulk", i] with
// i a bigint.
func BulkRaw(i int) []byte {
	return append([]byte{0x02, 'b', 'u', 'l', 'k', 0x00, 0x04, 0x80}, byte(i>>48), byte(i>>40), byte(i>>32), byte(i>>24), byte(i>>16), byte(i>>8), byte(i))
}

// RefMix is a service's mix of commits over a store seeded with rows rows
// (SeedRollbackJournal): in turn, a set that rewrites a seeded row in
// place (the upsert keeps its rowid), a set of a new key ["fresh", i],
// and a commit that deletes a seeded row and sets a new one.
func RefMix(rows int) func(i int) RefOp {
	return func(i int) RefOp {
		v := fmt.Sprintf(`{"commit":%d}`, i)
		fresh := append([]byte{0x02, 'f', 'r', 'e', 's', 'h', 0x00, 0x04, 0x80}, byte(i>>48), byte(i>>40), byte(i>>32), byte(i>>24), byte(i>>16), byte(i>>8), byte(i))
		switch i % 3 {
		case 0:
			return RefOp{Set: [][]byte{BulkRaw(1 + (i*7919)%rows)}, Value: v}
		case 1:
			return RefOp{Set: [][]byte{fresh}, Value: v}
		}
		return RefOp{Set: [][]byte{fresh}, Delete: [][]byte{BulkRaw(1 + (i*104729+13)%rows)}, Value: v}
	}
}
