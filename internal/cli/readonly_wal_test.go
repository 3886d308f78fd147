package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// dirListing is the sorted names in dir.
func dirListing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// TestReadOnlyWALLeavesDirectory: read-only reads of a WAL store nobody has
// open leave its directory as they found it: no -wal or -shm left behind,
// the database file byte for byte the same (issue 12 point 6).
func TestReadOnlyWALLeavesDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "wal.db")
	c := &cli{t: t, url: "file:" + path, now: storetest.T0}
	c.must("set", `["a"]`, `1`)
	c.must("set", `["b"]`, `"two"`)
	before := dirListing(t, dir)
	if !slices.Equal(before, []string{"wal.db"}) {
		t.Fatalf("after a clean close the directory holds %v, want just wal.db", before)
	}
	sum := fileSum(t, path)
	for _, args := range [][]string{
		{"get", `["a"]`},
		{"list"},
		{"stats"},
		{"dump"},
	} {
		c.must(append([]string{"--read-only"}, args...)...)
		if got := dirListing(t, dir); !slices.Equal(got, before) {
			t.Fatalf("--read-only %v left the directory as %v, want %v", args, got, before)
		}
		if fileSum(t, path) != sum {
			t.Fatalf("--read-only %v changed the database file", args)
		}
	}
}

// TestReadOnlyWALSeesLiveWriter: with a writer holding the WAL open (its
// commits still in the -wal file), read-only reads see the committed data
// and leave the writer's -wal and -shm in place.
func TestReadOnlyWALSeesLiveWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.db")
	ctx := context.Background()
	w, err := store.Open(ctx, "file:"+path, store.Options{Clock: func() int64 { return storetest.T0 }, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Set(ctx, storetest.Key(t, `["live"]`), []byte(`"yes"`), nil); err != nil {
		t.Fatal(err)
	}
	before := dirListing(t, dir)
	if !slices.Contains(before, "live.db-wal") || !slices.Contains(before, "live.db-shm") {
		t.Fatalf("a live writer's directory holds %v, want -wal and -shm", before)
	}
	c := &cli{t: t, url: "file:" + path, now: storetest.T0}
	out := c.must("--read-only", "-o", "json", "get", `["live"]`)
	if want := `"yes"`; !strings.Contains(out, want) {
		t.Fatalf("read-only get of the writer's key printed %q, want it to hold %s", out, want)
	}
	if got := dirListing(t, dir); !slices.Equal(got, before) {
		t.Fatalf("read-only get next to a live writer left %v, want %v", got, before)
	}
	// The writer still works, and a later read sees its next commit.
	if _, err := w.Set(ctx, storetest.Key(t, `["live"]`), []byte(`"again"`), nil); err != nil {
		t.Fatal(err)
	}
	if out := c.must("--read-only", "-o", "json", "get", `["live"]`); !strings.Contains(out, `"again"`) {
		t.Fatalf("second read-only get printed %q, want the writer's new value", out)
	}
}
