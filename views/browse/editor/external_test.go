package editor

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/editsession"
	"kvdeck/internal/storetest"
	"kvdeck/views"
	"kvdeck/views/viewtest"
	"kvdeck/views/widgets"
)

// editInEditor opens acme's value for the editor, lets edit change the
// file as an editor would, and hands the result back as the editor's
// exit does.
func editInEditor(t *testing.T, h *viewtest.Harness[host], edit func(text string) string) {
	t.Helper()
	m := h.M
	cmd := m.editor.External(m.row)
	h.M = m
	f, ok := cmd().(FileReady)
	if !ok || f.Err != nil {
		t.Fatalf("no file for the editor: %+v", f)
	}
	b, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Path, []byte(edit(string(b))), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Send(f.Closed(nil))
	if _, err := os.Stat(f.Path); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left behind: %v", err)
	}
}

// TestExternalEditSavesWithCAS: E hands the value to $EDITOR; the edited
// JSON is written back with a check on the stamp it was read at (open the
// value in $EDITOR for editing).
func TestExternalEditSavesWithCAS(t *testing.T) {
	h := newHarness(t)
	goTo(h, `["accounts", "acme"]`)
	editInEditor(t, h, func(text string) string { return strings.Replace(text, `"enterprise"`, `"gold"`, 1) })
	if e, _ := getRaw(t, h.S, `["accounts", "acme"]`); strings.Contains(string(e.Value), `"gold"`) {
		t.Fatal("E saved before asking")
	}
	if len(h.Confirms) != 1 {
		t.Fatalf("E asked %d time(s), want once", len(h.Confirms))
	}
	c := h.Confirms[0]
	if text := strings.Join(c.Lines, "\n"); !strings.Contains(text, `"enterprise"`) || !strings.Contains(text, `"gold"`) ||
		!strings.Contains(text, "→") || !strings.Contains(text, "at stamp") {
		t.Fatalf("the dialog does not show old → new and the check:\n%s", text)
	}
	h.Confirm()
	h.RequireFlash("saved", "at stamp")
	if e, ok := getRaw(t, h.S, `["accounts", "acme"]`); !ok || !strings.Contains(string(e.Value), `"plan":"gold"`) {
		t.Fatalf("stored %s", e.Value)
	}
	if h.M.editor.form != nil {
		t.Fatal("the form stays open after a save")
	}
}

