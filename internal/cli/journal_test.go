package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/journal"
	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

// TestJournalFileModes: the first journaled write makes the state
// directory 0700 and the journal file 0600, named after the store.
func TestJournalFileModes(t *testing.T) {
	c, state := journaled(t, storetest.File().URL(t))
	c.must("set", `["m"]`, `1`)
	path := journalFile(t, state)
	if !strings.HasPrefix(filepath.Base(path), "kv.db-") {
		t.Errorf("journal file %s: want it named after kv.db", path)
	}
	for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: %v; want %v", p, fi.Mode().Perm(), want)
		}
	}
}

// TestJournalOff: --no-journal, KVDECK_JOURNAL=off and --read-only leave
// the state directory empty (undo --list included: reading the journal
// of a read-only session settles nothing); the same write journaled
// creates it.
func TestJournalOff(t *testing.T) {
	url := storetest.File().URL(t)
	c, state := journaled(t, url)
	c.must("--no-journal", "set", `["o"]`, `1`)
	off := *c
	off.env = map[string]string{"XDG_STATE_HOME": state, "KVDECK_JOURNAL": "OFF"}
	off.must("set", `["o"]`, `2`)
	off.must("delete", `["o"]`)
	if r := c.run("--read-only", "get", `["o"]`); r.code != 1 {
		t.Fatalf("read-only get: %v", r)
	}
	if names, _ := os.ReadDir(state); len(names) != 0 {
		t.Fatalf("the state directory holds %v after writes without the journal", names)
	}
	if r := c.run("--read-only", "undo", "--list"); r.code != 0 || !strings.Contains(r.stdout, "no journal entries") {
		t.Fatalf("read-only undo --list: %v", r)
	}
	if r := c.run("--no-journal", "undo", "--yes"); r.code != 2 || !strings.Contains(r.stderr, "--no-journal") {
		t.Fatalf("undo with --no-journal: %v", r)
	}
	if names, _ := os.ReadDir(state); len(names) != 0 {
		t.Fatalf("the state directory holds %v after read-only sessions", names)
	}
	c.must("set", `["o"]`, `3`)
	journalFile(t, state)
}

// TestReadOnlyDoesNotSettle: an entry of unknown outcome is listed, not
// settled, by a read-only session: the journal file is left as it was.
func TestReadOnlyDoesNotSettle(t *testing.T) {
	c, state := journaled(t, storetest.File().URL(t))
	c.must("set", `["u"]`, `1`)
	path := journalFile(t, state)
	// An intent without its outcome, as a killed process leaves it.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitAfter(string(b), "\n")[0]
	if err := os.WriteFile(path, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.run("--read-only", "undo", "--list")
	if r.code != 0 || !strings.Contains(r.stdout, " unknown") || !strings.Contains(r.stderr, "not settled") {
		t.Fatalf("read-only list: %v", r)
	}
	if got, _ := os.ReadFile(path); string(got) != first {
		t.Fatalf("a read-only session changed the journal:\n%s", got)
	}
	// A writable session settles it (the row is there: applied, and
	// undoable from the before-images its intent holds).
	if r := c.run("undo", "--list"); r.code != 0 || !strings.Contains(r.stdout, "applied (settled by reading)") || strings.Contains(r.stdout, "not undoable") {
		t.Fatalf("list: %v", r)
	}
}

// TestTornJournalLine: a torn line is skipped with a warning naming the
// file and the line; the entries around it are listed and undoable.
func TestTornJournalLine(t *testing.T) {
	c, state := journaled(t, storetest.File().URL(t))
	c.must("set", `["t"]`, `1`)
	path := journalFile(t, state)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, `{"c":"0badc0de","r":{"t":"intent","id":"torn`+"\n")
	f.Close()
	c.must("set", `["t"]`, `2`)
	r := c.run("undo", "--list")
	if r.code != 0 || !strings.Contains(r.stderr, "journal line skipped: "+path+":3:") || len(lines(r.stdout)) != 3 {
		t.Fatalf("list: %v", r)
	}
	c.must("undo", "--yes")
	if got := c.must("get", `["t"]`); !strings.Contains(got, "1") {
		t.Fatalf("after undo: %s", got)
	}
}

