package storetest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"kvdeck/store"
)

// NewRollbackJournal seeds a file kv.db in a new temporary directory
// (SeedRollbackJournal, rows rows) and returns its path.
func NewRollbackJournal(t testing.TB, rows int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kv.db")
	SeedRollbackJournal(t, path, rows)
	return path
}

// NewHotJournal is NewRollbackJournal with WriteHotJournal.
func NewHotJournal(t testing.TB, rows int) string {
	t.Helper()
	path := NewRollbackJournal(t, rows)
	WriteHotJournal(t, path)
	return path
}

// WriteHotJournal puts a journal beside the file at path that kvdeck
// always takes as hot (a zero, then SQLite's journal magic): the file can
// then be read only with SQLite's locks.
func WriteHotJournal(t testing.TB, path string) {
	t.Helper()
	if err := os.WriteFile(path+"-journal", []byte("\x00\xd9\xd5\x05\xf9 \xa1c\xd7"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// RollbackJournalStore opens a NewRollbackJournal file with opts; it
// returns the file's path and the store (closed by the test's cleanup).
func RollbackJournalStore(t testing.TB, rows int, opts store.Options) (string, *store.Store) {
	t.Helper()
	path := NewRollbackJournal(t, rows)
	return path, Open(t, path, opts)
}

// EachVerIndex runs f as two subtests, "indexed" and "unindexed", each on
// a new RollbackJournalStore opened with opts; in the first the store has
// kvdeck's index on ver.
func EachVerIndex(t *testing.T, rows int, opts store.Options, f func(t *testing.T, path string, s *store.Store)) {
	t.Helper()
	for _, indexed := range []bool{true, false} {
		t.Run(map[bool]string{true: "indexed", false: "unindexed"}[indexed], func(t *testing.T) {
			path, s := RollbackJournalStore(t, rows, opts)
			if indexed {
				if _, err := s.AddVerIndex(Ctx(t)); err != nil {
					t.Fatal(err)
				}
			}
			f(t, path, s)
		})
	}
}

// BesideRefWriter runs a RefWriter on path (a commit of RefMix(rows)
// every 50 ms) for eight seconds, calling read once a second, and returns
// the writer's commits and how many were lost. No commit may be lost: the
// reads of the change feed and of Version go without locks on a
// rollback-journal file
// (store/lockfree.go); before, with the index or without it (paced),
// 1-2% were. A commit lost otherwise than to SQLITE_BUSY ends the test;
// one lost to it is an error of the reader, named by who ("the feed").
func BesideRefWriter(t *testing.T, path string, rows int, who string, read func()) (commits, lost int) {
	t.Helper()
	w := StartRefWriter(t, path, 50*time.Millisecond, RefMix(rows))
	for end := time.Now().Add(8 * time.Second); time.Now().Before(end); {
		time.Sleep(time.Second)
		read()
	}
	commits, failed := w.Stop()
	t.Logf("writer beside %s: %d commits, %d lost", who, commits, len(failed))
	if !Busy(failed) {
		t.Fatalf("the writer failed otherwise: %q", failed)
	}
	if len(failed) > 0 {
		t.Errorf("%d of %d commits lost beside %s: %q", len(failed), commits, who, failed)
	}
	return commits, len(failed)
}
