package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// envJournalBlock makes a kvdeck child process (TestKvdeckChildProcess)
// stop for good inside the journal: "before" once the intent line is
// written (the commit never sent), "after" once the write has ended and
// before its outcome line; it says so on stderr with journalBlocked.
const envJournalBlock = "KVDECK_TEST_JOURNAL_BLOCK"

const journalBlocked = "journal-test: blocked"

// childOptions are the options of a kvdeck child process.
func childOptions() []Option {
	at := os.Getenv(envJournalBlock)
	if at == "" {
		return nil
	}
	return []Option{func(o *options) {
		o.wrapRecorder = func(r store.Recorder) store.Recorder { return blockingRecorder{Recorder: r, at: at} }
	}}
}

// blockingRecorder stops the process at a point of the journal, for a
// test to kill it there.
type blockingRecorder struct {
	store.Recorder
	at string
}

func (b blockingRecorder) Before(ctx context.Context, w store.PendingWrite) (string, error) {
	id, err := b.Recorder.Before(ctx, w)
	if b.at == "before" && err == nil {
		fmt.Fprintln(os.Stderr, journalBlocked)
		select {}
	}
	return id, err
}

func (b blockingRecorder) After(ctx context.Context, id string, r store.WriteResult) {
	if b.at == "after" {
		fmt.Fprintln(os.Stderr, journalBlocked)
		select {}
	}
	b.Recorder.After(ctx, id, r)
}

// journaled is a cli whose journal goes to a state directory of its own.
func journaled(t *testing.T, url string) (*cli, string) {
	t.Helper()
	state := t.TempDir()
	c := &cli{t: t, url: url, now: storetest.T0, env: map[string]string{"XDG_STATE_HOME": state}}
	c.must("--no-journal", "init")
	return c, state
}

