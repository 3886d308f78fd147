package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

// recorder is a `kvdeck record` running in this process.
type recorder struct {
	out, err storetest.Buffer
	cancel   context.CancelFunc
	done     chan int
	once     sync.Once
}

// startRecord runs kvdeck record on url with env until stop, and waits
// until it records.
func startRecord(t *testing.T, env map[string]string, url string) *recorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &recorder{cancel: cancel, done: make(chan int, 1)}
	go func() {
		r.done <- Main(ctx, []string{"--db", url, "record", "--interval", "30ms"}, strings.NewReader(""), &r.out, &r.err, env)
	}()
	t.Cleanup(func() { r.stop(t) })
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(r.err.String(), "kvdeck: recording") {
		if time.Now().After(deadline) {
			t.Fatalf("record did not start: %s", r.err.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return r
}

// points counts the points record has kept (its lines on stdout).
func (r *recorder) points() int { return strings.Count(r.out.String(), " changed\n") }

// waitPoint waits until record has kept a point more than it had.
func (r *recorder) waitPoint(t *testing.T, had int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for r.points() <= had {
		if time.Now().After(deadline) {
			t.Fatalf("record kept no point: %s %s", r.out.String(), r.err.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop interrupts record and waits for it (once).
func (r *recorder) stop(t *testing.T) {
	t.Helper()
	r.once.Do(func() {
		r.cancel()
		select {
		case <-r.done:
		case <-time.After(20 * time.Second):
			t.Error("record did not stop")
		}
	})
}

// TestRecordThenAt: kvdeck record follows a store (embedded file, sqld
// over HTTP and WebSocket) into its history file; --at, history, diff
// @TIME and put-back read it, say it is the source and what it cannot
// know, and put-back writes to the live store, checked and undoable.
func TestRecordThenAt(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, _ storetest.Backend) {
		state := t.TempDir()
		t.Setenv("TMPDIR", t.TempDir())
		env := map[string]string{"XDG_STATE_HOME": state}
		run := func(args ...string) result {
			t.Helper()
			return runMain(t, env, "", append([]string{"--db", c.url}, args...))
		}
		must := func(args ...string) string {
			t.Helper()
			r := run(args...)
			if r.code != 0 {
				t.Fatalf("%v: exit %d: %s %s", args, r.code, r.stdout, r.stderr)
			}
			return r.stdout
		}
		if r := run("--at=-1s", "get", `["lease"]`); r.code == 0 || !strings.Contains(r.stderr, "keeps no history kvdeck can read") {
			t.Fatalf("--at before any recording: %d %s", r.code, r.stderr)
		}
		must("set", `["lease"]`, `{"holder":"a"}`)
		must("set", `["n", 1]`, `1`)
		rec := startRecord(t, env, c.url)
		// The history file is private.
		files, _ := filepath.Glob(filepath.Join(state, "kvdeck", "history", "*.history.db"))
		if len(files) != 1 {
			t.Fatalf("history files %v", files)
		}
		if st, err := os.Stat(files[0]); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("history file mode %v %v", st.Mode(), err)
		}
		if st, err := os.Stat(filepath.Dir(files[0])); err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("history dir mode %v %v", st.Mode(), err)
		}
		had := rec.points()
		must("set", `["lease"]`, `{"holder":"b"}`)
		rec.waitPoint(t, had)
		had = rec.points()
		must("delete", `["lease"]`)
		rec.waitPoint(t, had)
		had = rec.points()
		must("set", `["n", 2]`, `2`)
		rec.waitPoint(t, had)
		rec.stop(t)

		points := pointsOf(t, env, "--db", c.url)
		if len(points) != 4 || points[0].Poll == 0 {
			t.Fatalf("points %+v", points)
		}
		out := must("history", `["lease"]`)
		for _, want := range []string{`{"holder":"a"}`, `{"holder":"b"}`, "no row", "none of 4 points restored", "kvdeck record's history"} {
			if !strings.Contains(out, want) {
				t.Fatalf("history of the lease lacks %q:\n%s", want, out)
			}
		}
		// The point where b held the lease, by its poll.
		b := points[1].Poll
		r := run("--at", "poll:"+itoa(b), "get", `["lease"]`)
		if r.code != 0 || !strings.Contains(r.stdout, `{"holder":"b"}`) || !strings.Contains(r.stderr, "kvdeck record's history") ||
			!strings.Contains(r.stderr, "between two polls is not in it") {
			t.Fatalf("--at poll %d: %d %s %s", b, r.code, r.stdout, r.stderr)
		}
		if r := run("diff", "@poll:"+itoa(b), c.url); r.code != 1 || !strings.Contains(r.stdout, `- ["lease"]`) || !strings.Contains(r.stdout, `+ ["n", 2]`) {
			t.Fatalf("diff @poll:%d: %d %s %s", b, r.code, r.stdout, r.stderr)
		}
		if r := run("diff", "@poll:"+itoa(b), "@poll:"+itoa(b)); r.code != 0 {
			t.Fatalf("one point on both sides: %d %s %s", r.code, r.stdout, r.stderr)
		}
		r = run("--at", "poll:"+itoa(b), "put-back", `["lease"]`, `["n", 1]`, "--yes")
		if r.code != 0 || !strings.Contains(r.stdout, "put back 1 key") || !strings.Contains(r.stdout, `= ["n", 1]  as it was`) {
			t.Fatalf("put-back: %d %s %s", r.code, r.stdout, r.stderr)
		}
		if got := must("get", `["lease"]`); !strings.Contains(got, `{"holder":"b"}`) {
			t.Fatalf("after put-back: %s", got)
		}
		must("undo", "--yes")
		if r := run("get", `["lease"]`); r.code != 1 {
			t.Fatalf("after undo: %s", r.stdout)
		}
	})
}

// TestPutBackRefusesAChangeSince: a key another writer changed after
// put-back read it is not overwritten: the write is refused whole,
// the key named, nothing written (the check runs in the commit itself:
// store.Restore).
func TestPutBackRefusesAChangeSince(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, _ storetest.Backend) {
		env := map[string]string{"XDG_STATE_HOME": t.TempDir()}
		t.Setenv("TMPDIR", t.TempDir())
		runMain(t, env, "", []string{"--db", c.url, "set", `["a"]`, `"old"`})
		rec := startRecord(t, env, c.url)
		rec.stop(t)
		runMain(t, env, "", []string{"--db", c.url, "set", `["a"]`, `"new"`})
		runMain(t, env, "", []string{"--db", c.url, "set", `["b"]`, `"b"`})
		// Another writer between put-back's read and its write: the
		// journal's Before hook is the last moment before the commit.
		var once sync.Once
		opt := func(o *options) {
			o.wrapRecorder = func(r store.Recorder) store.Recorder {
				return changingRecorder{Recorder: r, once: &once, change: func() {
					w := storetest.Open(t, c.url, store.Options{})
					defer w.Close()
					if _, err := w.Set(context.Background(), storetest.Key(t, `["a"]`), []byte(`"third"`), nil); err != nil {
						t.Error(err)
					}
				}}
			}
		}
		r := runMain(t, env, "", []string{"--db", c.url, "--at", "poll:1", "put-back", `["a"]`, `["b"]`, "--yes"}, opt)
		if r.code != 1 || !strings.Contains(r.stderr, "put-back refused, nothing was written") || !strings.Contains(r.stderr, `["a"]`) {
			t.Fatalf("put-back over a change: %d %s %s", r.code, r.stdout, r.stderr)
		}
		got := runMain(t, env, "", []string{"--db", c.url, "list"})
		if !strings.Contains(got.stdout, `"third"`) || !strings.Contains(got.stdout, `["b"]`) {
			t.Fatalf("after the refusal: %s", got.stdout)
		}
	})
}

