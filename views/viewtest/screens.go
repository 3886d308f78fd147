package viewtest

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/store"
)

// Screen is a terminal size a tab is checked at. The tab gets the body:
// the root keeps 3 lines (the tab bar, the status and the flash line).
type Screen struct{ W, H int }

// Wide is the screen most tests run a tab on.
func Wide() Screen { return Screen{120, 40} }

// SmallScreens are the two small screens every tab must stay usable on:
// 80x24 and 60x18.
func SmallScreens() []Screen { return []Screen{{80, 24}, {60, 18}} }

// String names the screen, "80x24": the subtest (and golden) names.
func (s Screen) String() string { return fmt.Sprintf("%dx%d", s.W, s.H) }

// Body is the size the tab gets.
func (s Screen) Body() (w, h int) { return s.W, s.H - 3 }

// StartFunc starts a tab's harness over s at w x h: each tab's tests wrap
// Start in one (newAlarmsHarness).
type StartFunc[V Model[V]] func(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *Harness[V]

// At starts the tab over s on the body of screen.
func (start StartFunc[V]) At(t *testing.T, s *store.Store, clock *store.VirtualClock, screen Screen) *Harness[V] {
	t.Helper()
	w, h := screen.Body()
	return start(t, s, clock, w, h)
}

// CoordAnomalies opens an empty store (CoordStoreAt) and seeds every
// coordination anomaly in it (SeedCoordAnomalies).
func CoordAnomalies(t *testing.T) (s *store.Store, clock *store.VirtualClock, url string) {
	t.Helper()
	s, clock, url = CoordStoreAt(t)
	SeedCoordAnomalies(t, s, clock)
	return s, clock, url
}

// Seeded starts a tab on the Wide screen over a store of every
// coordination anomaly (CoordAnomalies).
func Seeded[V Model[V]](t *testing.T, start StartFunc[V]) *Harness[V] {
	t.Helper()
	s, clock, _ := CoordAnomalies(t)
	return start.At(t, s, clock, Wide())
}

// OnReference starts a tab on the Wide screen over a fresh copy of the
// reference store (Reference).
func OnReference[V Model[V]](t *testing.T, start StartFunc[V], readOnly bool) *Harness[V] {
	t.Helper()
	s, clock, _ := Reference(t, readOnly)
	return start.At(t, s, clock, Wide())
}

// EachScreen runs check in a subtest per screen, named after it, on a tab
// started over s on that screen (h.T is the subtest).
func EachScreen[V Model[V]](t *testing.T, screens []Screen, start StartFunc[V], s *store.Store, clock *store.VirtualClock, check func(h *Harness[V])) {
	t.Helper()
	for _, screen := range screens {
		t.Run(screen.String(), func(t *testing.T) {
			check(start.At(t, s, clock, screen))
		})
	}
}

// GoldenAfter presses keys, then compares the tab's view with the golden
// file of the test.
func GoldenAfter[V Model[V]](keys ...string) func(h *Harness[V]) {
	return func(h *Harness[V]) {
		h.T.Helper()
		h.Keys(keys...)
		golden.RequireEqual(h.T, h.M.View())
	}
}