// rows is every physical row of the store (expired ones included) as
// "hex key -> value exp=MS": what an undo must give back exactly, but
// for the stamps.
func rows(t *testing.T, url string) map[string]string {
	t.Helper()
	s := storetest.Open(t, url, store.Options{})
	defer s.Close()
	out := map[string]string{}
	err := s.Dump(storetest.Ctx(t), nil, func(e store.Entry) error {
		exp := "none"
		if e.ExpiresAt != nil {
			exp = strconv.FormatInt(*e.ExpiresAt, 10)
		}
		out[hex.EncodeToString(e.Raw)] = string(e.Value) + " exp=" + exp
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameRows(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// entries is undo --list -o json: one per action.
func (c *cli) entries() []journalActionJSON {
	c.t.Helper()
	var out []journalActionJSON
	for _, l := range lines(c.must("-o", "json", "undo", "--list")) {
		var e journalActionJSON
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			c.t.Fatalf("%s: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

// TestUndoEveryWriteCommand: each write command is one action of the
// journal (an alarm fire's claim, lease, clear and release included:
// four actions before), named after the command, and one undo of it
// gives every row back exactly (value and expiry; keys it created are
// gone again), on a file and on sqld over HTTP and WebSocket.
func TestUndoEveryWriteCommand(t *testing.T) {
	type step struct {
		name  string
		setup [][]string // run with --no-journal
		stdin string
		cmd   func(c *cli) []string
		at    int64 // the clock of the command and its undo; 0: T0
		op    string
	}
	args := func(a ...string) func(*cli) []string { return func(*cli) []string { return a } }
	hour := int64(time.Hour / time.Millisecond)
	steps := []step{
		{name: "set over a row with an expiry", setup: [][]string{{"set", `["s"]`, `{"v":1}`, "--expire-in", "1h"}},
			cmd: args("set", `["s"]`, `2`), op: "set"},
		{name: "set of a new key", cmd: args("set", `["new"]`, `3`, "--expire-in", "5m"), op: "set"},
		{name: "delete", setup: [][]string{{"set", `["d"]`, `"gone"`, "--expire-in", "2h"}}, cmd: args("delete", `["d"]`), op: "delete"},
		{name: "atomic", setup: [][]string{{"set", `["a", 1]`, `1`}, {"set", `["a", 2]`, `2`}},
			stdin: `{"checks":[{"key":"[\"a\", 3]","versionstamp":null}],"mutations":[{"type":"set","key":"[\"a\", 3]","value":{"x":[1,2]},"expireIn":"1m"},{"type":"delete","key":"[\"a\", 2]"}]}`,
			cmd:   args("atomic", "-"), op: "atomic"},
		{name: "load", setup: [][]string{{"set", `["l", 1]`, `"old"`, "--expire-in", "1h"}},
			stdin: `{"key":"[\"l\", 1]","value":"new"}` + "\n" + `{"key":"[\"l\", 2]","value":2}` + "\n",
			cmd:   args("load", "-"), op: "load"},
		{name: "sweep", setup: [][]string{{"set", `["w", 1]`, `1`, "--expire-in", "1s"}, {"set", `["w", 2]`, `{"b":2}`, "--expire-in", "2s"}},
			cmd: args("sweep"), at: storetest.T0 + hour, op: "sweep"},
		{name: "lease acquire", cmd: args("lease", "acquire", `["dwk_lease", "c", "1"]`, "--ttl", "30s"), op: "lease acquire"},
		{name: "lease release", cmd: func(c *cli) []string {
			var l leaseJSON
			if err := json.Unmarshal([]byte(c.must("--no-journal", "-o", "json", "lease", "acquire", `["dwk_lease", "c", "2"]`)), &l); err != nil {
				c.t.Fatal(err)
			}
			return []string{"lease", "release", `["dwk_lease", "c", "2"]`, l.Versionstamp}
		}, op: "lease release"},
		{name: "lease break", setup: [][]string{{"lease", "acquire", `["dwk_lease", "c", "3"]`}},
			cmd: args("lease", "break", `["dwk_lease", "c", "3"]`), op: "lease break"},
		{name: "alarm set", setup: [][]string{{"alarm", "set", "cls", "a1", "+1h"}}, cmd: args("alarm", "set", "cls", "a1", "+2h"), op: "alarm set"},
		{name: "alarm delete", setup: [][]string{{"alarm", "set", "cls", "a2", "+1h"}}, cmd: args("alarm", "delete", "cls", "a2"), op: "alarm delete"},
		{name: "queue send", cmd: args("queue", "send", "q", `{"job":1}`, "--delay", "1m"), op: "queue send"},
		{name: "queue purge", setup: [][]string{{"queue", "send", "p", `1`}, {"queue", "send", "p", `2`, "--delay", "1h"}},
			cmd: args("queue", "purge", "p"), op: "queue purge"},
		{name: "queue poll", setup: [][]string{{"queue", "send", "pp", `1`}}, cmd: args("queue", "poll", "pp", "--ack"), op: "queue poll"},
		{name: "alarm fire", setup: [][]string{{"alarm", "set", "f", "x", strconv.FormatInt(storetest.T0+1000, 10)}}, cmd: args("alarm", "fire", "f"), at: storetest.T0 + hour, op: "alarm fire"},
	}
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		base, _ := journaled(t, b.URL(t))
		for _, st := range steps {
			t.Run(strings.ReplaceAll(st.name, " ", "_"), func(t *testing.T) {
				c := *base
				c.t = t
				if st.at != 0 {
					c.now = st.at
				}
				for _, s := range st.setup {
					c.must(append([]string{"--no-journal"}, s...)...)
				}
				argv := st.cmd(&c)
				known := len(c.entries())
				before := rows(t, c.url)
				if r := c.runIn(st.stdin, argv...); r.code != 0 {
					t.Fatalf("%v: exit %d %s %s", argv, r.code, r.stdout, r.stderr)
				}
				if sameRows(rows(t, c.url), before) {
					t.Fatalf("%v changed nothing", argv)
				}
				all := c.entries()
				if len(all) != known+1 {
					t.Fatalf("%v journaled %d actions; want one", argv, len(all)-known)
				}
				e := all[known]
				if e.Command != st.op || !e.Undoable {
					t.Fatalf("action %s: command %q, undoable %v (%s); want %q", e.ID, e.Command, e.Undoable, e.Why, st.op)
				}
				if r := c.run("undo", "--yes", e.ID); r.code != 0 {
					t.Fatalf("undo %s: exit %d %s %s", e.ID, r.code, r.stdout, r.stderr)
				}
				if after := rows(t, c.url); !sameRows(after, before) {
					t.Errorf("after the undo:\n got %v\nwant %v", after, before)
				}
			})
		}
	})
}

// regexpStamp matches a versionstamp.
var regexpStamp = regexp.MustCompile(`\b\d{20}\b`)

// TestUndoRefusedAfterAnotherWriter: a write by another process between
// the write and its undo makes the undo refuse (exit 1), naming the key,
// its stamp and value now, and write nothing.
func TestUndoRefusedAfterAnotherWriter(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c, state := journaled(t, b.URL(t))
		c.must("set", `["f", "x"]`, `1`)
		c.must("set", `["f", "y"]`, `1`)
		r := c.runIn(`{"checks":[],"mutations":[{"type":"set","key":"[\"f\", \"x\"]","value":2},{"type":"set","key":"[\"f\", \"y\"]","value":2}]}`, "atomic", "-")
		if r.code != 0 {
			t.Fatal(r)
		}
		// The other writer journals nothing (a service would not either).
		other := childCommand(context.Background(), os.Args[0], []string{"XDG_STATE_HOME=" + state, "KVDECK_JOURNAL=off"},
			"--db", c.url, "set", `["f", "y"]`, `"theirs"`)
		if out, err := other.CombinedOutput(); err != nil {
			t.Fatalf("the other process: %v %s", err, out)
		}
		before := rows(t, c.url)
		r = c.run("undo", "--yes")
		if r.code != 1 || !strings.Contains(r.stderr, `["f", "y"]`) || !strings.Contains(r.stderr, `"theirs"`) ||
			!strings.Contains(r.stderr, "nothing was written") || strings.Contains(r.stderr, `["f", "x"] is at`) || !strings.Contains(r.stderr, "changed since the action") {
			t.Fatalf("undo: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
		if !regexpStamp.MatchString(r.stderr) {
			t.Errorf("the refusal names no stamp: %s", r.stderr)
		}
		if after := rows(t, c.url); !sameRows(after, before) {
			t.Errorf("a refused undo changed rows:\n got %v\nwant %v", after, before)
		}
	})
}

// TestUndoStepsBackAndRedo: undo takes back the newest action, and
// again the one before it (undoing an undo redid before); redo makes the
// undone actions again, newest undone first, value and expiry; the list
// shows who undid and redid whom; undo of an undone action, or of an
// undo, says to redo instead.
func TestUndoStepsBackAndRedo(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c, _ := journaled(t, b.URL(t))
		c.must("set", `["r"]`, `"first"`)
		first := rows(t, c.url)
		c.must("set", `["r"]`, `"second"`, "--expire-in", "1h")
		second := rows(t, c.url)
		c.must("undo", "--yes")
		if got := rows(t, c.url); !sameRows(got, first) {
			t.Fatalf("after undo: %v", got)
		}
		c.must("undo", "--yes")
		if got := c.run("get", `["r"]`); got.code != 1 {
			t.Fatalf("after the second undo the key is there: %v", got)
		}
		if r := c.run("undo", "--yes"); r.code != 1 || !strings.Contains(r.stderr, "no applied action") {
			t.Fatalf("a third undo: %v", r)
		}
		c.must("redo", "--yes")
		if got := rows(t, c.url); !sameRows(got, first) {
			t.Fatalf("after redo: %v", got)
		}
		out := c.must("redo", "--yes")
		if got := rows(t, c.url); !sameRows(got, second) {
			t.Fatalf("after the second redo:\n got %v\nwant %v", got, second)
		}
		es := c.entries()
		if len(es) != 6 || !strings.Contains(out, "redid "+es[1].ID) {
			t.Fatalf("%d actions, redo said %q", len(es), out)
		}
		if es[2].Undoes != es[1].ID || es[3].Undoes != es[0].ID || es[4].Undoes != es[3].ID || es[5].Undoes != es[2].ID ||
			es[1].UndoneBy != es[2].ID || es[2].UndoneBy != es[5].ID || !es[1].Undoable || es[1].Redoable {
			t.Fatalf("actions %+v", es)
		}
		if r := c.run("redo", "--yes"); r.code != 1 || !strings.Contains(r.stderr, "no undone action") {
			t.Fatalf("redo with nothing undone: %v", r)
		}
		c.must("undo", "--yes", es[1].ID)
		r := c.run("undo", "--yes", es[1].ID)
		if r.code != 1 || !strings.Contains(r.stderr, "kvdeck redo "+es[1].ID) {
			t.Fatalf("undo of an undone action: exit %d %s", r.code, r.stderr)
		}
		if r := c.run("undo", "--yes", es[2].ID); r.code != 1 || !strings.Contains(r.stderr, "is an undo or a redo of "+es[1].ID) {
			t.Fatalf("undo of an undo: exit %d %s", r.code, r.stderr)
		}
		list := c.must("undo", "--list")
		if !strings.Contains(list, "redoes "+es[1].ID) || !strings.Contains(list, "undoes "+es[1].ID) {
			t.Fatalf("list:\n%s", list)
		}
	})
}

// TestKilledBetweenIntentAndOutcome: a kvdeck killed with SIGKILL after
// its intent line and before the commit leaves an entry that undo --list
// settles as not applied; killed after the commit and before its outcome
// line, as applied. Each settlement is written once. The before-images
// are in the intent, on the disk before the commit was sent: the write
// killed after its commit is undone from them, exactly.
func TestKilledBetweenIntentAndOutcome(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c, state := journaled(t, b.URL(t))
		c.must("set", `["k", "after"]`, `"first"`, "--expire-in", "1h")
		was := rows(t, c.url)
		kill := func(at, key string) {
			killAt(t, state, at, "--db", c.url, "set", key, `"killed"`)
		}
		kill("before", `["k", "before"]`)
		kill("after", `["k", "after"]`)
		// The intent of the write killed after its commit holds the row
		// it replaced, value and expiry.
		journal, err := os.ReadFile(journalFile(t, state))
		if err != nil {
			t.Fatal(err)
		}
		image := fmt.Sprintf(`"pre":[{"k":"%s","v":"\"first\"","ver":`, hex.EncodeToString(codec.MustEncode(storetest.Key(t, `["k", "after"]`))))
		if !bytes.Contains(journal, []byte(image)) {
			t.Fatalf("no intent holds the before-image %s:\n%s", image, journal)
		}
		r := c.run("-o", "json", "undo", "--list")
		if r.code != 0 {
			t.Fatal(r)
		}
		es := c.entries()
		if len(es) != 3 {
			t.Fatalf("entries %+v", es)
		}
		if e := es[1]; e.Outcome != "not applied" || !e.Settled || e.Undoable || !strings.Contains(e.Entries[0].Why, "another journaled write's") {
			t.Errorf("killed before the commit: %+v", e)
		}
		if e := es[2]; e.Outcome != "applied" || !e.Settled || e.BeforeUnknown || !e.Undoable || e.Versionstamp == nil {
			t.Errorf("killed after the commit: %+v", e)
		}
		if got := c.run("get", `["k", "before"]`); got.code != 1 {
			t.Errorf("the write killed before its commit is there: %v", got)
		}
		// Settled once: a second list adds no line.
		path := journalFile(t, state)
		size := fileSize(t, path)
		c.entries()
		if fileSize(t, path) != size {
			t.Error("a second undo --list settled again")
		}
		c.must("undo", "--yes")
		if now := rows(t, c.url); !sameRows(now, was) {
			t.Errorf("after the undo: %v, want %v", now, was)
		}
	})
}

// killAt runs kvdeck args in a child process that stops inside the
// journal at (envJournalBlock), and kills it there with SIGKILL.
func killAt(t *testing.T, state, at string, args ...string) {
	t.Helper()
	cmd := childCommand(context.Background(), os.Args[0], []string{"XDG_STATE_HOME=" + state, envJournalBlock + "=" + at}, args...)
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(errPipe)
	blocked := false
	for sc.Scan() {
		if sc.Text() == journalBlocked {
			blocked = true
			break
		}
	}
	if !blocked {
		cmd.Wait()
		t.Fatalf("the child never blocked (%s)", at)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	go io.Copy(io.Discard, errPipe)
	cmd.Wait()
}

// TestKilledAfterCommitThenChanged: a queue send and a set killed after
// their commit and before their outcome line, whose keys another writer
// changed since (the consumer took the message; a service rewrote the
// set key), are not labelled "not applied" (every such run was, before):
// they are unknown, and the list says which key to check.
func TestKilledAfterCommitThenChanged(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c, state := journaled(t, b.URL(t))
		now := strconv.FormatInt(c.now, 10)
		killAt(t, state, "after", "--db", c.url, "--now", now, "queue", "send", "jobs", `{"n":1}`)
		killAt(t, state, "after", "--db", c.url, "--now", now, "set", `["cfg", "mode"]`, `"mine"`)
		// The other writers journal nothing.
		c.must("--no-journal", "queue", "poll", "jobs", "--ack")
		c.must("--no-journal", "set", `["cfg", "mode"]`, `"theirs"`)
		es := c.entries()
		if len(es) != 2 {
			t.Fatalf("actions %+v", es)
		}
		for _, e := range es {
			if e.Outcome != "unknown" || !e.Settled || e.Undoable || !strings.Contains(e.Entries[0].Why, "check whether") {
				t.Errorf("%s: outcome %s, settled %v: %q", e.Command, e.Outcome, e.Settled, e.Entries[0].Why)
			}
		}
		if list := c.must("undo", "--list"); !strings.Contains(list, `["cfg", "mode"] shows nothing of it`) {
			t.Errorf("the list does not name the key to check:\n%s", list)
		}
	})
}

