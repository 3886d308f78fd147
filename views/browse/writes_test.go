package browse

import (
	"strings"
	"testing"

	"kvdeck/views/viewtest"
)

// TestBrowseWriteKeys walks Browse's write-key table: read-only, e, E, n
// and d are each refused with their reason (E said nothing before) and
// write nothing; writable, each asks first (d and E by a dialog, e and n
// by the entry form) and writes nothing before.
func TestBrowseWriteKeys(t *testing.T) {
	keys := DefaultKeys()
	viewtest.WalkWriteKeys(t, viewtest.WriteWalk[Model]{
		Writes: keys.Writes(),
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
			editInEditor(h.T, h, func(text string) string { return strings.Replace(text, `"enterprise"`, `"gold"`, 1) })
		},
		Capturing: Model.Capturing,
	})
}
