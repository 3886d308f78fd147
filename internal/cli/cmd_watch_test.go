package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/cli"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// watchProc is a running `kvdeck watch` process.
type watchProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string
	errs  chan string
	done  chan int
	// before holds what watch said on stderr before "watching".
	before []string
}

// startWatch runs kvdeck with args in a process and waits until it
// watches.
func startWatch(t *testing.T, args ...string) *watchProc {
	t.Helper()
	cmd := cli.KvdeckProcess(context.Background(), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &watchProc{t: t, cmd: cmd, lines: make(chan string, 100), errs: make(chan string, 100), done: make(chan int, 1)}
	pump := func(r io.Reader, ch chan string) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 8<<20) // a whole 1 MB value on a line
		for sc.Scan() {
			ch <- sc.Text()
		}
		close(ch)
	}
	go pump(stdout, p.lines)
	go pump(stderr, p.errs)
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	for {
		select {
		case line := <-p.errs:
			if strings.Contains(line, "kvdeck: watching") {
				return p
			}
			if !strings.HasPrefix(line, "kvdeck: watch: ") {
				t.Fatalf("watch said %q", line)
			}
			p.before = append(p.before, line)
		case <-time.After(30 * time.Second):
			t.Fatal("watch did not start")
		}
	}
}

// next returns the next line of output, failing after 30 s.
func (p *watchProc) next() watchLine {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("watch ended")
		}
		var l watchLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			p.t.Fatalf("line %q: %v", line, err)
		}
		l.text = line
		return l
	case <-time.After(30 * time.Second):
		p.t.Fatal("no change printed within 30 s")
	}
	return watchLine{}
}

// textLine returns the next line of -o text output, failing after 30 s.
func (p *watchProc) textLine() string {
	p.t.Helper()
	select {
	case line := <-p.lines:
		return line
	case <-time.After(30 * time.Second):
		p.t.Fatal("no line")
	}
	return ""
}

// ended fails unless watch --once exits 0.
func (p *watchProc) ended() {
	p.t.Helper()
	if err := p.cmd.Wait(); err != nil {
		p.t.Errorf("--once: %v", err)
	}
}

// quiet fails when a line is printed within d.
func (p *watchProc) quiet(d time.Duration) {
	p.t.Helper()
	select {
	case line := <-p.lines:
		p.t.Fatalf("unexpected line %q", line)
	case <-time.After(d):
	}
}

// interrupt sends SIGINT and returns the exit code.
func (p *watchProc) interrupt() int {
	p.t.Helper()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		p.t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		p.t.Fatal("watch did not exit on interrupt")
	}
	return p.cmd.ProcessState.ExitCode()
}

type watchRow struct {
	Value        json.RawMessage `json:"value"`
	Versionstamp string          `json:"versionstamp"`
	ExpiresAt    *int64          `json:"expiresAt"`
}

type watchLine struct {
	Change string    `json:"change"`
	Key    codec.Key `json:"key"`
	Old    *watchRow `json:"old"`
	New    *watchRow `json:"new"`
	text   string
}

// is checks a line: change, key, old value (or "" for none), new value
// (or "" for none).
func (l watchLine) is(t *testing.T, change, key, old, cur string) watchLine {
	t.Helper()
	val := func(r *watchRow) string {
		if r == nil {
			return ""
		}
		return string(r.Value)
	}
	if l.Change != change || codec.Format(l.Key) != key || val(l.Old) != old || val(l.New) != cur {
		t.Errorf("got %s\nwant %s %s old=%s new=%s", l.text, change, key, old, cur)
	}
	return l
}

