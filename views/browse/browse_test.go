package browse

import (
	"testing"

	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// newHarness opens a fresh copy of the reference store and starts a
// Browse view of w x h cells on it.
func newHarness(t *testing.T, readOnly bool, w, h int) *viewtest.Harness[Model] {
	t.Helper()
	s, clock, _ := viewtest.Reference(t, readOnly)
	return startHarness(t, s, clock, w, h)
}

// startHarness starts a Browse view of w x h cells over s.
func startHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *viewtest.Harness[Model] {
	t.Helper()
	return viewtest.Start[Model, *Model](t, s, clock, w, h, New)
}

func TestBrowseShow(t *testing.T) {
	h := newHarness(t, false, 120, 37)
	h.Keys("enter", "j")
	t.Log("\n" + h.M.View())
}
