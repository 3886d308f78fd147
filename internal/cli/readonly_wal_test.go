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

// TestReadOnlyWALLeavesDirectory: read-only commands on a WAL store nobody
// has open leave its directory as they found it: no -wal or -shm left
// behind, the database file byte for byte the same, and nothing said on
// stderr (before the fix both files stayed).
func TestReadOnlyWALLeavesDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "wal.db")
	c := &cli{t: t, url: "file:" + path, now: storetest.T0}
	c.must("set", `["a"]`, `1`)
	c.must("set", `["b"]`, `"two"`)
	before := storetest.DirNames(t, dir)
	if !slices.Equal(before, []string{"wal.db"}) {
		t.Fatalf("after a clean close the directory holds %v, want just wal.db", before)
	}
	sum := fileSum(t, path)
	for _, args := range [][]string{{"get", `["a"]`}, {"list"}, {"stats"}, {"dump"}, {"doctor"}} {
		r := c.run(append([]string{"--read-only"}, args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("--read-only %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if got := storetest.DirNames(t, dir); !slices.Equal(got, before) {
			t.Fatalf("--read-only %v left the directory as %v, want %v", args, got, before)
		}
		if fileSum(t, path) != sum {
			t.Fatalf("--read-only %v changed the database file", args)
		}
	}
}

// TestReadOnlyWALSaysWhatItLeft: when a writer holds the WAL open, a
// read-only command reads the writer's commits and leaves the writer's
// files alone, saying nothing; when only the -wal existed (a writer's
// crash leftover), SQLite must create the -shm to read, and the command
// says on stderr that it leaves it.
func TestReadOnlyWALSaysWhatItLeft(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.db")
	ctx := context.Background()
	w, err := store.Open(ctx, "file:"+path, store.Options{Clock: func() int64 { return storetest.T0 }, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Set(ctx, storetest.Key(t, `["live"]`), []byte(`"yes"`), nil); err != nil {
		t.Fatal(err)
	}
	before := storetest.DirNames(t, dir)
	c := &cli{t: t, url: "file:" + path, now: storetest.T0}
	r := c.run("--read-only", "-o", "json", "get", `["live"]`)
	if r.code != 0 || !strings.Contains(r.stdout, `"yes"`) || r.stderr != "" {
		t.Fatalf("read-only get beside a live writer: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := storetest.DirNames(t, dir); !slices.Equal(got, before) {
		t.Fatalf("read-only get next to a live writer left %v, want %v", got, before)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// A -wal without its -shm.
	if err := os.WriteFile(path+"-wal", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r = c.run("--read-only", "get", `["live"]`)
	if r.code != 0 || !strings.Contains(r.stderr, "kvdeck: note: "+path+"-shm did not exist") {
		t.Fatalf("read-only get beside a lone -wal: exit %d, stderr %q", r.code, r.stderr)
	}
}
