package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"kvdeck/store"
	"kvdeck/store/coord"
)

// ServiceStore is the store SeedServiceStore builds: a live service's
// file as kvdeck meets it (rollback journal, hundreds of thousands of
// rows, expired rows not swept yet, coordination records).
type ServiceStore struct {
	// Path is the file.
	Path string
	// Rows is every row; Bulk the rows under ["bulk", i] (i from 1, the
	// rows RefMix rewrites and deletes); Expired the rows under
	// ["t1", i], expired a day before the seed; Expiring the rows under
	// ["t2", i], expiring within the two hours after it.
	Rows, Bulk, Expired, Expiring int
}

// The service store's size: 350,000 rows, as the user who filed the
// never-cost-a-commit report had, 50,011 of them expired.
const (
	serviceBulk     = 290_000
	serviceExpired  = 50_011
	serviceExpiring = 9_989
)

// SeedServiceStore creates at path a store shaped as a live service's
// (the reference leaves a file it creates in rollback-journal mode):
// 290,000 rows under ["bulk", i] (SeedRollbackJournal's), 50,011 under
// ["t1", i] expired a day before now, 9,989 under ["t2", i] expiring
// within two hours of now, and a few of each coordination record
// (leases, alarms, queue messages, the mode marker), written through
// store/coord. now is the real clock's epoch milliseconds.
func SeedServiceStore(t testing.TB, path string, now int64) ServiceStore {
	t.Helper()
	SeedRollbackJournal(t, path, serviceBulk)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// ["t1", i] and ["t2", i]: the string part and a bigint i, encoded
	// as codec does (0x02 "t1" 0x00, 0x04 and eight bytes with the sign
	// bit flipped).
	for _, q := range []string{
		fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) `+
			`INSERT INTO kv SELECT CAST(x'0274310004' || unhex(printf('8%%015x', i)) AS BLOB), '{"job":' || i || ',"state":"done"}', %d + i, %d + i FROM c`,
			serviceExpired, serviceBulk, now-24*time.Hour.Milliseconds()),
		fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) `+
			`INSERT INTO kv SELECT CAST(x'0274320004' || unhex(printf('8%%015x', i)) AS BLOB), '{"session":' || i || '}', %d + i, %d + (i * 719) %% 7200000 FROM c`,
			serviceExpiring, serviceBulk+serviceExpired, now+60_000),
		fmt.Sprintf(`UPDATE kv_meta SET seq = %d`, serviceBulk+serviceExpired+serviceExpiring),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	coordRows := seedCoordination(t, path, now)
	return ServiceStore{Path: path, Rows: serviceBulk + serviceExpired + serviceExpiring + coordRows,
		Bulk: serviceBulk, Expired: serviceExpired, Expiring: serviceExpiring}
}

