package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// walStore makes a WAL store at dir/name holding ["a"] = 1, closed, so
// that neither -wal nor -shm exists.
func walStore(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	w := storetest.Open(t, "file:"+path, store.Options{})
	mustSet(t, w, `["a"]`, `1`, nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := storetest.DirNames(t, dir); !slices.Equal(got, []string{name}) {
		t.Fatalf("after the only writer closed the directory holds %v", got)
	}
	return path
}

// TestReadOnlyWALLeavesNoFiles: every read of a read-only store on a WAL
// file nobody has open leaves the directory as it was (no -wal, no -shm)
// and the file byte for byte the same. Before the fix SQLite's -wal and
// -shm stayed behind.
func TestReadOnlyWALLeavesNoFiles(t *testing.T) {
	dir := t.TempDir()
	path := walStore(t, dir, "ro.db")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := storetest.Ctx(t)
	s, err := store.Open(ctx, "file:"+path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if e, found, err := s.Get(ctx, storetest.Key(t, `["a"]`)); err != nil || !found || string(e.Value) != "1" {
		t.Fatalf("get: %s %v %v", e.Value, found, err)
	}
	if _, err := s.List(ctx, store.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stats(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Version(ctx); err != nil {
		t.Fatal(err)
	}
	if got := storetest.DirNames(t, dir); !slices.Equal(got, []string{"ro.db"}) {
		t.Fatalf("while the read-only store is open the directory holds %v", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := storetest.DirNames(t, dir); !slices.Equal(got, []string{"ro.db"}) || len(s.LeftFiles()) != 0 {
		t.Fatalf("after close the directory holds %v (LeftFiles %v)", got, s.LeftFiles())
	}
	if after, _ := os.ReadFile(path); !slices.Equal(before, after) {
		t.Fatal("a read-only store changed the database file")
	}
}

// TestReadOnlyWALFollowsAWriter: a writer (here in the same process) that
// opens the file after the read-only store is read: the store's next read
// sees the writer's commit (which is still in the -wal), the writer keeps
// working, and the -wal and -shm, which no longer leave with the writer,
// are named by LeftFiles after close.
func TestReadOnlyWALFollowsAWriter(t *testing.T) {
	dir := t.TempDir()
	path := walStore(t, dir, "follow.db")
	ctx := storetest.Ctx(t)
	ro, err := store.Open(ctx, "file:"+path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	k := storetest.Key(t, `["a"]`)
	if e, _, err := ro.Get(ctx, k); err != nil || string(e.Value) != "1" {
		t.Fatalf("get before the writer: %s %v", e.Value, err)
	}
	w, err := store.Open(ctx, "file:"+path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustSet(t, w, `["a"]`, `2`, nil)
	for i := 0; i < 3; i++ {
		if e, _, err := ro.Get(ctx, k); err != nil || string(e.Value) != "2" {
			t.Fatalf("get %d after the writer's commit: %s %v, want 2", i, e.Value, err)
		}
		mustSet(t, w, `["b"]`, `3`, nil)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if e, _, err := ro.Get(ctx, storetest.Key(t, `["b"]`)); err != nil || string(e.Value) != "3" {
		t.Fatalf("get after the writer closed: %s %v", e.Value, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{path + "-wal", path + "-shm"}
	if got := ro.LeftFiles(); !slices.Equal(got, want) {
		t.Fatalf("LeftFiles = %v, want %v", got, want)
	}
}

// TestReadOnlyWALBesideLiveWriter: with a writer holding the WAL open,
// a read-only store reads its commits ordinarily and creates nothing;
// LeftFiles is empty (the files were there).
func TestReadOnlyWALBesideLiveWriter(t *testing.T) {
	dir := t.TempDir()
	path := walStore(t, dir, "live.db")
	ctx := storetest.Ctx(t)
	w := storetest.Open(t, "file:"+path, store.Options{})
	mustSet(t, w, `["live"]`, `"yes"`, nil)
	before := storetest.DirNames(t, dir)
	ro, err := store.Open(ctx, "file:"+path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if e, _, err := ro.Get(ctx, storetest.Key(t, `["live"]`)); err != nil || string(e.Value) != `"yes"` {
		t.Fatalf("get: %s %v", e.Value, err)
	}
	ro.Close()
	if got := storetest.DirNames(t, dir); !slices.Equal(got, before) || len(ro.LeftFiles()) != 0 {
		t.Fatalf("directory %v (want %v), LeftFiles %v", got, before, ro.LeftFiles())
	}
}

// TestReadOnlyWALTornRead: a statement on the immutable file during which
// the file changed (a writer's checkpoint writes into it) is refused with
// ErrLocked instead of trusted.
func TestReadOnlyWALTornRead(t *testing.T) {
	path := walStore(t, t.TempDir(), "torn.db")
	ctx := storetest.Ctx(t)
	ro, err := store.Open(ctx, "file:"+path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	err = store.QueryKeysAround(ctx, ro, func() {
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
	})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("a read during which the file changed: %v, want ErrLocked", err)
	}
	// The next statement moves to an ordinary read-only connection.
	if e, _, err := ro.Get(ctx, storetest.Key(t, `["a"]`)); err != nil || string(e.Value) != "1" {
		t.Fatalf("get after: %s %v", e.Value, err)
	}
}
