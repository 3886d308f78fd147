package browse

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// sizes are the terminal sizes the goldens are drawn at.
var sizes = []struct{ w, h int }{{120, 40}, {80, 24}}

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
