package alarms

import (
	"testing"

	"kvdeck/views/viewtest"
)

// TestAlarmsWriteKeys walks the Alarms tab's write-key table on the
// reference store (Cart's overdue alarm selected): read-only, s, e, d and
// f are refused with their reason and write nothing; writable, s and e
// open the alarm form, d and f ask before anything is written.
func TestAlarmsWriteKeys(t *testing.T) {
	keys := DefaultKeys()
	viewtest.WalkWriteKeys(t, viewtest.WriteWalk[Model]{
		Writes: keys.actions().Writes(),
		Start: func(t *testing.T, readOnly bool) *viewtest.Harness[Model] {
			t.Helper()
			return viewtest.OnReference(t, newAlarmsHarness, readOnly)
		},
		Prepare:   func(h *viewtest.Harness[Model], _ string) { h.Keys("l") },
		Capturing: Model.Capturing,
	})
}