// TestAtOpensTheTUIOnThePast: the TUI opened --at gets the past store,
// read-only, with the point and the store it is the past of for its
// status bar, and the clock fixed at the point.
func TestAtOpensTheTUIOnThePast(t *testing.T) {
	c := &cli{t: t, url: storetest.File().URL(t), now: storetest.T0}
	c.must("init")
	env := map[string]string{"XDG_STATE_HOME": t.TempDir()}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	runMain(t, env, "", []string{"--db", c.url, "set", `["a"]`, `1`})
	rec := startRecord(t, env, c.url)
	rec.stop(t)
	var got tuiconfig.Config
	var ro bool
	var value string
	tui := WithTUI(func(ctx context.Context, s *store.Store, cfg tuiconfig.Config) error {
		got, ro = cfg, s.Info().ReadOnly
		// The restore is in a private directory while it is shown.
		dirs, _ := filepath.Glob(filepath.Join(tmp, "kvdeck-at-*"))
		files, _ := filepath.Glob(filepath.Join(tmp, "kvdeck-at-*", "*", "*.db"))
		if len(dirs) != 1 || len(files) != 1 {
			t.Errorf("restore dirs %v files %v", dirs, files)
		} else if d, f := mode(t, dirs[0]), mode(t, files[0]); d != 0o700 || f != 0o600 {
			t.Errorf("restore dir %v, file %v", d, f)
		}
		e, _, err := s.Get(ctx, storetest.Key(t, `["a"]`))
		value = string(e.Value)
		return err
	})
	runMain(t, env, "", []string{"--db", c.url, "set", `["a"]`, `2`})
	r := runMain(t, env, "", []string{"--db", c.url, "--at", "poll:1"}, tui)
	if r.code != 0 || !ro || value != "1" || !strings.HasPrefix(got.Past, "poll 1 · ") || got.PastOf != c.url {
		t.Fatalf("TUI --at: exit %d, read-only %v, value %q, past %q of %q: %s", r.code, ro, value, got.Past, got.PastOf, r.stderr)
	}
	if got.Clock.Describe() == "" {
		t.Fatal("the clock is not fixed at the point")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the restore stays after the TUI: %v", left)
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
