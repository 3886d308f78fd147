package cli

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// rollbackFile is the reference's store copied (a rollback-journal
// file), with a cli journaling into a state directory of its own.
func rollbackFile(t *testing.T) (*cli, string) {
	t.Helper()
	path := storetest.CopyReference(t)
	return &cli{t: t, url: "file:" + path, now: storetest.T0, env: map[string]string{"XDG_STATE_HOME": t.TempDir()}}, path
}

// TestWALSwitchesAndUndoSwitchesBack: doctor names the rollback journal;
// wal asks (refuses without a terminal or --yes, does nothing on a no),
// says what changes, switches on a yes (one journal entry), then has
// nothing to do; doctor is quiet; undo switches back and doctor names it
// again; undo of the undo redoes. The rows never change.
func TestWALSwitchesAndUndoSwitchesBack(t *testing.T) {
	c, path := rollbackFile(t)
	before := rows(t, c.url)
	if out := c.must("doctor"); !strings.Contains(out, "store.rollback-journal") || !strings.Contains(out, "kvdeck wal --db file:"+path) {
		t.Fatalf("doctor on a rollback-journal file:\n%s", out)
	}
	if r := c.run("wal"); r.code != 2 || !strings.Contains(r.stderr, "pass --yes") || storetest.JournalMode(t, path) != "delete" {
		t.Fatalf("wal without a terminal: %v", r)
	}
	tty := *c
	tty.opts = []Option{func(o *options) { o.terminal = func(io.Reader) bool { return true } }}
	r := tty.runIn("n\n", "wal")
	base := filepath.Base(path)
	for _, want := range []string{"file:" + path + ": rollback journal → WAL", "stop blocking each other", base + "-wal and " + base + "-shm", "on this host", "kvdeck undo switches back"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the preview does not say %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 || !strings.Contains(r.stderr, "[y/N]") || storetest.JournalMode(t, path) != "delete" {
		t.Fatalf("wal answered n: %v", r)
	}
	r = tty.runIn("y\n", "wal")
	if r.code != 0 || !strings.Contains(r.stdout, "switched file:"+path+" to WAL") || storetest.JournalMode(t, path) != "wal" {
		t.Fatalf("wal answered y: %v (the file says %s)", r, storetest.JournalMode(t, path))
	}
	entries := c.entries()
	if len(entries) != 1 || entries[0].Writes != 1 || entries[0].Entries[0].Kind != "journal-mode" || entries[0].Command != "wal" || !entries[0].Undoable ||
		len(entries[0].Settings) != 1 || entries[0].Settings[0] != (settingJSON{Name: "journal_mode", From: "rollback", To: "wal"}) ||
		!strings.Contains(r.stdout, "kvdeck undo "+entries[0].ID+" switches it back") {
		t.Fatalf("journal %+v after %s", entries, r.stdout)
	}
	if list := c.must("undo", "--list"); !strings.Contains(list, "journal_mode rollback → wal") || strings.Contains(list, "changed no row") {
		t.Errorf("undo --list:\n%s", list)
	}
	var out walJSON
	if err := json.Unmarshal([]byte(c.must("-o", "json", "wal", "--yes")), &out); err != nil || out != (walJSON{OK: true, From: "wal", To: "wal"}) {
		t.Errorf("wal again: %+v %v", out, err)
	}
	if len(c.entries()) != 1 {
		t.Error("a wal that changed nothing was journaled")
	}
	if doc := c.run("doctor"); strings.Contains(doc.stdout, "rollback-journal") {
		t.Errorf("doctor after the switch:\n%s", doc.stdout)
	}
	r = c.run("undo", "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, "(0 keys, journal_mode wal → rollback)") || !strings.Contains(r.stdout, "sets journal_mode back from wal to rollback") ||
		!strings.Contains(r.stdout, "undid "+entries[0].ID+" (wal): journal_mode rollback again") || storetest.JournalMode(t, path) != "delete" {
		t.Fatalf("undo: %v (the file says %s)", r, storetest.JournalMode(t, path))
	}
	if out := c.must("doctor"); !strings.Contains(out, "store.rollback-journal") {
		t.Errorf("doctor after the undo:\n%s", out)
	}
	if r := c.run("redo", "--yes"); r.code != 0 || storetest.JournalMode(t, path) != "wal" {
		t.Fatalf("redo: %v (the file says %s)", r, storetest.JournalMode(t, path))
	}
	if after := rows(t, c.url); !sameRows(before, after) {
		t.Errorf("the rows changed:\n%v\n%v", before, after)
	}
}

// TestWALRefusedWhileAnotherProcessHasTheFile: another process with the
// file open refuses the switch (exit 1, naming it), nothing journaled;
// once it ended, the switch is made.
func TestWALRefusedWhileAnotherProcessHasTheFile(t *testing.T) {
	c, path := rollbackFile(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sleep", "60")
	holder.Stdin = f
	err = holder.Start()
	f.Close() // before any store of this process takes a lock on the file
	if err != nil {
		t.Skip("no sleep to hold the file open:", err)
	}
	defer holder.Process.Kill()
	r := c.run("wal", "--yes")
	if r.code != 1 || !strings.Contains(r.stderr, "wal refused, nothing was changed") ||
		!strings.Contains(r.stderr, "is open in process "+strconv.Itoa(holder.Process.Pid)+" (sleep)") || storetest.JournalMode(t, path) != "delete" {
		t.Fatalf("wal beside process %d: %v", holder.Process.Pid, r)
	}
	if len(c.entries()) != 0 {
		t.Error("the refused switch was journaled")
	}
	holder.Process.Kill()
	holder.Wait()
	if r := c.run("wal", "--yes"); r.code != 0 || storetest.JournalMode(t, path) != "wal" {
		t.Fatalf("wal once the process ended: %v", r)
	}
}

// TestWALRefusedOnServerAndReadOnly: a server's database (real sqld,
// both transports) is refused, as is --read-only; nothing is journaled.
func TestWALRefusedOnServerAndReadOnly(t *testing.T) {
	storetest.Each(t, []storetest.Backend{storetest.SQLD(), storetest.SQLDWS().Named("sqld-ws")}, func(t *testing.T, b storetest.Backend) {
		c, _ := journaled(t, b.URL(t))
		if r := c.run("wal", "--yes"); r.code != 2 || !strings.Contains(r.stderr, "the server owns its files") {
			t.Fatalf("wal on a server: %v", r)
		}
		if len(c.entries()) != 0 {
			t.Error("journaled")
		}
	})
	t.Run("read-only", func(t *testing.T) {
		c, path := rollbackFile(t)
		if r := c.run("--read-only", "wal", "--yes"); r.code != 2 || !strings.Contains(r.stderr, "wal refused") || !strings.Contains(r.stderr, "--read-only") {
			t.Fatalf("wal --read-only: %v", r)
		}
		if storetest.JournalMode(t, path) != "delete" {
			t.Error("switched under --read-only")
		}
	})
}
