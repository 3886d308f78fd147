package browse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// sizes are the terminal sizes the goldens are drawn at.
var sizes = []struct{ w, h int }{{120, 40}, {80, 24}}

// screenSizes are sizes and the smallest screen kvdeck is checked at:
// the screens that open over Browse (the reader, the conflict) are drawn
// at all three.
var screenSizes = append(sizes[:len(sizes):len(sizes)], struct{ w, h int }{60, 18})

// TestBrowseGolden draws Browse over the reference store in the states a
// newcomer sees first, at both sizes, with the clock fixed at the
// reference instant.
func TestBrowseGolden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			h := newHarness(t, false, sz.w, sz.h)
			t.Run("top", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
			h.Keys("enter", "j")
			t.Run("acme", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
			goTo(h, `["tmp", "dead-on-arrival"]`)
			t.Run("expired", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
			goTo(h, `["tmp", "session", "s-77"]`)
			t.Run("countdown", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
			goTo(h, `["mixed", b"0100", "sé", 2.5, -3n, true]`)
			t.Run("mixed", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
		})
	}
}

// goTo runs :goto text.
func goTo(h *viewtest.Harness[Model], text string) {
	h.T.Helper()
	m, c := h.M.Goto(storetest.Key(h.T, text))
	h.M = m
	h.Settle(c)
}

// TestBrowseLongPartKeepsEndAndMark: a key part too long for the tree
// loses its middle, not its end: lease ids that share a prefix differ at
// their end, and the ● that says the row is a stored key stays (it was cut
// off with the end).
func TestBrowseLongPartKeepsEndAndMark(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["dwk_lease", "Ticker", "234f594be1ed8ecc8c4d393b295c02f3"]`)
	var row string
	for _, line := range strings.Split(h.M.View(), "\n") {
		if strings.Contains(line, "❯") {
			row = line
		}
	}
	if !strings.Contains(row, `"234f594`) || !strings.Contains(row, `b295c02f3" ●`) || !strings.Contains(row, "…") {
		t.Errorf("the selected row %q should show both ends of the id, cut in the middle, and ●", row)
	}
}

// TestPipePromptGolden: | opens the command prompt in the tree's footer,
// $PAGER typed in, over the entry it pipes.
func TestPipePromptGolden(t *testing.T) {
	t.Setenv("PAGER", "less -S")
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			h := newHarness(t, false, sz.w, sz.h)
			goTo(h, `["accounts", "acme"]`)
			h.Keys("|")
			golden.RequireEqual(t, h.M.View())
		})
	}
}
