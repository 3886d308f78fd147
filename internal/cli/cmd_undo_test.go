package cli

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

// entries is undo --list -o json.
func (c *cli) entries() []journalEntryJSON {
	c.t.Helper()
	var out []journalEntryJSON
	for _, l := range lines(c.must("-o", "json", "undo", "--list")) {
		var e journalEntryJSON
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			c.t.Fatalf("%s: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

// TestUndoEveryWriteCommand: after each write command, undoing the
// entries it journaled (newest first) gives every row back exactly
// (value and expiry; keys it created are gone again), on a file and on
// sqld over HTTP and WebSocket. Each entry is named after its command.
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
				if len(all) <= known {
					t.Fatalf("%v journaled nothing", argv)
				}
				var ids []string
				for _, e := range all[known:] {
					if e.Command != st.op {
						t.Errorf("entry %s: command %q; want %q", e.ID, e.Command, st.op)
					}
					if e.Undoable {
						ids = append(ids, e.ID)
					}
				}
				for i := len(ids) - 1; i >= 0; i-- {
					if r := c.run("undo", "--yes", ids[i]); r.code != 0 {
						t.Fatalf("undo %s: exit %d %s %s", ids[i], r.code, r.stdout, r.stderr)
					}
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
			!strings.Contains(r.stderr, "nothing was written") || strings.Contains(r.stderr, `["f", "x"] is at`) {
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

// TestUndoOfUndoRedoes: undo, then undo again (the default target is now
// the undo): the write is back, value and expiry; the list shows who
// undid whom.
func TestUndoOfUndoRedoes(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c, _ := journaled(t, b.URL(t))
		c.must("set", `["r"]`, `"first"`)
		c.must("set", `["r"]`, `"second"`, "--expire-in", "1h")
		written := rows(t, c.url)
		c.must("undo", "--yes")
		if got := c.must("get", `["r"]`); !strings.Contains(got, `"first"`) {
			t.Fatalf("after undo: %s", got)
		}
		c.must("undo", "--yes")
		if after := rows(t, c.url); !sameRows(after, written) {
			t.Fatalf("after redo:\n got %v\nwant %v", after, written)
		}
		es := c.entries()
		if len(es) != 4 || es[1].UndoneBy != es[2].ID || es[2].Undoes != es[1].ID || es[3].Undoes != es[2].ID || es[2].UndoneBy != es[3].ID ||
			es[2].Command != "undo "+es[1].ID {
			t.Fatalf("entries %+v", es)
		}
		// Once more: the redo is undone (the default toggles).
		c.must("undo", "--yes")
		if got := c.must("get", `["r"]`); !strings.Contains(got, `"first"`) {
			t.Fatalf("after the third undo: %s", got)
		}
		// The second write was undone, redone, undone: naming it says
		// which undo to undo instead.
		es = c.entries()
		r := c.run("undo", "--yes", es[1].ID)
		if want := "undo " + es[4].ID + " instead"; r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Fatalf("undo of an undone entry: exit %d %s; want %q", r.code, r.stderr, want)
		}
	})
}

// TestKilledBetweenIntentAndOutcome: a kvdeck killed with SIGKILL after
// its intent line and before the commit leaves an entry that undo --list
// settles as not applied; killed after the commit and before its outcome
// line, as applied but not undoable. Each settlement is written once.
func TestKilledBetweenIntentAndOutcome(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c, state := journaled(t, b.URL(t))
		kill := func(at, key string) {
			cmd := childCommand(context.Background(), os.Args[0], []string{"XDG_STATE_HOME=" + state, envJournalBlock + "=" + at},
				"--db", c.url, "set", key, `"killed"`)
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
		kill("before", `["k", "before"]`)
		kill("after", `["k", "after"]`)
		r := c.run("-o", "json", "undo", "--list")
		if r.code != 0 {
			t.Fatal(r)
		}
		es := c.entries()
		if len(es) != 2 {
			t.Fatalf("entries %+v", es)
		}
		if e := es[0]; e.Outcome != "not-applied" || !e.Settled || e.Undoable {
			t.Errorf("killed before the commit: %+v", e)
		}
		if e := es[1]; e.Outcome != "applied" || !e.Settled || !e.BeforeUnknown || e.Undoable || e.Versionstamp == nil {
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
		r = c.run("undo", "--yes")
		if r.code != 1 || !strings.Contains(r.stderr, "cannot be undone") {
			t.Errorf("undo of the settled entry: %d %s", r.code, r.stderr)
		}
	})
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
