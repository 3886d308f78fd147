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
	h.ClickOn(`["tmp"]`, 0)
	if sc, ok := h.M.scope(); !ok || scopeName(sc) != `["tmp"]` {
		t.Fatalf("a click on tmp selects %q", scopeName(sc))
	}
}
