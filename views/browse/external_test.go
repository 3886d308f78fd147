package browse

import (
	"os"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// editInEditor opens acme's value for the editor, lets edit change the
// file as an editor would, and hands the result back as the editor's
// exit does.
func editInEditor(t *testing.T, h *viewtest.Harness[Model], edit func(text string) string) {
	t.Helper()
	m := h.M
	cmd := m.startExternalEdit()
	h.M = m
	f, ok := cmd().(editorFile)
	if !ok || f.err != nil {
		t.Fatalf("no file for the editor: %+v", f)
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path, []byte(edit(string(b))), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Send(editorClosed{session: f.session, path: f.path, e: f.e})
	if _, err := os.Stat(f.path); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left behind: %v", err)
	}
}

// TestExternalEditSavesWithCAS: E hands the value to $EDITOR; the edited
// JSON is written back with a check on the stamp it was read at (issue
// 13: open the value in $EDITOR for editing).
func TestExternalEditSavesWithCAS(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	editInEditor(t, h, func(text string) string { return strings.Replace(text, `"enterprise"`, `"gold"`, 1) })
	h.RequireFlash("saved", "at stamp")
	if e, ok := getRaw(t, h.S, `["accounts", "acme"]`); !ok || !strings.Contains(string(e.Value), `"plan":"gold"`) {
		t.Fatalf("stored %s", e.Value)
	}
	if h.M.form != nil {
		t.Fatal("the form stays open after a save")
	}
}

// TestExternalEditRefusalKeepsTheText: text that is not JSON, or a row
// changed while the editor ran, is not written; the entry form opens with
// the edited text and says why.
func TestExternalEditRefusalKeepsTheText(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	editInEditor(t, h, func(string) string { return `{"plan": ` })
	if h.M.form == nil || !strings.Contains(h.M.form.Err, "not valid JSON") || h.M.form.Value(h.M.form.valField) != `{"plan":` {
		t.Fatalf("a bad edit: form %+v\n%s", h.M.form, h.M.View())
	}
	h.Keys("esc")
	editInEditor(t, h, func(text string) string {
		// Another writer changes the row while the editor runs.
		if _, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`), []byte(`{"plan":"other"}`), nil); err != nil {
			t.Fatal(err)
		}
		return strings.Replace(text, `"enterprise"`, `"gold"`, 1)
	})
	if h.M.form == nil || !strings.Contains(h.M.form.Err, "conflict") || !strings.Contains(h.M.form.Value(h.M.form.valField), `"gold"`) {
		t.Fatalf("a conflicting edit: form %+v\n%s", h.M.form, h.M.View())
	}
	if e, _ := getRaw(t, h.S, `["accounts", "acme"]`); string(e.Value) != `{"plan":"other"}` {
		t.Fatalf("the conflicting edit was written: %s", e.Value)
	}
}