// TestUndoDevNullIsNoTerminal: /dev/null is a character device, not a
// terminal: undo without --yes refuses there (exit 2) instead of asking.
func TestUndoDevNullIsNoTerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if stdinTerminal(f) {
		t.Fatal("/dev/null taken for a terminal")
	}
}

// journalFile is the one journal file under state.
func journalFile(t *testing.T, state string) string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(state, "kvdeck", "*.jsonl"))
	if len(names) != 1 {
		t.Fatalf("journal files %v", names)
	}
	return names[0]
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestUndoLeaseSaysNobodyHoldsIt: the preview of undoing a lease break
// says the lease comes back under a new stamp, its holder's fencing
// token, held by nobody, and until when.
func TestUndoLeaseSaysNobodyHoldsIt(t *testing.T) {
	c, _ := journaled(t, storetest.File().URL(t))
	c.must("--no-journal", "lease", "acquire", `["dwk_lease", "job", "1"]`, "--ttl", "30s")
	c.must("lease", "break", `["dwk_lease", "job", "1"]`)
	tty := *c
	tty.opts = []Option{func(o *options) { o.terminal = func(io.Reader) bool { return true } }}
	r := tty.runIn("n\n", "undo")
	if r.code != 1 || !strings.Contains(r.stdout, `["dwk_lease", "job", "1"] is a lease`) || !strings.Contains(r.stdout, "fencing token") ||
		!strings.Contains(r.stdout, "nobody holds it until it expires at") {
		t.Fatalf("undo of a break: %v", r)
	}
}

