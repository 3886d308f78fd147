package sweep

import (
	"fmt"
	"strings"
	"testing"

	"kvdeck/views/viewtest"
	"kvdeck/views/widgets"
)

// TestSweepClickSelectsAPrefix: a click on a prefix's row selects it
// (click rows on every tab).
func TestSweepClickSelectsAPrefix(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	h := newSweepHarness(t, s, clock, path)
	h.ClickOn(`["tmp"]`, 0)
	if sc, ok := h.M.scope(); !ok || scopeName(sc) != `["tmp"]` {
		t.Fatalf("a click on tmp selects %q", scopeName(sc))
	}
}

// TestSweepTableScrollsToTheCursor: a census longer than the pane shows
// the rows it has room for and says how many there are; the cursor's row
// stays on screen however far down it goes, and a click on a row of the
// scrolled table selects that row.
func TestSweepTableScrollsToTheCursor(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	h := viewtest.Start[Model, *Model](t, s, clock, 60, 18-3, New, viewtest.Reopen(path, clock))
	n := len(h.M.shown())
	if !strings.Contains(h.M.View(), fmt.Sprintf(" of %d (j/k move)", n)) {
		t.Fatalf("a census of %d rows in a short pane does not say it is cut:\n%s", n, h.M.View())
	}
	for range n {
		h.Keys("j")
	}
	last, _ := h.M.scope()
	if line := h.ViewLine("❯ "); !strings.Contains(line, widgets.Sanitize(scopeName(last))[:6]) {
		t.Fatalf("the cursor's row %q is not on screen:\n%s", scopeName(last), h.M.View())
	}
	want := h.M.census.scopes[h.M.shown()[n-2]]
	h.ClickOn(widgets.Sanitize(scopeName(want))[:6], 0)
	if sc, _ := h.M.scope(); scopeName(sc) != scopeName(want) {
		t.Fatalf("a click on %q in the scrolled table selects %q", scopeName(want), scopeName(sc))
	}
}