// seedCoordination writes a few records of each coordination library
// into the store at path (its journal mode kept) and returns how many
// rows they are.
func seedCoordination(t testing.TB, path string, now int64) int {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, "file:"+path, store.Options{Clock: func() int64 { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 12 {
		ttl := time.Duration(5+i*10) * time.Second
		if _, err := coord.Acquire(ctx, s, "worker", fmt.Sprintf("%032x", i), coord.LeaseOptions{TTL: ttl}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		// Some due up to an hour ago (overdue), the rest within the hour.
		at := now - time.Hour.Milliseconds() + int64(i)*6*time.Minute.Milliseconds()
		if err := coord.SetAlarm(ctx, s, []string{"billing", "reminder"}[i%2], fmt.Sprintf("%032x", i), at); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		delay := time.Duration(i%3) * time.Minute
		if _, err := coord.Send(ctx, s, []string{"emails", "thumbnails"}[i%2], []byte(fmt.Sprintf(`{"n":%d}`, i)), delay); err != nil {
			t.Fatal(err)
		}
	}
	if err := coord.SetMode(ctx, s, "central"); err != nil {
		t.Fatal(err)
	}
	raw := RawDB(t, "file:"+path)
	var mode string
	if err := raw.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "delete" {
		t.Fatalf("journal mode %q after the coordination records, %v", mode, err)
	}
	var rows int
	if err := raw.QueryRow("SELECT count(*) FROM kv").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	return rows - serviceBulk - serviceExpired - serviceExpiring
}

// CopyFile copies the database file at from to a new file named name in
// a directory of the test's own, and returns its path. The file must
// have no hot journal (nothing writing it).
func CopyFile(t testing.TB, from, name string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), name)
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return to
}

// Surface is one way kvdeck reads a store, as a user leaves it running
// beside a live service: a command run again and again, a screen left
// open and used.
type Surface struct {
	// Name says what runs: `list ["t1"]` (a loop), `Browse: expand`.
	Name string
	// Setup, when not nil, prepares the copy at path before the writer
	// starts (a journal entry for `undo --list`, a saved store).
	Setup func(t *testing.T, path string)
	// Run reads the store at path until ctx ends; an error fails the
	// surface (a read that went wrong is no pass). It counts in
	// lockedNotes the times kvdeck said it read the file with SQLite's
	// locks (store.Options.OnLockedRead).
	Run func(ctx context.Context, t *testing.T, path string, lockedNotes *int) error
}

// Beside is what a surface cost the service: the commits the writer
// tried while it ran and the ones it lost.
type Beside struct {
	Name          string
	Commits, Lost int
	// FirstLost is the error of the first lost commit.
	FirstLost string
	// LockedNotes counts the times kvdeck said it read with locks.
	LockedNotes int
	Err         error
	Took        time.Duration
}

// MatrixPeriod is how often the matrix's writer commits: a busy service.
// A surface runs until the writer tried matrixCommits commits, its time
// at least (MatrixTime).
const (
	MatrixPeriod  = 10 * time.Millisecond
	matrixCommits = 200
)

// LockMatrix seeds the service store (SeedServiceStore, at the real
// clock) and runs each surface on its own copy of it for MatrixTime,
// beside a reference-shaped writer committing every MatrixPeriod (no busy
// timeout: a commit that meets a lock is lost), one surface after
// another, each in a subtest of its own name; a surface whose writer lost
// a commit fails. It logs the table of every surface's figures and
// returns them.
func LockMatrix(t *testing.T, surfaces []Surface) []Beside {
	t.Helper()
	seed := SeedServiceStore(t, filepath.Join(t.TempDir(), "seed.db"), time.Now().UnixMilli())
	d := MatrixTime()
	var out []Beside
	for _, sf := range surfaces {
		t.Run(sf.Name, func(t *testing.T) {
			b := runOne(t, seed, d, sf)
			out = append(out, b)
			t.Logf("%s: %d of %d commits lost (%s); locked reads said %d times", sf.Name, b.Lost, b.Commits, b.Took.Round(time.Millisecond), b.LockedNotes)
			switch {
			case b.Err != nil:
				t.Errorf("the surface failed: %v", b.Err)
			case b.Lost > 0:
				t.Errorf("%d of %d commits lost beside %s: %s", b.Lost, b.Commits, sf.Name, b.FirstLost)
			case b.Commits < matrixCommits/4:
				// A machine this busy tests nothing: the writer must have
				// committed while the surface read.
				t.Errorf("the writer tried only %d commits in %s", b.Commits, b.Took.Round(time.Millisecond))
			}
		})
	}
	t.Log("\n" + MatrixTable(out))
	return out
}

// runOne runs one surface beside the writer on a fresh copy of seed.
func runOne(t *testing.T, seed ServiceStore, d time.Duration, sf Surface) Beside {
	t.Helper()
	path := CopyFile(t, seed.Path, "kv.db")
	if sf.Setup != nil {
		sf.Setup(t, path)
	}
	w := StartRefWriter(t, path, MatrixPeriod, RefMix(seed.Bulk))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// d, and as long again as a busy machine keeps the writer from
		// its matrixCommits (up to 4 d): a surface is tried beside as
		// many commits however loaded the machine.
		start := time.Now()
		for time.Since(start) < d || w.Commits() < matrixCommits && time.Since(start) < 4*d {
			select {
			case <-ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
		cancel()
	}()
	t0 := time.Now()
	notes := 0
	err := sf.Run(ctx, t, path, &notes)
	took := time.Since(t0)
	commits, lost := w.Stop()
	b := Beside{Name: sf.Name, Commits: commits, Lost: len(lost), Err: err, Took: took, LockedNotes: notes}
	if len(lost) > 0 {
		b.FirstLost = lost[0]
		if !Busy(lost) {
			b.Err = fmt.Errorf("the writer failed otherwise than on a lock: %s", lost[0])
		}
	}
	return b
}

// MatrixTable is the figures as a table, a line per surface.
func MatrixTable(rows []Beside) string {
	rows = append([]Beside(nil), rows...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Lost > rows[j].Lost })
	w := len("surface")
	for _, r := range rows {
		w = max(w, len(r.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %-14s  %s\n", w, "surface", "lost / commits", "locked reads said")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s  %-14s  %d\n", w, r.Name, fmt.Sprintf("%d / %d", r.Lost, r.Commits), r.LockedNotes)
	}
	return b.String()
}

// MatrixTime is how long each surface of a lock matrix runs at least: 4
// s, or KVDECK_MATRIX_SECONDS (a longer run to measure); longer, up to
// four times that, while the writer has not tried matrixCommits commits.
func MatrixTime() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("KVDECK_MATRIX_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 4 * time.Second
}
