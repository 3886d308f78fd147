package sweep

import (
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// shownNames are the prefixes the tab shows, in order.
func shownNames(m Model) []string {
	var names []string
	for _, i := range m.shown() {
		names = append(names, scopeName(m.scopes()[i]))
	}
	return names
}

// TestSweepFilterAndSelectionByName: / filters the prefixes as it is
// typed, enter keeps it, esc clears it (/ filters on every list
// tab); the selection stays on its prefix when a census adds a prefix
// before it (it stayed on the same index, so on another prefix).
func TestSweepFilterAndSelectionByName(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	h := newSweepHarness(t, s, clock, path)
	viewtest.CheckFilter(h, shownNames, "tmp", `["tmp"]`)
	viewtest.Filter(h, "tmp")
	if sc, ok := h.M.scope(); !ok || scopeName(sc) != `["tmp"]` {
		t.Fatalf("selected %q after /tmp", scopeName(sc))
	}
	h.Keys("esc")
	if sc, _ := h.M.scope(); scopeName(sc) != `["tmp"]` {
		t.Fatalf("esc moved the selection to %q", scopeName(sc))
	}
	if _, err := s.Set(viewtest.Ctx, storetest.Key(t, `["aaa", 1]`), []byte("1"), nil); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	if sc, _ := h.M.scope(); scopeName(sc) != `["tmp"]` {
		t.Fatalf("a new prefix moved the selection to %q", scopeName(sc))
	}
	viewtest.CheckFilterMatchesNothing(h, shownNames, "no such prefix")
	h.RequireView("Nothing matches /no such prefix.")
	if _, ok := h.M.scope(); ok {
		t.Fatal("a scope is selected while none is shown")
	}
}