// TestWatch: a watch process on a file and on sqld sees another process's
// sets, atomic commits, deletes and an expiry under the virtual clock:
// each change once, sets in stamp order with the old row it saw,
// deletions and expiries marked; nothing outside the watched prefix; it
// exits with 130 on interrupt.
func TestWatch(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		// Both processes run an hour behind (a virtual clock).
		const offset = -time.Hour
		clock := func() int64 { return time.Now().Add(offset).UnixMilli() }
		s := storetest.Open(t, url, store.Options{Clock: clock})
		ctx := storetest.Ctx(t)
		key := func(text string) codec.Key { return storetest.Key(t, text) }
		set := func(k, v string) {
			t.Helper()
			if _, err := s.Set(ctx, key(k), []byte(v), nil); err != nil {
				t.Fatal(err)
			}
		}
		set(`["w", "pre"]`, `0`)
		set(`["other"]`, `0`)
		w := startWatch(t, "--db", url, "--clock-offset="+offset.String(), "watch", `["w"]`, "--interval", "20ms")

		set(`["w", "a"]`, `1`)
		a1 := w.next().is(t, "set", `["w", "a"]`, "", "1")
		set(`["other"]`, `1`) // not watched
		if _, err := s.Atomic().Set(key(`["w", "b"]`), []byte(`2`)).Set(key(`["w", "a"]`), []byte(`3`)).Set(key(`["other"]`), []byte(`2`)).Commit(ctx); err != nil {
			t.Fatal(err)
		}
		a3 := w.next().is(t, "set", `["w", "a"]`, "1", "3")
		b2 := w.next().is(t, "set", `["w", "b"]`, "", "2")
		if a3.Old.Versionstamp != a1.New.Versionstamp || a3.New.Versionstamp != b2.New.Versionstamp || a3.New.Versionstamp <= a1.New.Versionstamp {
			t.Errorf("stamps: %s then %s and %s", a1.text, a3.text, b2.text)
		}
		if err := s.Delete(ctx, key(`["w", "pre"]`)); err != nil {
			t.Fatal(err)
		}
		w.next().is(t, "delete", `["w", "pre"]`, "0", "")
		if _, err := s.Atomic().Delete(key(`["w", "b"]`)).Set(key(`["w", "c"]`), []byte(`4`)).Commit(ctx); err != nil {
			t.Fatal(err)
		}
		w.next().is(t, "delete", `["w", "b"]`, "2", "")
		w.next().is(t, "set", `["w", "c"]`, "", "4")
		ttl := 2 * time.Second // long enough to be seen live by a poll on a loaded machine
		if _, err := s.Set(ctx, key(`["w", "e"]`), []byte(`5`), &ttl); err != nil {
			t.Fatal(err)
		}
		e := w.next().is(t, "set", `["w", "e"]`, "", "5")
		if e.New.ExpiresAt == nil {
			t.Error("the expiring row has no expiresAt")
		}
		w.next().is(t, "expire", `["w", "e"]`, "5", "")
		w.quiet(200 * time.Millisecond)
		if code := w.interrupt(); code != cli.CodeInterrupted {
			t.Errorf("exit %d on interrupt, want %d", code, cli.CodeInterrupted)
		}
		for line := range w.lines {
			t.Errorf("after the interrupt: %q", line)
		}
	})
}

