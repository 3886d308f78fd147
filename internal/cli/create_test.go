package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// appDB writes an application's SQLite file with one table, users.
func appDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.db")
	storetest.Exec(t, "file:"+path, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO users VALUES (1, 'ann')")
	return path
}

// TestAppDatabaseUntouched: no command adds a store to a database that has
// other tables; failed before the fix (stats exited 0
// and added kv and kv_meta).
func TestAppDatabaseUntouched(t *testing.T) {
	path := appDB(t)
	before := fileSum(t, path)
	c := &cli{t: t, url: path, now: storetest.T0}
	for _, args := range [][]string{{"stats"}, {"get", `["k"]`}, {"list"}, {"dump"}, {"doctor"}, {"set", `["k"]`, "1"}, {"init"}} {
		r := c.run(args...)
		if r.code != CodeError || !strings.Contains(r.stderr, "has tables users but no kvdeck store") || !strings.Contains(r.stderr, "kvdeck init --db") || !strings.Contains(r.stderr, "--force") {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming the table users and init --force", strings.Join(args, " "), r.code, r.stderr)
		}
		if fileSum(t, path) != before {
			t.Fatalf("%s changed the application's file", strings.Join(args, " "))
		}
	}
	// init --force is how a store is added beside other tables.
	if r := c.run("init", "--force"); r.code != 0 || r.stdout != "initialised a kvdeck store at file:"+path+"\n" {
		t.Fatalf("init --force: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	c.must("set", `["k"]`, "1")
	if out := c.must("get", `["k"]`); !strings.Contains(out, "1") {
		t.Errorf("get after init --force: %q", out)
	}
}

// TestMissingPath: reads of a missing path fail naming it and create no
// file; the first write creates the store and says so. Failed before the
// fix (stats exited 0 and left an empty store behind; set was silent).
func TestMissingPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "typo.db")
	c := &cli{t: t, url: path, now: storetest.T0}
	for _, args := range [][]string{{"stats"}, {"get", `["k"]`}, {"list"}, {"dump"}, {"doctor"}, {"sweep"}, {"lease", "list"}} {
		r := c.run(args...)
		if r.code != CodeError || !strings.Contains(r.stderr, "no database at "+path) || !strings.Contains(r.stderr, "kvdeck init --db "+path) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming the path and kvdeck init", strings.Join(args, " "), r.code, r.stderr)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s left a file behind: %v", strings.Join(args, " "), err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("%s left %s behind", strings.Join(args, " "), ents[0].Name())
		}
	}
	r := c.run("set", `["k"]`, "1")
	if r.code != 0 || r.stderr != "kvdeck: created a new store at file:"+path+"\n" {
		t.Fatalf("set on a missing path: exit %d, stderr %q", r.code, r.stderr)
	}
	// The second write creates nothing and says nothing.
	if r := c.run("set", `["k"]`, "2"); r.code != 0 || r.stderr != "" {
		t.Errorf("second set: exit %d, stderr %q", r.code, r.stderr)
	}
	if out := c.must("stats"); !strings.Contains(out, "1") {
		t.Errorf("stats after set: %q", out)
	}
}

// TestEmptyFileIsMissing: a zero-byte file is treated as a missing path.
func TestEmptyFileIsMissing(t *testing.T) {
	path := writeFile(t, "empty.db", "")
	c := &cli{t: t, url: path, now: storetest.T0}
	if r := c.run("stats"); r.code != 2 || !strings.Contains(r.stderr, "kvdeck init") {
		t.Errorf("stats on an empty file: exit %d, %q", r.code, r.stderr)
	}
	if fileSum(t, path) != fileSum(t, writeFile(t, "other", "")) {
		t.Fatal("stats changed the empty file")
	}
	if r := c.run("load", "-"); r.code != 0 || !strings.Contains(r.stderr, "created a new store at") {
		t.Errorf("load on an empty file: exit %d, %q", r.code, r.stderr)
	}
}

// TestInit: init creates a store, says so, and is idempotent.
func TestInit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	c := &cli{t: t, url: path, now: storetest.T0}
	r := c.run("init")
	if r.code != 0 || r.stdout != "initialised a kvdeck store at file:"+path+"\n" || r.stderr != "kvdeck: created a new store at file:"+path+"\n" {
		t.Fatalf("init: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	c.must("set", `["k"]`, "1")
	before := fileSum(t, path)
	if r := c.run("-o", "json", "init"); r.code != 0 || r.stdout != `{"db":"file:`+path+`","created":false}`+"\n" || r.stderr != "" {
		t.Fatalf("init again: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	if out := c.must("init", "--force"); out != "file:"+path+" is already a kvdeck store\n" {
		t.Errorf("init --force on a store: %q", out)
	}
	if fileSum(t, path) != before {
		t.Error("init on an existing store changed it")
	}
	if r := c.run("--read-only", "init"); r.code != 2 || !strings.Contains(r.stderr, "--read-only") {
		t.Errorf("init --read-only: exit %d, %q", r.code, r.stderr)
	}
}