// TestExternalEditRefusalKeepsTheText: text that is not JSON, or a row
// changed while the editor ran, is not written; the entry form opens with
// the edited text and says why.
func TestExternalEditRefusalKeepsTheText(t *testing.T) {
	h := newHarness(t)
	goTo(h, `["accounts", "acme"]`)
	editInEditor(t, h, func(string) string { return `{"plan": ` })
	if h.M.editor.form == nil || !strings.Contains(h.M.editor.form.Err, "not valid JSON") || h.M.editor.form.Value(h.M.editor.form.valField) != `{"plan":` {
		t.Fatalf("a bad edit: form %+v\n%s", h.M.editor.form, h.M.View())
	}
	h.Keys("esc")
	editInEditor(t, h, func(text string) string {
		// Another writer changes the row while the editor runs.
		if _, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`), []byte(`{"plan":"other"}`), nil); err != nil {
			t.Fatal(err)
		}
		return strings.Replace(text, `"enterprise"`, `"gold"`, 1)
	})
	h.Confirm()
	if h.M.editor.form == nil || !strings.Contains(h.M.editor.form.Err, "conflict") || !strings.Contains(h.M.editor.form.Value(h.M.editor.form.valField), `"gold"`) {
		t.Fatalf("a conflicting edit: form %+v\n%s", h.M.editor.form, h.M.View())
	}
	if e, _ := getRaw(t, h.S, `["accounts", "acme"]`); string(e.Value) != `{"plan":"other"}` {
		t.Fatalf("the conflicting edit was written: %s", e.Value)
	}
}

// TestExternalEditNoChangeWritesNothing: an edit in $EDITOR that leaves
// the value as it is (re-indented, even) writes nothing, asks nothing, and
// says so; the stamp stays (a write that changes nothing is not
// made). A cancelled dialog keeps the edited text in the form.
func TestExternalEditNoChangeWritesNothing(t *testing.T) {
	h := newHarness(t)
	goTo(h, `["accounts", "acme"]`)
	before := viewtest.Digest(t, h.S)
	editInEditor(t, h, func(text string) string { return strings.Join(strings.Fields(text), "") + "\n\n" })
	if viewtest.Digest(t, h.S) != before || len(h.Confirms) > 0 || h.M.editor.form != nil {
		t.Fatalf("an unchanged edit: confirms %d, form open %v, store changed %v", len(h.Confirms), h.M.editor.form != nil, viewtest.Digest(t, h.S) != before)
	}
	h.RequireFlash("nothing changed, nothing written")

	editInEditor(t, h, func(text string) string { return strings.Replace(text, `"enterprise"`, `"gold"`, 1) })
	h.Confirms = nil // n: the dialog closes unanswered
	if h.M.editor.form == nil || !strings.Contains(h.M.editor.form.Value(h.M.editor.form.valField), `"gold"`) || viewtest.Digest(t, h.S) != before {
		t.Fatalf("a cancelled save: form %v, store changed %v", h.M.editor.form != nil, viewtest.Digest(t, h.S) != before)
	}
}

// TestExternalEditLargeValueStaysResponsive: a 20 MB value written by the
// editor is refused by its size, as e refuses one, and the work that costs
// as much as the value (reading, measuring) runs in a command: no Update
// call takes long, nothing is written, and the flash says why (the form was
// built on the UI goroutine, 30 s for 20 MB).
func TestExternalEditLargeValueStaysResponsive(t *testing.T) {
	h := newHarness(t)
	goTo(h, `["accounts", "acme"]`)
	before := viewtest.Digest(t, h.S)
	m := h.M
	f, ok := m.editor.External(m.row)().(FileReady)
	if !ok || f.Err != nil {
		t.Fatalf("no file for the editor: %+v", f)
	}
	big := `{"plan": "` + strings.Repeat("x", 20<<20) + `"}`
	if err := os.WriteFile(f.Path, []byte(big), 0o600); err != nil { // the editor's write
		t.Fatal(err)
	}
	update := func(msg tea.Msg) tea.Cmd {
		t.Helper()
		start := time.Now()
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Fatalf("Update(%T) took %v on the UI goroutine", msg, d)
		}
		return cmd
	}
	read := update(f.Closed(nil))
	done := make(chan tea.Msg, 1)
	go func() { done <- read() }()
	var text tea.Msg
	select {
	case text = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading the edited value back took over 10 s")
	}
	if _, err := os.Stat(f.Path); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left behind: %v", err)
	}
	h.M = m
	h.Settle(update(text))
	h.RequireFlash("20.0 MiB", "nothing was written")
	if viewtest.Digest(t, h.S) != before || h.M.editor.form != nil || len(h.Confirms) > 0 {
		t.Fatalf("a refused edit: store changed %v, form open %v, confirms %d", viewtest.Digest(t, h.S) != before, h.M.editor.form != nil, len(h.Confirms))
	}
}

// TestEditorCommandIsShellText: $EDITOR is shell text, as git reads it: an
// editor with arguments, a quoted path with a space, and (unquoted) the
// whole path of an executable with a space in it all run on the file;
// $VISUAL comes first (a space in the path failed).
func TestEditorCommandIsShellText(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "My Editor")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ed := filepath.Join(dir, "ed")
	if err := os.WriteFile(ed, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$KVDECK_TEST_ARGS\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "args")
	t.Setenv("KVDECK_TEST_ARGS", out)
	file := filepath.Join(t.TempDir(), "value file.json")
	for _, c := range []struct{ visual, editor, want string }{
		{"", ed, file},
		{"", "'" + ed + "' --wait", "--wait\n" + file},
		{"", `"` + ed + `" -n --wait`, "-n\n--wait\n" + file},
		{"'" + ed + "' -v", "nonexistent-editor", "-v\n" + file},
	} {
		t.Setenv("VISUAL", c.visual)
		t.Setenv("EDITOR", c.editor)
		os.Remove(out)
		if b, err := editorCommand(file).CombinedOutput(); err != nil {
			t.Errorf("VISUAL=%q EDITOR=%q: %v %s", c.visual, c.editor, err, b)
			continue
		}
		if b, _ := os.ReadFile(out); strings.TrimSpace(string(b)) != c.want {
			t.Errorf("VISUAL=%q EDITOR=%q: the editor got %q, want %q", c.visual, c.editor, b, c.want)
		}
	}
}

// TestExternalEditFileInSessionDir: E's value file (0600) is made in the
// session's private directory, and goes when the session closes.
func TestExternalEditFileInSessionDir(t *testing.T) {
	h := newHarness(t)
	goTo(h, `["accounts", "acme"]`)
	s, err := editsession.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := h.M
	m.editor.deps.Edits = s
	f, ok := m.editor.External(m.row)().(FileReady)
	if !ok || f.Err != nil {
		t.Fatalf("no file for the editor: %+v", f)
	}
	if st, err := os.Stat(f.Path); err != nil || filepath.Dir(f.Path) != s.Dir() || st.Mode().Perm() != 0o600 {
		t.Fatalf("the value file %s (%v, %v) is not a 0600 file in %s", f.Path, st.Mode(), err, s.Dir())
	}
	s.Close()
	if _, err := os.Stat(f.Path); !os.IsNotExist(err) {
		t.Fatalf("the value file stays after the session: %v", err)
	}
}

// TestExternalEditLargeValue: E refused a value over
// 64 KiB; it hands the whole value to the editor and saves the edit
// (checked against the stamp it was read at) after a dialog that names
// the sizes, without the value entering the form.
func TestExternalEditLargeValue(t *testing.T) {
	h := newHarness(t)
	big := `{"pad":"` + strings.Repeat("z", 2*widgets.ValueCap) + `","plan":"free"}`
	setBig(t, h, []byte(big))
	goTo(h, `["big", "value"]`)
	m := h.M
	f, ok := m.editor.External(m.row)().(FileReady)
	if !ok || f.Err != nil || !f.big {
		t.Fatalf("no file for the editor: %+v", f)
	}
	b, err := os.ReadFile(f.Path)
	if err != nil || len(b) < 2*widgets.ValueCap {
		t.Fatalf("the editor's file holds %d bytes (%v); want the whole value", len(b), err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(big), "", "  "); err != nil || string(b) != indented.String()+"\n" {
		t.Fatalf("the editor's file is not the value indented (%v): %q…", err, b[:min(len(b), 80)])
	}
	if err := os.WriteFile(f.Path, []byte(strings.Replace(string(b), `"free"`, `"gold"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Send(f.Closed(nil))
	if len(h.Confirms) != 1 || !strings.Contains(strings.Join(h.Confirms[0].Lines, " "), "at stamp") {
		t.Fatalf("E asked %+v; flashes %v", h.Confirms, h.Flashes)
	}
	if h.M.editor.form != nil {
		t.Error("the large value entered the form")
	}
	h.Confirm()
	h.RequireFlash("saved", "at stamp")
	if e, ok := getRaw(t, h.S, `["big", "value"]`); !ok || !strings.HasSuffix(string(e.Value), `"plan":"gold"}`) {
		t.Fatalf("stored %d bytes ending %q", len(e.Value), e.Value[max(len(e.Value)-20, 0):])
	}
}

// TestExternalEditOverItsCapSaysSo: a value over what E reads back
// (Model.BigCap) is not handed to the editor only to be refused after the
// edit: E says so at once and offers |.
func TestExternalEditOverItsCapSaysSo(t *testing.T) {
	h := newHarness(t)
	h.M.editor.BigCap = 3 * widgets.ValueCap
	setBig(t, h, []byte(`"`+strings.Repeat("z", 4*widgets.ValueCap)+`"`))
	goTo(h, `["big", "value"]`)
	h.Keys("E")
	h.RequireFlash("E edits values up to 192.0 KiB", "| pipes it to $PAGER")
	if h.M.editor.form != nil {
		t.Error("E over its cap opened the form")
	}
}

// TestExternalEditOnceAtATime: E pressed again before the editor has
// closed makes no second file (session 7 saw two quick presses each write
// one, and two editors run in turn); once it has closed, E edits again.
func TestExternalEditOnceAtATime(t *testing.T) {
	h := newHarness(t)
	goTo(h, `["accounts", "acme"]`)
	m := h.M
	f, ok := m.editor.External(m.row)().(FileReady)
	if !ok || f.Err != nil {
		t.Fatalf("E made no file: %+v", f)
	}
	if again, ok := m.editor.External(m.row)().(views.FlashMsg); !ok || !strings.Contains(again.Text, "already") {
		t.Fatalf("E again while the first is on its way: %#v", again)
	}
	h.M = m
	h.Send(f.Closed(nil))
	editInEditor(t, h, func(text string) string { return text }) // fails unless E starts afresh after the close
}

// TestExternalEditConflictScreen: E's save meets the same screen when
// another writer changed the row while the editor ran.
func TestExternalEditConflictScreen(t *testing.T) {
	h := newHarness(t)
	goTo(h, `["accounts", "acme"]`)
	editInEditor(t, h, func(text string) string {
		if _, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`), []byte(`{"plan":"other"}`), nil); err != nil {
			t.Fatal(err)
		}
		return strings.Replace(text, `"enterprise"`, `"gold"`, 1)
	})
	h.Confirm()
	h.RequireView("CONFLICT", "theirs → yours", `"other" → "gold"`, "+ .seats")
	h.Keys("ctrl+s")
	h.Confirm()
	if e, _ := getRaw(t, h.S, `["accounts", "acme"]`); !strings.Contains(string(e.Value), `"plan":"gold"`) {
		t.Fatalf("the confirmed overwrite stored %s", e.Value)
	}
}

// largeValueConflict: E on ["big", "value"], a value over the form's
// 64 KiB, turns "free" into "gold" while another writer sets theirs; the
// save's dialog is answered and the conflict screen shows, with no form
// behind it.
func largeValueConflict(t *testing.T) *viewtest.Harness[host] {
	t.Helper()
	h := newHarness(t)
	big := `{"pad":"` + strings.Repeat("z", 2*widgets.ValueCap) + `","plan":"free"}`
	setBig(t, h, []byte(big))
	goTo(h, `["big", "value"]`)
	f, ok := h.M.editor.External(h.M.row)().(FileReady)
	if !ok || f.Err != nil || !f.big {
		t.Fatalf("no file for the editor: %+v", f)
	}
	b, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.Path, []byte(strings.Replace(string(b), `"free"`, `"gold"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	setBig(t, h, []byte(`{"plan":"theirs"}`)) // another writer, while the editor ran
	h.Send(f.Closed(nil))
	h.Confirm()
	return h
}

// TestExternalEditLargeValueConflict: E on a value over the form's 64 KiB
// meets the conflict screen too (whole values, not walked by path); the
// confirmed overwrite saves the edit over their stamp.
func TestExternalEditLargeValueConflict(t *testing.T) {
	h := largeValueConflict(t)
	h.RequireView("CONFLICT", "theirs → yours", "whole value", "x/esc discard")
	h.Keys("ctrl+s")
	h.Confirm()
	h.RequireFlash("over their stamp")
	if e, ok := getRaw(t, h.S, `["big", "value"]`); !ok || !strings.HasSuffix(string(e.Value), `"plan":"gold"}`) {
		t.Fatalf("stored %d bytes ending %q", len(e.Value), e.Value[max(len(e.Value)-20, 0):])
	}
}

// TestEscOnLargeValueConflictAsks: on the conflict screen of a value too
// large for the form there is no form to go back to, so esc discarded
// the edit at once; it asks now. The screen holds the edited value.
func TestEscOnLargeValueConflictAsks(t *testing.T) {
	h := largeValueConflict(t)
	h.RequireView("CONFLICT")
	if held := h.M.Held(); len(held) != 1 || !strings.HasSuffix(string(held[0].Keep), `"plan":"gold"}`) {
		t.Fatalf("the conflict screen holds %d thing(s)", len(held))
	}
	h.Keys("esc")
	if h.M.editor.conflict == nil || len(h.Confirms) != 1 || h.Confirms[0].Title != "Discard your edit?" {
		t.Fatalf("esc: conflict open %v, dialogs %+v", h.M.editor.conflict != nil, h.Confirms)
	}
	h.Confirm()
	if h.M.editor.conflict != nil {
		t.Fatal("y left the conflict screen open")
	}
	h.RequireFlash(`your edit of ["big", "value"] was discarded`)
	if e, _ := getRaw(t, h.S, `["big", "value"]`); string(e.Value) != `{"plan":"theirs"}` {
		t.Errorf("the discard wrote %q", e.Value[:min(len(e.Value), 40)])
	}
}

// TestTTLFieldParsesAsTheCLIDoes: the TTL field takes durations through
// usertext, as the CLI and the other forms: whole milliseconds, at least
// one (time.ParseDuration took "500us" as 0 ms, so the
// row was expired as it was written, and "1.5ms" as 1 ms).
func TestTTLFieldParsesAsTheCLIDoes(t *testing.T) {
	f := &entryForm{}
	for text, want := range map[string]string{"30s": "30s", " 5m ": "5m0s", "1ms": "1ms", "none": "", "": ""} {
		d, err := f.expireIn(text, 0)
		got := ""
		if d != nil {
			got = d.String()
		}
		if err != nil || got != want {
			t.Errorf("%q: %v, %v; want %q", text, got, err, want)
		}
	}
	for _, text := range []string{"500us", "1.5ms", "0s", "-5s", "soon"} {
		if d, err := f.expireIn(text, 0); err == nil {
			t.Errorf("%q: accepted as %v; want a refusal", text, *d)
		}
	}
}
