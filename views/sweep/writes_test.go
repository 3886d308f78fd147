package sweep

import (
	"testing"

	"kvdeck/views/viewtest"
)

// TestSweepWriteKeys walks the Sweep tab's write-key table: read-only, s
// is refused with its reason and writes nothing; writable, s asks with the
// count before anything is swept, and the confirmed sweep writes.
func TestSweepWriteKeys(t *testing.T) {
	keys := DefaultKeys()
	viewtest.WalkWriteKeys(t, viewtest.WriteWalk[Model]{
		Writes: keys.actions().Writes(),
		Start: func(t *testing.T, readOnly bool) *viewtest.Harness[Model] {
			t.Helper()
			s, clock, path := viewtest.Reference(t, readOnly)
			return newSweepHarness(t, s, clock, path)
		},
		Capturing: Model.Capturing,
	})
}