// TestJournalUnwritable: when the journal cannot be written the write is
// not made: exit 2, the message names the file and --no-journal.
func TestJournalUnwritable(t *testing.T) {
	url := storetest.File().URL(t)
	blocker := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := &cli{t: t, url: url, now: storetest.T0, env: map[string]string{"XDG_STATE_HOME": blocker}}
	c.must("--no-journal", "init")
	r := c.run("set", `["w"]`, `1`)
	if r.code != 2 || !strings.Contains(r.stderr, filepath.Join(blocker, "kvdeck")) || !strings.Contains(r.stderr, "--no-journal") {
		t.Fatalf("set: %v", r)
	}
	if got := c.run("get", `["w"]`); got.code != 1 {
		t.Fatalf("the refused write was made: %v", got)
	}
	c.must("--no-journal", "set", `["w"]`, `1`)
}

// TestUndoAsks: on a terminal undo shows the preview and asks; "y" undoes,
// anything else does not (exit 1); elsewhere without --yes it refuses
// (exit 2); a bad ID is exit 2; nothing left to undo is exit 1.
func TestUndoAsks(t *testing.T) {
	c, _ := journaled(t, storetest.File().URL(t))
	if r := c.run("undo", "--yes"); r.code != 1 || !strings.Contains(r.stderr, "no applied action") {
		t.Fatalf("undo of an empty journal: %v", r)
	}
	c.must("set", `["q"]`, `{"a":1}`)
	c.must("set", `["q"]`, `{"a":2}`, "--expire-in", "1h")
	if r := c.run("undo"); r.code != 2 || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("undo without a terminal: %v", r)
	}
	tty := *c
	tty.opts = []Option{func(o *options) { o.terminal = func(io.Reader) bool { return true } }}
	r := tty.runIn("n\n", "undo")
	if r.code != 1 || !strings.Contains(r.stdout, `["q"]  {"a":2} v=`) || !strings.Contains(r.stdout, `→  {"a":1}`) || !strings.Contains(r.stderr, "[y/N]") {
		t.Fatalf("undo answered n: %v", r)
	}
	if got := c.must("get", `["q"]`); !strings.Contains(got, `{"a":2}`) {
		t.Fatalf("undone without a yes: %s", got)
	}
	if r := tty.runIn("y\n", "undo"); r.code != 0 || !strings.Contains(r.stdout, "undid ") {
		t.Fatalf("undo answered y: %v", r)
	}
	if got := c.must("get", `["q"]`); !strings.Contains(got, `{"a":1}`) || strings.Contains(got, "expires") {
		t.Fatalf("after undo: %s", got)
	}
	for _, args := range [][]string{{"undo", "--yes", "zzzzzzzz"}, {"undo", "--list", "abc"}} {
		if r := c.run(args...); r.code != 2 {
			t.Errorf("%v: %v", args, r)
		}
	}
	// The list, in text: id, time, command, keys, outcome.
	out := lines(c.must("undo", "--list"))
	if len(out) != 4 || !strings.HasPrefix(out[0], "ID        TIME") {
		t.Fatalf("list:\n%s", strings.Join(out, "\n"))
	}
	out = out[1:]
	if !strings.Contains(out[1], "  set  ") || !strings.Contains(out[1], `["q"]`) || !strings.HasSuffix(out[1], "applied, undone by "+strings.Fields(out[2])[0]) ||
		!strings.Contains(out[2], "undo "+strings.Fields(out[1])[0]) {
		t.Fatalf("list:\n%s", strings.Join(out, "\n"))
	}
}

