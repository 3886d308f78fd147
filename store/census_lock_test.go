package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestCensusBesideReferenceWriter: on a rollback-journal store, a
// reference-shaped writer (no busy timeout) commits every 10 ms (300 ms
// under -race) while stats and sweep's dry run are taken again and again:
// no commit may fail. The census's windows read without SQLite's locks (lockfree.go);
// read with them, each window held the SHARED lock a few ms and the
// writer lost commits that met it.
func TestCensusBesideReferenceWriter(t *testing.T) {
	rows, period := 20_000, 10*time.Millisecond
	if raceOn { // reads are ~35x slower: fewer rows, a calmer writer
		rows, period = 2_000, 300*time.Millisecond
	}
	censusesBesideWriter(t, rows, period, store.CensusOptions{})
}

// TestCensusWindowsShrinkBesideWriter: beside a reference-shaped writer
// whose commits come closer together than one census window takes to read
// (doctor's checked census of 5,000 rows takes ~10 ms here without
// -race, of 1,000 rows ~300 ms with), the lock-free tries of a full window
// fail; the window is then halved and tried again without locks (the
// locked read only at the floor), so that no commit is lost, and the
// counts are exact once the writer stops. Read with locks after its
// failed tries, a window cost the writer commits (before: 2-12 of 43-321
// lost in each of 6 runs).
func TestCensusWindowsShrinkBesideWriter(t *testing.T) {
	rows, period := 20_000, 6*time.Millisecond
	if raceOn {
		rows, period = 1_000, 100*time.Millisecond
	}
	s, path, ctx := censusesBesideWriter(t, rows, period, store.CensusOptions{Check: true})
	var want int64
	if err := storetest.RawDB(t, path).QueryRowContext(ctx, "SELECT count(*) FROM kv").Scan(&want); err != nil {
		t.Fatal(err)
	}
	for _, check := range []bool{false, true} {
		st, err := s.StatsWith(ctx, store.CensusOptions{Check: check})
		if err != nil || st.Rows != want || st.Undecodable+st.InvalidValues+st.Malformed != 0 {
			t.Errorf("census (checks %v) after the writer: %d rows (%d undecodable, %d invalid, %d malformed), a plain count %d; %v",
				check, st.Rows, st.Undecodable, st.InvalidValues, st.Malformed, want, err)
		}
	}
}

// TestCensusWindowsBesideAJournalAlwaysHot: when no window is ever kept
// without locks (a file written without a gap; here a journal that
// kvdeck's check takes as hot and SQLite's does not, its first byte
// zero), the census shrinks its window once, and reads the rest at full
// size as before the windows shrank: a floor window read with locks ends
// the shrinking. Else every one of hundreds of small windows waited out
// all its lock-free tries: 942 locked reads here, 185 s (18 and 2.6 s
// with the rule; 12 before the windows shrank).
func TestCensusWindowsBesideAJournalAlwaysHot(t *testing.T) {
	const rows, censuses = 10_000, 3
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, rows)
	s := storetest.Open(t, path, store.Options{})
	ctx := storetest.CtxTimeout(t, 5*time.Minute)
	opened := s.LockFreeCounts() // the open's schema check
	if err := os.WriteFile(path+"-journal", []byte("\x00\xd9\xd5\x05\xf9 \xa1c\xd7"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range censuses {
		st, err := s.Stats(ctx, 0)
		if err != nil || st.Rows != rows {
			t.Fatalf("stats: %d rows of %d, %v", st.Rows, rows, err)
		}
		res, err := s.Sweep(ctx, store.SweepOptions{DryRun: true})
		if err != nil || res.Swept != 0 {
			t.Fatalf("dry run: %+v, %v", res, err)
		}
	}
	lf := s.LockFreeCounts()
	lf.Reads -= opened.Reads
	lf.Fallbacks -= opened.Fallbacks
	t.Logf("%d censuses and dry runs: lock-free reads %+v", censuses, lf)
	// Per census and per dry run: the floor window, then 2 windows at
	// full size (5,000 rows), and its read of the journal mode.
	if most := 2 * censuses * (rows/5000 + 2); lf.Reads != 0 || lf.Fallbacks > most {
		t.Errorf("lock-free reads %+v: want none kept, and at most %d read with locks", lf, most)
	}
}

// censusesBesideWriter seeds a rollback-journal store of rows rows, runs
// a reference-shaped writer committing every period beside censuses
// (opts) and sweep dry runs (readsBesideWriter), and returns the store,
// its path and a context for more.
func censusesBesideWriter(t *testing.T, rows int, period time.Duration, opts store.CensusOptions) (*store.Store, string, context.Context) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, rows)
	s := storetest.Open(t, path, store.Options{})
	ctx := storetest.CtxTimeout(t, 5*time.Minute)
	readsBesideWriter(t, s, path, rows, period, fmt.Sprintf("census, checks %v", opts.Check), func() error {
		st, err := s.StatsWith(ctx, opts)
		if err != nil {
			return err
		}
		if n := int(st.Rows); n < rows-100 || n > rows+1000 {
			t.Fatalf("stats counted %d rows of about %d", st.Rows, rows)
		}
		_, err = s.Sweep(ctx, store.SweepOptions{DryRun: true})
		return err
	})
	return s, path, ctx
}

// readsBesideWriter runs a reference-shaped writer (storetest.RefMix
// over the rows rows seeded at path) committing every period beside read,
// called again and again for 3 s (3 times at least) on s, and fails when
// read fails, the writer lost a commit, or it met no contention.
func readsBesideWriter(t *testing.T, s *store.Store, path string, rows int, period time.Duration, what string, read func() error) {
	t.Helper()
	w := storetest.StartRefWriter(t, path, period, storetest.RefMix(rows))
	reads := 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end) || reads < 3; reads++ {
		if err := read(); err != nil {
			t.Fatal(err)
		}
	}
	commits, lost := w.Stop()
	lf := s.LockFreeCounts()
	t.Logf("%d reads (%s) beside %d commits, %d lost; lock-free reads %+v", reads, what, commits, len(lost), lf)
	if len(lost) > 0 {
		t.Errorf("%d of %d commits lost beside the %s: %v", len(lost), commits, what, lost[0])
	}
	if commits < 5 || lf.Reads == 0 {
		t.Errorf("%d commits, %+v lock-free reads: the test saw no contention", commits, lf)
	}
}
