package reader

import (
	"fmt"
	"kvdeck/views"
	"kvdeck/views/viewtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pipeTo types text at the pipe prompt (opened with |) and runs it.
func pipeTo(h interface {
	Keys(...string)
	TypeText(string)
}, text string) {
	h.Keys("|", "end", "ctrl+u")
	h.TypeText(text)
	h.Keys("enter")
}

// TestPipeFilterShowsItsOutput: | with a command that is not a pager
// (wc -c) runs it while the TUI stays and shows its output in the entry
// pane, from the tree and from the reader; esc closes the output, back to
// where | was pressed. Under L the command still reads JSON (cat gives
// back the \n escapes, not lines), and a failing command says its exit
// status and shows its errors. It was run with the terminal, its output
// printed to the shell only after quitting.
func TestPipeFilterShowsItsOutput(t *testing.T) {
	h := newHarness(t, 80, 18)
	value := `{"poem":"one\ntwo","tags":["a","b"]}`
	setValue(t, h, `["pipe", "me"]`, []byte(value))
	goTo(h, `["pipe", "me"]`)
	want := valueText([]byte(value), false) + "\n"

	pipeTo(h, "wc -c")
	if !h.M.reader.Reading() {
		t.Fatalf("wc -c showed no output (flashes %v)\n%s", h.Flashes, h.M.View())
	}
	h.RequireView("| wc -c", "exit 0", fmt.Sprint(len(want)))
	h.Keys("esc")
	if h.M.reader.Reading() {
		t.Fatalf("esc left the output open\n%s", h.M.View())
	}

	h.Keys("v", "L")
	pipeTo(h, "cat")
	got := strings.Join(h.M.reader.out.lines, "\n") + "\n"
	if got != want {
		t.Errorf("under L cat read %q, want the JSON %q", got, want)
	}
	h.Keys("esc")
	if !h.M.reader.Reading() || h.M.reader.out != nil || !h.M.reader.lines {
		t.Fatalf("esc did not go back to the reader, L on\n%s", h.M.View())
	}

	pipeTo(h, "echo no such thing >&2; exit 4")
	h.RequireView("exit 4", "no such thing")
}

// TestPipeFilterStopsOnEsc: esc stops a filter that runs (the TUI never
// waits on it) and says so.
func TestPipeFilterStopsOnEsc(t *testing.T) {
	h := newHarness(t, 80, 18)
	h.Parked = func(m host) int {
		if o := m.reader.out; o != nil && o.running && !o.stopped {
			return 1
		}
		return 0
	}
	setValue(t, h, `["pipe", "slow"]`, []byte(`"x"`))
	goTo(h, `["pipe", "slow"]`)
	pipeTo(h, "sleep 30")
	h.RequireView("running… esc stops it")
	h.Keys("esc")
	h.RequireView("| sleep 30", "stopped")
	h.Keys("esc")
	if h.M.reader.Reading() {
		t.Fatal("esc left the output open")
	}
}

// TestPipeHistory: the prompt opens on the last command run; up and down
// go through the commands typed, the newest last, each once.
func TestPipeHistory(t *testing.T) {
	h := newHarness(t, 80, 18)
	setValue(t, h, `["pipe", "me"]`, []byte(`{"a":1}`))
	goTo(h, `["pipe", "me"]`)
	for _, c := range []string{"wc -c", "cat", "wc -c"} {
		pipeTo(h, c)
		h.Keys("esc")
	}
	h.Keys("|")
	if v := h.M.reader.pipe.Value(); v != "wc -c" {
		t.Fatalf("the prompt opened on %q, want the last command", v)
	}
	var seen []string
	for range 3 {
		h.Keys("up")
		seen = append(seen, h.M.reader.pipe.Value())
	}
	if got := strings.Join(seen, ","); got != "wc -c,cat,cat" {
		t.Errorf("up went through %q", got)
	}
	h.Keys("down", "down")
	if v := h.M.reader.pipe.Value(); v != "" {
		t.Errorf("down past the newest shows %q, want an empty prompt", v)
	}
}

// TestIsPager: a line whose last command is a pager ($PAGER's, or a
// known one) gets the terminal; any other is a filter.
func TestIsPager(t *testing.T) {
	t.Setenv("PAGER", "mypager -R")
	for text, want := range map[string]bool{
		"less -S": true, "jq -C . | less -R": true, "/usr/bin/less": true, "LESS=x less": true,
		"mypager": true, "bat -l json": true,
		"wc -c": false, "jq -c .tags": false, "less -S | wc -l": false, "cat > out": false, "": false,
	} {
		if got := isPager(text); got != want {
			t.Errorf("isPager(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestPipeHistoryKept: the commands typed are kept across sessions in
// the state directory (0600, its directory 0700): a new reader's prompt
// opens on the last command of the one before, and up goes further back.
func TestPipeHistoryKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kvdeck")
	s, clock, _ := viewtest.Reference(t, false)
	withState := func(d *views.Deps) { d.StateDir = dir }
	h := viewtest.Start[host, *host](t, s, clock, 80, 18, newHost, withState)
	setValue(t, h, `["pipe", "me"]`, []byte(`{"a":1}`))
	goTo(h, `["pipe", "me"]`)
	pipeTo(h, "cat")
	h.Keys("esc")
	pipeTo(h, "wc -c")
	h.Keys("esc")
	st, err := os.Stat(filepath.Join(dir, historyFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the history file: %v %v", st, err)
	}
	if d, err := os.Stat(dir); err != nil || d.Mode().Perm() != 0o700 {
		t.Fatalf("the state directory: %v %v", d, err)
	}

	next := viewtest.Start[host, *host](t, s, clock, 80, 18, newHost, withState)
	goTo(next, `["pipe", "me"]`)
	next.Keys("|")
	if v := next.M.reader.pipe.Value(); v != "wc -c" {
		t.Fatalf("a new session's prompt opened on %q, want the last command kept", v)
	}
	next.Keys("up", "up")
	if v := next.M.reader.pipe.Value(); v != "cat" {
		t.Fatalf("up went to %q, want the command before", v)
	}
}