// TestTUIStoresJournaled: the store handed to the TUI and those its :open
// opens journal their writes; the Race tab's workload connections, a
// read-only session and --no-journal do not.
func TestTUIStoresJournaled(t *testing.T) {
	url := storetest.File().URL(t)
	c, _ := journaled(t, url)
	type seen struct{ main, opened, workload bool }
	run := func(args ...string) seen {
		t.Helper()
		var got seen
		fake := func(ctx context.Context, s *store.Store, cfg tuiconfig.Config) error {
			got.main = journal.Of(s) != nil
			o, err := cfg.Open(ctx, url)
			if err != nil {
				return err
			}
			got.opened = journal.Of(o) != nil
			w, err := cfg.OpenWorkload(ctx, url)
			if err != nil {
				return err
			}
			got.workload = journal.Of(w) != nil
			return nil
		}
		tc := *c
		tc.opts = []Option{WithTUI(fake)}
		tc.must(append(args, "tui")...)
		return got
	}
	if got := run(); got != (seen{main: true, opened: true}) {
		t.Errorf("tui: %+v", got)
	}
	if got := run("--read-only"); got != (seen{}) {
		t.Errorf("tui --read-only: %+v", got)
	}
	if got := run("--no-journal"); got != (seen{}) {
		t.Errorf("tui --no-journal: %+v", got)
	}
}

// TestDemoNotJournaled: kvdeck demo's seed and replicas write nothing to
// the journal; the store its TUI gets is journaled.
func TestDemoNotJournaled(t *testing.T) {
	state := t.TempDir()
	url := "file:" + filepath.Join(t.TempDir(), "demo.db")
	env := map[string]string{"XDG_STATE_HOME": state}
	if r := runMain(t, env, "", []string{"--db", url, "demo", "--headless", "--duration", "1s", "--tick", "100ms", "--seed", "5"}); r.code != 0 {
		t.Fatalf("demo: %v", r)
	}
	if names, _ := os.ReadDir(state); len(names) != 0 {
		t.Fatalf("the demo journaled: %v", names)
	}
	journaledTUI := false
	fake := func(ctx context.Context, s *store.Store, cfg tuiconfig.Config) error {
		journaledTUI = journal.Of(s) != nil
		// Quit once the replicas wrote (quitting while they open is an
		// interrupt).
		v0, err := s.Version(ctx)
		if err != nil {
			return err
		}
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if v, err := s.Version(ctx); err != nil || v.Seq > v0.Seq {
				return err
			}
		}
		return nil
	}
	if r := runMain(t, env, "", []string{"--db", url, "demo", "--duration", "1s", "--tick", "100ms", "--seed", "5"}, WithTUI(fake)); r.code != 0 {
		t.Fatalf("demo with a TUI: %v", r)
	}
	if !journaledTUI {
		t.Error("the demo's TUI store is not journaled")
	}
	if names, _ := os.ReadDir(state); len(names) != 0 {
		t.Fatalf("the demo journaled: %v", names)
	}
}

// outcomeLost makes the journal's outcome line fail (the disk full
// between the two lines): after the intent, the file is replaced by a
// directory.
type outcomeLost struct{ store.Recorder }

func (o outcomeLost) Unwrap() store.Recorder { return o.Recorder }

func (o outcomeLost) Before(ctx context.Context, w store.PendingWrite) (string, error) {
	id, err := o.Recorder.Before(ctx, w)
	if j, ok := o.Recorder.(*journal.Journal); ok && err == nil {
		os.Rename(j.Path(), j.Path()+".gone")
		os.Mkdir(j.Path(), 0o700)
	}
	return id, err
}

// TestJournalOutcomeLost: when the outcome line cannot be written, the
// write was made (exit 0) and the warning says it cannot be undone, as
// docs/cli.md says.
func TestJournalOutcomeLost(t *testing.T) {
	c, _ := journaled(t, storetest.File().URL(t))
	c.opts = []Option{func(o *options) { o.wrapRecorder = func(r store.Recorder) store.Recorder { return outcomeLost{r} } }}
	r := c.run("set", `["lost"]`, `1`)
	if r.code != 0 || !strings.Contains(r.stderr, "could not record the outcome of write") || !strings.Contains(r.stderr, "(applied): it cannot be undone") {
		t.Fatalf("set: %v", r)
	}
	if got := c.must("get", `["lost"]`); !strings.Contains(got, "1") {
		t.Fatalf("the write was not made: %s", got)
	}
}
