package sweep

import (
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// TestSweepFilterAndSelectionByName: / filters the prefixes as it is
// typed, enter keeps it, esc clears it (issue 13: / filters on every list
// tab); the selection stays on its prefix when a census adds a prefix
// before it (it stayed on the same index, so on another prefix).
func TestSweepFilterAndSelectionByName(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	h := newSweepHarness(t, s, clock, path)
	all := len(h.M.shown())
	h.Keys("/")
	if !h.M.Capturing() {
		t.Fatal("the filter input does not have the keys")
	}
	h.TypeText("tmp")
	h.Keys("enter")
	if sc, ok := h.M.scope(); len(h.M.shown()) != 1 || !ok || scopeName(sc) != `["tmp"]` {
		t.Fatalf("shown %v, selected %q after /tmp", h.M.shown(), scopeName(sc))
	}
	h.RequireView("/tmp (esc clears)")
	h.Keys("esc")
	if got := len(h.M.shown()); got != all {
		t.Fatalf("%d rows after esc, want %d", got, all)
	}
	if sc, _ := h.M.scope(); scopeName(sc) != `["tmp"]` {
		t.Fatalf("esc moved the selection to %q", scopeName(sc))
	}
	if _, err := s.Set(viewtest.Ctx, storetest.Key(t, `["aaa", 1]`), []byte("1"), nil); err != nil {
		t.Fatal(err)
	}
	v, cmd := h.M.Refresh()
	h.M = v
	h.Settle(cmd)
	if sc, _ := h.M.scope(); scopeName(sc) != `["tmp"]` {
		t.Fatalf("a new prefix moved the selection to %q", scopeName(sc))
	}
	h.Keys("/")
	h.TypeText("no such prefix")
	h.RequireView("Nothing matches /no such prefix.")
	if _, ok := h.M.scope(); ok {
		t.Fatal("a scope is selected while none is shown")
	}
}