// TestWatchOnceExactText: --once exits 0 after the first change; --exact
// ignores the keys under the watched one; -o text prints a sanitized line.
func TestWatchOnceExactText(t *testing.T) {
	url := storetest.File().URL(t)
	s := storetest.Open(t, url, store.Options{})
	ctx := storetest.Ctx(t)
	if _, err := s.Set(ctx, storetest.Key(t, `["k"]`), []byte(`0`), nil); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, "--db", url, "-o", "text", "watch", "--once", "--exact", `["k"]`, `["absent"]`, "--interval", "20ms")
	if _, err := s.Set(ctx, storetest.Key(t, `["k", "under"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	w.quiet(200 * time.Millisecond)
	if _, err := s.Set(ctx, storetest.Key(t, `["k"]`), []byte(`"\u001b]52;c;x\u0007"`), nil); err != nil {
		t.Fatal(err)
	}
	if line := w.textLine(); !strings.Contains(line, `set     ["k"]  v=00000000000000000001 -> v=00000000000000000003`) || strings.ContainsAny(line, "\x1b\x07") {
		t.Errorf("text line %q", line)
	}
	w.ended()
}

// TestWatchTextTimesFixedWidth: -o text writes every time with three
// millisecond digits (.100 not .1, .000 not none), so the column of times
// that starts each line keeps its width whatever the milliseconds are.
func TestWatchTextTimesFixedWidth(t *testing.T) {
	url := storetest.File().URL(t)
	s := storetest.Open(t, url, store.Options{Clock: func() int64 { return storetest.T0 }})
	ctx := storetest.Ctx(t)
	w := startWatch(t, "--db", url, "--now", "2026-01-02T00:00:00.100Z", "-o", "text", "watch", "--once", `["k"]`, "--interval", "20ms")
	minute := time.Minute
	if _, err := s.Set(ctx, storetest.Key(t, `["k"]`), []byte(`1`), &minute); err != nil {
		t.Fatal(err)
	}
	want := `2026-01-02T00:00:00.100Z  set     ["k"]  new v=00000000000000000001  1  expires=2026-01-02T00:01:00.000Z`
	if line := w.textLine(); line != want {
		t.Errorf("text line\n%s\nwant\n%s", line, want)
	}
	w.ended()
}

// TestWatchBadInput: bad keys and intervals are refused before anything
// is read.
func TestWatchBadInput(t *testing.T) {
	url := storetest.File().URL(t)
	for _, args := range [][]string{
		{"watch"},
		{"watch", `["k"`},
		{"watch", `["k"]`, "--interval", "1ms"},
	} {
		var out, errb strings.Builder
		code := cli.Main(context.Background(), append([]string{"--db", url}, args...), strings.NewReader(""), &out, &errb, map[string]string{"XDG_STATE_HOME": t.TempDir()})
		if code != cli.CodeError || out.Len() != 0 || errb.Len() == 0 {
			t.Errorf("%q: exit %d, %q %q", args, code, out.String(), errb.String())
		}
		fmt.Fprint(io.Discard, errb.String())
	}
}

// TestWatchOnceOneLineTextShort: --once prints one
// line though the poll found several changes; -o text shows a set's old
// value beside the new one, and cuts a long value (1 MB) short.
func TestWatchOnceOneLineTextShort(t *testing.T) {
	url := storetest.File().URL(t)
	s := storetest.Open(t, url, store.Options{})
	ctx := storetest.Ctx(t)
	key := func(text string) codec.Key { return storetest.Key(t, text) }
	if _, err := s.Set(ctx, key(`["k", "a"]`), []byte(`"old"`), nil); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, "--db", url, "-o", "text", "watch", "--once", `["k"]`, "--interval", "500ms")
	big := `"` + strings.Repeat("x", 1<<20) + `"`
	if _, err := s.Atomic().Set(key(`["k", "a"]`), []byte(`"new"`)).Set(key(`["k", "b"]`), []byte(big)).Set(key(`["k", "c"]`), []byte(`3`)).Commit(ctx); err != nil {
		t.Fatal(err)
	}
	w.ended()
	var lines []string
	for line := range w.lines {
		lines = append(lines, line)
	}
	if len(lines) != 1 {
		t.Fatalf("--once printed %d lines, want 1: %.300q", len(lines), lines)
	}
	if !strings.Contains(lines[0], `"old" -> "new"`) {
		t.Errorf("a set's text line shows no old value: %q", lines[0])
	}
	// The 1 MB value, watched without --once: cut short.
	w = startWatch(t, "--db", url, "-o", "text", "watch", `["k", "b"]`, "--interval", "20ms")
	if _, err := s.Set(ctx, key(`["k", "b"]`), []byte(big[:len(big)-1]+`y"`), nil); err != nil {
		t.Fatal(err)
	}
	// The old value (1 MB) is over what a watch keeps: not shown.
	if line := w.textLine(); len(line) > 400 || !strings.Contains(line, `(value not kept) -> "xxx`) || !strings.Contains(line, "… (1048579 bytes)") {
		t.Errorf("a 1 MB value's text line: %d bytes, %.400q", len(line), line)
	}
}