// TestUndoFromDevNull: kvdeck undo with stdin from /dev/null (a script,
// cron) previews, asks nothing and exits 2 as documented, writing
// nothing.
func TestUndoFromDevNull(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c, _ := journaled(t, b.URL(t))
		c.must("set", `["q"]`, "1")
		null, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer null.Close()
		var out, errb bytes.Buffer
		env := maps.Clone(c.env)
		code := Main(context.Background(), []string{"--db", c.url, "--now", strconv.FormatInt(c.now, 10), "undo"}, null, &out, &errb, env)
		if code != CodeError || strings.Contains(errb.String(), "[y/N]") || !strings.Contains(errb.String(), "stdin is not a terminal: pass --yes") ||
			!strings.Contains(out.String(), `["q"]  1 v=`) {
			t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
		}
		if got := c.must("get", `["q"]`); !strings.Contains(got, "1") {
			t.Fatalf("written: %s", got)
		}
	})
}

// TestUndoPreviewWrapsIndented: on a terminal of 60 columns the preview's
// key lines, longer than the width, are wrapped there with their later
// lines indented under the key, so that every key's line still starts
// at the left edge. The terminal wrapped them, at the left edge.
func TestUndoPreviewWrapsIndented(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c, _ := journaled(t, b.URL(t))
		long := `"` + strings.Repeat("word ", 30) + `"`
		c.must("set", `["notes", "a"]`, long)
		c.must("set", `["notes", "a"]`, `"short"`)
		master, slave := openPTY(t, 60, 20)
		var screen storetest.Buffer
		go func() { _, _ = io.Copy(&screen, master) }()
		tty := func(o *options) { o.terminal = func(io.Reader) bool { return true } }
		code := Main(context.Background(), []string{"--db", c.url, "--now", strconv.FormatInt(c.now, 10), "undo"}, strings.NewReader("n\n"), slave, io.Discard, c.env, tty)
		if code != CodeNotDone {
			t.Fatalf("exit %d: %q", code, screen.String())
		}
		var got []string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if got = lines(strings.ReplaceAll(screen.String(), "\r", "")); strings.Contains(strings.Join(got, " "), "read again") {
				break
			}
		}
		if len(got) < 3 || !strings.HasPrefix(got[1], `  ["notes", "a"]  "short" v=`) {
			t.Fatalf("preview:\n%s", strings.Join(got, "\n"))
		}
		key := 2
		for key < len(got) && strings.HasPrefix(got[key], "    ") {
			key++
		}
		for i, l := range got {
			if w := ansi.StringWidth(l); w > 60 {
				t.Errorf("line %d of %d cells on a terminal of 60: %q", i, w, l)
			}
		}
		joined := strings.Join(strings.Fields(strings.Join(got[1:key], " ")), " ")
		if key < 4 || !strings.Contains(joined, `→ "word word word`) || !strings.HasSuffix(joined, "word… (152 bytes)") || !strings.HasPrefix(got[key], "restored rows get") {
			t.Errorf("the key's change is not wrapped under it (%d lines):\n%s", key-1, strings.Join(got, "\n"))
		}
	})
}

