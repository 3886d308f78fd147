package sweep

import (
	"testing"

	"kvdeck/views/viewtest"
)

// TestSweepClickSelectsAPrefix: a click on a prefix's row selects it
// (issue 13: click rows on every tab).
func TestSweepClickSelectsAPrefix(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	h := newSweepHarness(t, s, clock, path)
	click, ok := viewtest.ClickOn(h.M.View(), `["tmp"]`, 0)
	if !ok {
		t.Fatalf("no tmp row:\n%s", h.M.View())
	}
	h.Send(click)
	if sc, ok := h.M.scope(); !ok || scopeName(sc) != `["tmp"]` {
		t.Fatalf("a click on tmp selects %q", scopeName(sc))
	}
}
