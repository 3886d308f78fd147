package browse

import (
	"os"
	"strings"
	"testing"

	"kvdeck/views/browse/editor"
	"kvdeck/views/viewtest"
)

// TestBrowseWriteKeys walks Browse's write-key table: read-only, e, E, n
// and d are each refused with their reason (E said nothing before) and
// write nothing; writable, each asks first (d and E by a dialog, e and n
// by the entry form) and writes nothing before.
func TestBrowseWriteKeys(t *testing.T) {
	keys := DefaultKeys()
	viewtest.WalkWriteKeys(t, viewtest.WriteWalk[Model]{
		Writes: keys.actions().Writes(),
		Start: func(t *testing.T, readOnly bool) *viewtest.Harness[Model] {
			t.Helper()
			return newHarness(t, readOnly, 120, 40)
		},
		Prepare: func(h *viewtest.Harness[Model], _ string) {
			goTo(h, `["accounts", "acme"]`)
		},
		Press: func(h *viewtest.Harness[Model], key string) {
			if key != "E" {
				h.Keys(key)
				return
			}
			actAsEditor(h, func(text string) string { return strings.Replace(text, `"enterprise"`, `"gold"`, 1) })
		},
		Capturing: Model.Capturing,
	})
}

// actAsEditor is E on the selection with the test as $EDITOR (tea.Exec
// runs nothing in the harness): edit changes the value's file, then the
// editor's exit is answered; the file is gone after.
func actAsEditor(h *viewtest.Harness[Model], edit func(text string) string) {
	h.T.Helper()
	m := h.M
	cmd := m.startExternalEdit()
	h.M = m
	f, ok := cmd().(editor.FileReady)
	b, err := os.ReadFile(f.Path)
	if !ok || f.Err != nil || err != nil {
		h.T.Fatalf("no file for the editor: %+v, %v", f, err)
	}
	if err := os.WriteFile(f.Path, []byte(edit(string(b))), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Send(f.Closed(nil))
	if _, err := os.Stat(f.Path); !os.IsNotExist(err) {
		h.T.Errorf("the temporary file is left behind: %v", err)
	}
}
