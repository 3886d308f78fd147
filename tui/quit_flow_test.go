package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"kvdeck/internal/journal"
	"kvdeck/internal/storetest"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// editHooli opens ["accounts", "hooli"]'s value (true) in Browse's form
// and types text over it: an edit not saved.
func editHooli(t *testing.T, a *app, text string) {
	t.Helper()
	a.command(`goto ["accounts", "hooli"]`)
	a.waitFor("6f6f6c6900") // the hex's end: at 60 columns the hex wraps
	a.keys("e")
	a.waitFor("EDIT", "saves only if")
	a.keys("end", "ctrl+u")
	a.tm.Type(text)
	a.waitFor(text)
}

// typeMine is the edit the quit tests leave unsaved.
func typeMine(t *testing.T, a *app) {
	t.Helper()
	editHooli(t, a, `{"plan":"mine"}`)
}

// takeInvoices takes a batch of the queue invoices in Queues (t, y):
// its messages are claimed out of the queue, held until decided.
func takeInvoices(t *testing.T, a *app) {
	t.Helper()
	a.keys("4")
	a.waitFor("QUEUES", "ready ·")
	a.keys("t")
	a.waitFor("Poll invoices: claim")
	a.keys("y")
	a.waitFor("CLAIMED")
}

// stateDir points the state directory (where kept text goes) at a
// directory of the test's own and returns its getenv.
func stateDir(t *testing.T) (string, func(string) string) {
	t.Helper()
	dir := t.TempDir()
	return filepath.Join(dir, "kvdeck"), func(k string) string {
		if k == "XDG_STATE_HOME" {
			return dir
		}
		return ""
	}
}

// finalAfterKeys waits for the program to end by itself (a key quit it).
func (a *app) finalAfterKeys() model {
	a.t.Helper()
	return a.tm.FinalModel(a.t, teatest.WithFinalTimeout(10*time.Second)).(model)
}

