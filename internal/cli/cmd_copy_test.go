package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// copyLines parses copy's JSON lines: the keys' rows and the summary.
func copyLines(t *testing.T, out string) (map[string]copyRow, copySummary) {
	t.Helper()
	rows := map[string]copyRow{}
	var sum copySummary
	for _, l := range lines(out) {
		if strings.Contains(l, `"summary":true`) {
			if err := json.Unmarshal([]byte(l), &sum); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var r copyRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		rows[r.Key.String()] = r
	}
	return rows, sum
}

// TestCopy: copy between saved stores (a file and a real sqld, each way):
// a key absent in the target is created, one with another value is
// skipped (exit 1) unless --overwrite, one that already holds the value is
// not written, --dry-run writes nothing, the writes are journaled as
// "copy", a target saved read-only is refused without --write, and an
// unknown store name is refused with the names.
func TestCopy(t *testing.T) {
	srv := sqldtest.Start(t)
	file := "file:" + filepath.Join(t.TempDir(), "a.db")
	for _, tc := range []struct{ name, from, to string }{{"file to sqld", file, srv.URL}, {"sqld to file", srv.URL, file}} {
		t.Run(tc.name, func(t *testing.T) {
			env := storesEnv(t)
			now := strconv.FormatInt(storetest.T0, 10)
			at := func(url string, args ...string) { t.Helper(); mustAt(t, env, url, storetest.T0, args...) }
			p := `["p` + strconv.Itoa(len(tc.name)+len(tc.from)) + `"`
			at(tc.from, "set", p+`, "new"]`, `{"a":1}`, "--expire-in", "1h")
			at(tc.from, "set", p+`, "same"]`, `2`)
			at(tc.from, "set", p+`, "diff"]`, `"mine"`)
			at(tc.from, "set", `["outside"]`, `1`)
			at(tc.to, "set", p+`, "same"]`, `2`)
			at(tc.to, "set", p+`, "diff"]`, `"theirs"`)
			configFile(t, env, `[stores.src]
url = "`+tc.from+`"
[stores.dst]
url = "`+tc.to+`"
read_only = false
[stores.dst-ro]
url = "`+tc.to+`"
`, 0o600)
			run := func(args ...string) result {
				return runMain(t, env, "", append([]string{"--now", now, "-o", "json", "copy", "--from", "src", "--to", "dst", p + "]"}, args...))
			}
			// A hostile key: escaped in the text output, never raw.
			at(tc.from, "set", p+`, "\u001b]52;c;aGk=\u0007"]`, `1`)
			r := runMain(t, env, "", []string{"--now", now, "copy", "--dry-run", "--from", "src", "--to", "dst", p + "]"})
			if strings.ContainsAny(r.stdout, "\x1b\x07") || !strings.Contains(r.stdout, `\u001b]52`) {
				t.Errorf("a key reached the terminal raw: %q", r.stdout)
			}
			at(tc.from, "delete", p+`, "\u001b]52;c;aGk=\u0007"]`)
			r = run("--dry-run")
			rows, sum := copyLines(t, r.stdout)
			if r.code != CodeNotDone || rows[p+`, "new"]`].Action != "create" || sum.Unchanged != 1 ||
				rows[p+`, "diff"]`].Action != "skip" || sum.Commits != 0 || !sum.DryRun || len(rows) != 2 {
				t.Fatalf("dry run: %+v", r)
			}
			at(tc.to, "get", p+`, "diff"]`) // still there
			if r := runMain(t, env, "", []string{"--db", tc.to, "--now", now, "get", p + `, "new"]`}); r.code != CodeNotDone {
				t.Fatalf("the dry run wrote: %+v", r)
			}

			r = run()
			rows, sum = copyLines(t, r.stdout)
			if r.code != CodeNotDone || sum.Created != 1 || sum.Skipped != 1 || sum.Unchanged != 1 || sum.Commits != 1 || rows[p+`, "diff"]`].Target == "" {
				t.Fatalf("copy: %+v", r)
			}
			g := runMain(t, env, "", []string{"--db", tc.to, "--now", now, "-o", "json", "get", p + `, "new"]`})
			if !strings.Contains(g.stdout, `"value":{"a":1}`) || !strings.Contains(g.stdout, `"expiresAt":`+strconv.FormatInt(storetest.T0+3600_000, 10)) {
				t.Errorf("the created key (value and expiry copied): %+v", g)
			}
			if g := runMain(t, env, "", []string{"--db", tc.to, "-o", "json", "get", p + `, "diff"]`}); !strings.Contains(g.stdout, `"theirs"`) {
				t.Errorf("overwritten without --overwrite: %+v", g)
			}
			if u := runMain(t, env, "", []string{"--db", tc.to, "undo", "--list"}); !strings.Contains(u.stdout, "copy ") {
				t.Errorf("not journaled as copy: %+v", u)
			}

			r = run("--overwrite")
			if _, sum = copyLines(t, r.stdout); r.code != 0 || sum.Overwritten != 1 || sum.Created != 0 || sum.Unchanged != 2 || sum.Commits != 1 {
				t.Fatalf("--overwrite: %+v", r)
			}
			// Nothing left to change: no commit (seq does not move).
			seq := runMain(t, env, "", []string{"--db", tc.to, "stats", "-o", "json"}).stdout
			r = run("--overwrite")
			if _, sum = copyLines(t, r.stdout); r.code != 0 || sum.Unchanged != 3 || sum.Commits != 0 {
				t.Fatalf("a copy that changes nothing: %+v", r)
			}
			if again := runMain(t, env, "", []string{"--db", tc.to, "stats", "-o", "json"}).stdout; again != seq {
				t.Errorf("a copy that changes nothing wrote:\n%s\n%s", seq, again)
			}

			r = runMain(t, env, "", []string{"copy", "--from", "src", "--to", "dst-ro", p + "]"})
			if r.code != CodeError || !strings.Contains(r.stderr, "store dst-ro is saved read-only; give --write") {
				t.Errorf("read-only target: %+v", r)
			}
			if tc.to == file {
				r = runMain(t, env, "", []string{"copy", "--from", strings.TrimPrefix(file, "file:"), "--to", "dst", p + "]"})
				if r.code != CodeError || !strings.Contains(r.stderr, "--from and --to are the same store") {
					t.Errorf("the same file by another URL form: %+v", r)
				}
			}
			r = runMain(t, env, "", []string{"copy", "--from", "src", "--to", "dts", p + "]"})
			if r.code != CodeError || !strings.Contains(r.stderr, `"dts"`) || !strings.Contains(r.stderr, "dst, dst-ro, src") {
				t.Errorf("unknown store: %+v", r)
			}
		})
	}
}

// changingRecorder writes to the target once, just before the first
// commit copy sends (after copy read the target): the commit's check must
// fail, and copy plan the batch again instead of overwriting.
type changingRecorder struct {
	store.Recorder
	once   *sync.Once
	change func()
}

func (c changingRecorder) Before(ctx context.Context, w store.PendingWrite) (string, error) {
	c.once.Do(c.change)
	return c.Recorder.Before(ctx, w)
}

// TestCopyChecked: a key the target gets between copy's read and its
// commit is not overwritten: the check fails, the batch is read again and
// the key is then reported as differing.
func TestCopyChecked(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		env := storesEnv(t)
		src := "file:" + filepath.Join(t.TempDir(), "src.db")
		set := func(db string, args ...string) {
			t.Helper()
			mustMain(t, env, append([]string{"--db", db, "set"}, args...)...)
		}
		set(src, `["q", 1]`, `"src"`)
		set(src, `["q", 2]`, `"src"`)
		set(url, `["other"]`, `1`)
		var once sync.Once
		opt := func(o *options) {
			o.wrapRecorder = func(r store.Recorder) store.Recorder {
				return changingRecorder{Recorder: r, once: &once, change: func() {
					raw := storetest.Open(t, url, store.Options{})
					if _, err := raw.Set(context.Background(), storetest.Key(t, `["q", 2]`), []byte(`"theirs"`), nil); err != nil {
						t.Error(err)
					}
				}}
			}
		}
		r := runMain(t, env, "", []string{"-o", "json", "copy", "--from", src, "--to", url, `["q"]`}, opt)
		rows, sum := copyLines(t, r.stdout)
		if r.code != CodeNotDone || sum.Created != 1 || sum.Skipped != 1 || rows[`["q", 2]`].Action != "skip" || sum.Commits != 1 {
			t.Fatalf("%+v", r)
		}
		if g := runMain(t, env, "", []string{"--db", url, "get", `["q", 2]`}); !strings.Contains(g.stdout, "theirs") {
			t.Errorf("the key changed meanwhile was overwritten: %+v", g)
		}
	})
}

