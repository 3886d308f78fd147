package browse

import (
	"math"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
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

// TestBrowseFarExpiries: an expiry more than ~292 years away is far in
// the future, and one at the int64 minimum long past; neither wraps
// around (Go's Duration overflowed and a row expiring
// in 300 years was shown as long expired). It replaces TestBrowseShow,
// which only logged a screen.
func TestBrowseFarExpiries(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, false)
	far := clock.Now() + 300*365*24*3600*1000
	low := int64(math.MinInt64)
	for key, at := range map[string]*int64{`["far", "future"]`: &far, `["far", "past"]`: &low} {
		if _, err := s.Commit(viewtest.Ctx, nil, []store.Mutation{{Type: store.MutationSet, Key: storetest.Key(t, key), Value: []byte(`1`), ExpiresAt: at}}); err != nil {
			t.Fatal(err)
		}
	}
	h := startHarness(t, s, clock, 120, 40)
	goTo(h, `["far", "future"]`)
	if v := h.M.View(); !strings.Contains(v, "in more than 292y") || strings.Contains(v, "✗ expired") {
		t.Errorf("an expiry 300 years away:\n%s", v)
	}
	goTo(h, `["far", "past"]`)
	if v := h.M.View(); !strings.Contains(v, "expired more than 292y ago") {
		t.Errorf("an expiry at the int64 minimum:\n%s", v)
	}
}