// TestCtrlCWithUnsavedEditAsks: ctrl+c with an edit not saved asked
// nothing and dropped it; it asks now, naming the edit, n stays with the
// text, and ctrl+c on the question quits (twice always quits). On the way
// out the text is kept in a 0600 file under the state directory and the
// last line printed says how to write it.
func TestCtrlCWithUnsavedEditAsks(t *testing.T) {
	a := reference(t, false, 120, 40)
	typeMine(t, a)
	a.keys("ctrl+c")
	a.waitFor("Quit and give up what is not saved?", `your edit of ["accounts", "hooli"], not saved`)
	a.keys("n")
	// A wait between: the screen drawn again the same would write nothing.
	a.waitFor("cancelled: quit and give up")
	a.keys("ctrl+c")
	a.waitFor("Quit and give up what is not saved?")
	a.keys("ctrl+c")
	m := a.finalAfterKeys()
	if f := m.tabs.browse.Held(); len(f) != 1 || string(f[0].Keep) != `{"plan":"mine"}` {
		t.Fatalf("the text typed was lost before the quit: %+v", f)
	}
	dir, getenv := stateDir(t)
	lines := m.exitReport(getenv, os.Getpid())
	if len(lines) != 1 {
		t.Fatalf("exit report: %q", lines)
	}
	last := lines[len(lines)-1]
	path := keptPath(t, last, dir)
	want := `kvdeck --db 'file:` + m.info.Display[len("file:"):] + `' set '["accounts", "hooli"]' - < '` + path + `' writes it`
	if !strings.HasSuffix(last, want) {
		t.Errorf("the last line:\n%s\nwant it to end with\n%s", last, want)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != `{"plan":"mine"}` {
		t.Fatalf("kept %q (%v)", b, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("the kept file is %v, want 0600", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Errorf("its directory is %v, want 0700", st.Mode().Perm())
	}
}

// keptPath is the path of the file a report line says it kept text in.
func keptPath(t *testing.T, line, dir string) string {
	t.Helper()
	_, rest, ok := strings.Cut(line, "kept in ")
	if !ok {
		t.Fatalf("the line names no kept file: %s", line)
	}
	path := strings.TrimRight(strings.Fields(rest)[0], ":;")
	if filepath.Dir(path) != filepath.Join(dir, unsavedDir) {
		t.Fatalf("kept in %s, want under %s", path, filepath.Join(dir, unsavedDir))
	}
	return path
}

// TestCtrlCNothingHeldQuits: with nothing held, ctrl+c quits at once (no
// question), and nothing is printed on the way out.
func TestCtrlCNothingHeldQuits(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.keys("ctrl+c")
	m := a.finalAfterKeys()
	_, getenv := stateDir(t)
	if m.dialog() != nil || len(m.exitReport(getenv, os.Getpid())) != 0 {
		t.Fatalf("dialog open %v, report %q", (m.dialog() != nil), m.exitReport(getenv, os.Getpid()))
	}
}

// TestCtrlCWithClaimedBatch: ctrl+c while a batch taken from a queue is
// held quit at once and left its messages deleted from the queue; it asks
// now, and quitting anyway prints, last, the undo of the take (one
// action, its claims), which puts every message back as it was.
func TestCtrlCWithClaimedBatch(t *testing.T) {
	a, _ := journaled(t)
	was := readyOf(t, a, "invoices")
	takeInvoices(t, a)
	a.keys("ctrl+c")
	a.waitFor("Quit and give up what is not saved?", "claimed from invoices and not decided")
	a.keys("ctrl+c")
	m := a.finalAfterKeys()
	held := m.tabs.queues.Held()
	if len(held) != 1 {
		t.Fatalf("held after the quit: %+v", held)
	}
	n := readyOf(t, a, "invoices")
	if n >= was {
		t.Fatalf("the claim took nothing out of the queue (%d ready)", n)
	}
	_, getenv := stateDir(t)
	lines := m.exitReport(getenv, os.Getpid())
	last := lines[len(lines)-1]
	ids := undoIDs(last)
	if !strings.HasSuffix(last, " puts them back") || len(ids) != 1 || !strings.Contains(last, "their bodies are kept in ") {
		t.Fatalf("the last line does not say how to put the batch back: %s", last)
	}
	j := journal.Of(a.s)
	for _, id := range ids {
		p, err := j.PlanUndo(viewtest.Ctx, a.s, id)
		if err != nil {
			t.Fatalf("plan the undo of %s: %v", id, err)
		}
		if res, err := j.Undo(viewtest.Ctx, a.s, p); err != nil || !res.OK {
			t.Fatalf("undo %s: %+v %v", id, res, err)
		}
	}
	if got := readyOf(t, a, "invoices"); got != was {
		t.Errorf("after the undo invoices has %d ready message(s), want %d as before the take", got, was)
	}
}

// undoIDs are the ids of the "kvdeck ... undo ID" commands in line.
func undoIDs(line string) []string {
	var ids []string
	for _, part := range strings.Split(line, " undo ")[1:] {
		ids = append(ids, strings.Fields(part)[0])
	}
	return ids
}

// readyOf counts the ready messages of queue now.
func readyOf(t *testing.T, a *app, queue string) int {
	t.Helper()
	qs, _, err := coord.InspectQueues(viewtest.Ctx, a.s, queue, a.clock.Now(), coord.DefaultMaxAttempts)
	if err != nil || len(qs) != 1 {
		t.Fatalf("inspect %s: %d queue(s), %v", queue, len(qs), err)
	}
	return qs[0].Ready
}

// TestSignalKeepsHeldWork: SIGTERM and SIGHUP end the TUI without a
// question (main cancels its context); what it held is kept all the
// same, and the last line runProgram prints says how to write it.
func TestSignalKeepsHeldWork(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in, typed := io.Pipe()
	screen := &storetest.Buffer{}
	var stderr storetest.Buffer
	dir, getenv := stateDir(t)
	done := make(chan error, 1)
	go func() {
		m := testModel(s, clock, time.Hour)
		m.setSize(120, 40)
		done <- runProgram(ctx, m, &stderr, getenv,
			tea.WithInput(in), tea.WithOutput(screen), tea.WithoutSignals())
	}()
	// Each step waits for the screen, as a user would.
	for _, step := range []struct{ keys, shows string }{
		{":goto [\"accounts\", \"hooli\"]\r", "026163636f756e74730002686f6f6c6900"},
		{"e", "saves only if"},
		{"\x05\x15", "invalid JSON"}, // ctrl+e, ctrl+u: the value emptied
		{`{"plan":"mine"}`, `{"plan":"mine"}`},
	} {
		if _, err := io.WriteString(typed, step.keys); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(screen.String(), step.shows) {
			if time.Now().After(deadline) {
				t.Fatalf("after %q the screen never showed %q:\n%s", step.keys, step.shows, screen.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	cancel() // what main does on SIGTERM or SIGHUP
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after the signal: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
	typed.Close()
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.HasSuffix(last, " writes it") {
		t.Fatalf("the last line printed after the signal: %q", lines)
	}
	if b, err := os.ReadFile(keptPath(t, last, dir)); err != nil || string(b) != `{"plan":"mine"}` {
		t.Fatalf("kept %q (%v)", b, err)
	}
}

// TestQuitDialogsGolden: the quit question over an edit not saved and
// over a batch taken from a queue, and esc's "discard your edit?", at
// both sizes.
func TestQuitDialogsGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		for _, c := range []struct {
			name, key, shows string
			hold             func(*testing.T, *app)
		}{
			{"quit", "ctrl+c", "Quit and give up", typeMine},
			{"quit-take", "ctrl+c", "Quit and give up", takeInvoices},
			{"discard", "esc", "Discard your edit?", typeMine},
		} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz.w, sz.h), func(t *testing.T) {
				a := reference(t, false, sz.w, sz.h)
				c.hold(t, a)
				a.keys(c.key)
				a.waitFor(c.shows)
				golden.RequireEqual(t, a.final().View())
			})
		}
	}
}