// afterRecorder calls after once the first write's outcome is recorded.
type afterRecorder struct {
	store.Recorder
	once  *sync.Once
	after func()
}

func (a afterRecorder) After(ctx context.Context, id string, r store.WriteResult) {
	a.Recorder.After(ctx, id, r)
	a.once.Do(a.after)
}

// TestCopyInterruptedSaysWhatItCopied: a copy interrupted after its first
// commit (of three) prints the summary of what it wrote, and says on
// stderr that it stopped and after what; the exit code is the interrupt's.
// Before, it printed the interrupt alone: what was already copied went
// unsaid.
func TestCopyInterruptedSaysWhatItCopied(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		env := storesEnv(t)
		src := "file:" + filepath.Join(t.TempDir(), "src.db")
		var in strings.Builder
		for i := range 1200 {
			fmt.Fprintf(&in, `{"key":[{"type":"string","value":"q"},{"type":"string","value":"%04d"}],"value":%d}`+"\n", i, i)
		}
		if r := runMain(t, env, in.String(), []string{"--db", src, "load", "-"}); r.code != 0 {
			t.Fatalf("%+v", r)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var once sync.Once
		opt := func(o *options) {
			o.wrapRecorder = func(r store.Recorder) store.Recorder {
				return afterRecorder{Recorder: r, once: &once, after: cancel}
			}
		}
		var out, errb bytes.Buffer
		code := Main(ctx, []string{"-o", "json", "copy", "--from", src, "--to", url, `["q"]`}, strings.NewReader(""), &out, &errb, env, opt)
		_, sum := copyLines(t, out.String())
		if code != CodeInterrupted || !sum.Summary || sum.Created != copyBatch || sum.Commits != 1 {
			t.Errorf("exit %d, summary %+v; want %d, the first commit's %d created", code, sum, CodeInterrupted, copyBatch)
		}
		if !strings.Contains(errb.String(), "copy stopped after 1 commit (500 rows created, 0 overwritten") {
			t.Errorf("stderr %q does not say where copy stopped", errb.String())
		}
	})
}