// TestUndoSaysPutBackOrDeleted: an undo says what it did to the keys: a
// set that created a key is undone by deleting it ("1 key deleted"), a
// set over a value by putting the old one back ("1 key put back"). Both
// said "1 key restored" (the TUI "1 key(s) put back").
func TestUndoSaysPutBackOrDeleted(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c, _ := journaled(t, b.URL(t))
		c.must("set", `["a"]`, "1")
		if out := c.must("undo", "--yes"); !strings.Contains(out, "(set): 1 key deleted; kvdeck redo ") {
			t.Errorf("undo of a create: %s", out)
		}
		c.must("--no-journal", "set", `["b"]`, "1")
		c.must("set", `["b"]`, "2")
		if out := c.must("undo", "--yes"); !strings.Contains(out, "(set): 1 key put back (new versionstamp") {
			t.Errorf("undo of an overwrite: %s", out)
		}
		if r := c.runIn(`{"checks":[],"mutations":[{"type":"set","key":"[\"c\"]","value":1},{"type":"set","key":"[\"b\"]","value":3}]}`, "atomic", "-"); r.code != 0 {
			t.Fatalf("atomic: %v", r)
		}
		if out := c.must("undo", "--yes"); !strings.Contains(out, "(atomic): 1 key put back and 1 deleted (new versionstamp") {
			t.Errorf("undo of a create and an overwrite: %s", out)
		}
	})
}
