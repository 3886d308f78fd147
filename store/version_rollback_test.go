package store_test

import (
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestVersionRollbackCountsNothing: on a rollback-journal file, where a
// read lock fails a commit of a writer without a busy timeout, Version
// reads seq in a point read and counts no rows (a count of 100k rows held
// the lock for milliseconds after every commit: 10-27 of 180 commits of a
// reference writer at a 25 ms period lost, 0-1 without the count). A
// delete, which moves no stamp, still changes the Version (Mark).
func TestVersionRollbackCountsNothing(t *testing.T) {
	path, s := storetest.RollbackJournalStore(t, 10, store.Options{})
	ctx := storetest.Ctx(t)
	v1, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Rows != -1 || v1.Seq != 10 {
		t.Fatalf("Version %+v on a rollback-journal file: want seq 10 and no count (Rows -1)", v1)
	}
	db := storetest.RawDB(t, path)
	if _, err := db.ExecContext(ctx, "DELETE FROM kv WHERE k = ?", storetest.BulkRaw(3)); err != nil {
		t.Fatal(err)
	}
	v2, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v2 == v1 || v2.Seq != 10 || v2.Rows != -1 {
		t.Fatalf("after a delete: %+v, before %+v: a delete must change the Version", v2, v1)
	}
	if v3, err := s.Version(ctx); err != nil || v3 != v2 {
		t.Fatalf("nothing committed: %+v, %v; want %+v", v3, err, v2)
	}
}
