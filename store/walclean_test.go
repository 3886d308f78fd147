package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Lstat(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

// TestReadOnlyCloseKeepsSidecarsInUse: a read-only store that found no
// -wal/-shm removes them at Close only when unused. A writer that opened the
// database meanwhile (here in the same process, whose POSIX locks do not
// conflict with each other) keeps its -wal and -shm, and its commits; once
// everyone has closed, a read-only open and close leaves nothing behind.
func TestReadOnlyCloseKeepsSidecarsInUse(t *testing.T) {
	ctx := storetest.Ctx(t)
	path := filepath.Join(t.TempDir(), "ro.db")
	w, err := store.Open(ctx, "file:"+path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	mustSet(t, w, `["a"]`, `1`, nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if exists(t, path+"-wal") || exists(t, path+"-shm") {
		t.Fatal("a clean close of the only writer left -wal or -shm")
	}

	ro, err := store.Open(ctx, "file:"+path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ro.Get(ctx, storetest.Key(t, `["a"]`)); err != nil {
		t.Fatal(err)
	}
	w, err = store.Open(ctx, "file:"+path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The writer has read (so it holds the WAL index) but not yet written:
	// the -wal is empty, only the lock on the -shm tells it is in use.
	if _, _, err := w.Get(ctx, storetest.Key(t, `["a"]`)); err != nil {
		t.Fatal(err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if !exists(t, path+"-wal") || !exists(t, path+"-shm") {
		t.Fatal("closing the read-only store removed the live writer's -wal or -shm")
	}
	mustSet(t, w, `["b"]`, `2`, nil)
	mustSet(t, w, `["c"]`, `3`, nil)
	ro2, err := store.Open(ctx, "file:"+path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`["b"]`, `["c"]`} {
		_, found, err := ro2.Get(ctx, storetest.Key(t, k))
		if err != nil || !found {
			t.Fatalf("read-only get %s after the writer's commit: found %v, %v", k, found, err)
		}
	}
	ro2.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	ro3, err := store.Open(ctx, "file:"+path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ro3.Get(ctx, storetest.Key(t, `["c"]`)); err != nil {
		t.Fatal(err)
	}
	ro3.Close()
	if exists(t, path+"-wal") || exists(t, path+"-shm") {
		t.Fatal("a read-only open and close of an unused WAL file left -wal or -shm")
	}
}
