package store_test

import (
	"path/filepath"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestChangesMark: on a file a page reads a head, no row count; with the
// reader's mark and seq still at the position it stops there, recheck
// and all, until another connection commits (a delete included, which
// issues no stamp).
func TestChangesMark(t *testing.T) {
	url := storetest.File().URL(t)
	s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now, Create: true})
	w := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	ctx := storetest.Ctx(t)
	mustSet(t, w, `["a"]`, `1`, nil)
	mustSet(t, w, `["b"]`, `1`, nil)
	raws := [][]byte{codec.MustEncode(storetest.Key(t, `["a"]`)), codec.MustEncode(storetest.Key(t, `["b"]`))}
	p, err := s.Changes(ctx, store.ChangesOptions{Recheck: raws})
	if err != nil || len(p.Entries) != 2 || len(p.Rechecked) != 2 || p.Mark == 0 || p.Version.Rows != -1 {
		t.Fatalf("first page %+v, %v", p, err)
	}
	read := s.Counters().RowsRead
	idle, err := s.Changes(ctx, store.ChangesOptions{After: p.Next, Mark: p.Mark, Recheck: raws})
	if err != nil || idle.Statements != 1 || idle.Rechecked != nil || idle.Mark != p.Mark {
		t.Errorf("idle page %+v, %v", idle, err)
	}
	if n := s.Counters().RowsRead - read; n != 1 {
		t.Errorf("an idle page read %d rows, want the head's 1", n)
	}
	if err := w.Delete(ctx, storetest.Key(t, `["a"]`)); err != nil {
		t.Fatal(err)
	}
	moved, err := s.Changes(ctx, store.ChangesOptions{After: p.Next, Mark: p.Mark, Recheck: raws})
	if err != nil || moved.Mark == p.Mark || len(moved.Rechecked) != 2 || moved.Rechecked[0] != nil || moved.Rechecked[1] == nil {
		t.Errorf("after a delete: %+v, %v", moved, err)
	}
}

// TestChangesPacedWalk: on a rollback-journal file without an index on
// ver, a page walks ChangesPacedWindows windows and hands back the walk;
// resumed until done, it returns what one unpaced read returns, rows
// stamped meanwhile waiting for the next walk. The index, once added,
// ends a walk under way: the next page reads through it.
func TestChangesPacedWalk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, 50)
	s := storetest.Open(t, path, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	w := storetest.Open(t, path, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	ctx := storetest.Ctx(t)
	store.SetChangesWindow(s, 10)
	// The walk is what remains when a read cannot go without locks.
	store.SetLockFreeOff(s, true)
	// Rewrite rows in place (an upsert keeps the rowid) and add one.
	for _, i := range []int{40, 3, 25} {
		if _, err := w.Atomic().Set(mustDecode(t, storetest.BulkRaw(i)), []byte(`"x"`)).Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	mustSet(t, w, `["new"]`, `1`, nil) // seq 54
	opts := store.ChangesOptions{After: 50}
	var got []store.Entry
	walks := 0
	for ; ; walks++ {
		p, err := s.Changes(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if p.Walk == nil {
			got = p.Entries
			if p.Next != 54 || p.Windows != 6 {
				t.Errorf("the walk ended at %d after %d windows, want 54 and 6", p.Next, p.Windows)
			}
			break
		}
		if len(p.Entries) != 0 || p.Next != 50 || p.Statements != 2 || p.Walk.Windows() != walks+1 {
			t.Fatalf("step %d: %+v", walks, p)
		}
		if walks == 2 {
			mustSet(t, w, `["later"]`, `1`, nil) // seq 55: the next walk's
		}
		opts.Walk = p.Walk
	}
	wantFeed(t, "paced", got, `["bulk", 40n]="x"@51`, `["bulk", 3n]="x"@52`, `["bulk", 25n]="x"@53`, `["new"]=1@54`)
	if walks != 5 {
		t.Errorf("%d steps before the last, want 5 (51 rows in windows of 10, one a page)", walks)
	}

	// A walk under way, then the index: the next page reads through it.
	p, err := s.Changes(ctx, store.ChangesOptions{After: 54})
	if err != nil || p.Walk == nil {
		t.Fatalf("a new walk: %+v, %v", p, err)
	}
	if _, err := w.AddVerIndex(ctx); err != nil {
		t.Fatal(err)
	}
	p, err = s.Changes(ctx, store.ChangesOptions{After: 54, Walk: p.Walk})
	if err != nil || p.Walk != nil || !p.Indexed {
		t.Fatalf("with the index: %+v, %v", p, err)
	}
	wantFeed(t, "indexed", p.Entries, `["later"]=1@55`)
}

func mustDecode(t *testing.T, raw []byte) codec.Key {
	t.Helper()
	k, err := codec.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
