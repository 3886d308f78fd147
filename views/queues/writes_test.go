package queues

import (
	"testing"

	"kvdeck/views/viewtest"
)

// TestQueuesWriteKeys walks the Queues tab's write-key table on the
// reference store (invoices selected): read-only, n, c and d are refused
// with their reason and write nothing; writable, n opens the send form,
// and c (which claimed messages out of a live queue at once) and d ask
// before anything is written.
func TestQueuesWriteKeys(t *testing.T) {
	keys := DefaultKeys()
	viewtest.WalkWriteKeys(t, viewtest.WriteWalk[Model]{
		Writes: keys.actions().Writes(),
		Start: func(t *testing.T, readOnly bool) *viewtest.Harness[Model] {
			t.Helper()
			return viewtest.OnReference(t, newQueuesHarness, readOnly)
		},
		Capturing: Model.Capturing,
	})
}
