package cli

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
)

// TestLocked: a writer that holds the database longer than --busy-timeout
// makes a write fail with exit 2 and a message naming the fix.
func TestLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	c := &cli{t: t, url: "file:" + path, now: storetest.T0}
	c.must("set", `["k"]`, "1")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := c.run("--busy-timeout", "200ms", "set", `["k"]`, "2")
	if r.code != CodeError || !strings.Contains(r.stderr, "database is locked") || !strings.Contains(r.stderr, "--busy-timeout") {
		t.Errorf("exit %d, stderr %q; want exit 2, locked, --busy-timeout", r.code, r.stderr)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("gave up after %s, before the busy timeout", d)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if r := c.run("--busy-timeout=-1s", "get", `["k"]`); r.code != CodeError || !strings.Contains(r.stderr, "--busy-timeout") {
		t.Errorf("negative busy timeout: exit %d, %q", r.code, r.stderr)
	}
	if out := c.must("get", `["k"]`); out != `["k"]  1  v=00000000000000000001`+"\n" {
		t.Errorf("after the lock: %q", out)
	}
}

// TestLockedReadSaidOnce: where kvdeck cannot read a rollback-journal
// file without SQLite's locks (here a journal it takes as hot, always),
// a command says so on stderr, once and before its first such read, and
// reads the file with them; a file it can read without locks gets no
// word.
func TestLockedReadSaidOnce(t *testing.T) {
	path := storetest.NewRollbackJournal(t, 50)
	c := &cli{t: t, url: "file:" + path, now: storetest.T0}
	if r := c.run("list", `["bulk"]`, "--limit", "2"); r.code != 0 || r.stderr != "" {
		t.Fatalf("a cold journal: exit %d, stderr %q; want nothing said", r.code, r.stderr)
	}
	storetest.WriteHotJournal(t, path)
	r := c.run("list", `["bulk"]`, "--limit", "2")
	if r.code != 0 || len(lines(r.stdout)) != 2 {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	said := "kvdeck: note: file:" + path + " is a rollback-journal file, and kvdeck now reads it with SQLite's locks"
	if strings.Count(r.stderr, "kvdeck: note:") != 1 || !strings.HasPrefix(r.stderr, said) || !strings.Contains(r.stderr, "busy timeout") {
		t.Errorf("stderr %q: want the one note, %q...", r.stderr, said)
	}
}
