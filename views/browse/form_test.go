package browse

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestEntryFormMarksTheFocus: the entry form is the TUI's one form
// (widgets.Form): the focused field is marked with ❯, so it shows without
// colour too (forms show focus clearly; before, only the
// textarea's cursor told which field had the keys), and the keys it takes
// are on screen.
func TestEntryFormMarksTheFocus(t *testing.T) {
	h := newHarness(t, false, 100, 30)
	goTo(h, `["accounts", "acme"]`)
	h.Keys("e")
	h.RequireView("❯ value", "ctrl+s save (only if unchanged)")
	t.Run("edit", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("tab")
	h.RequireView("❯ ttl")
	if strings.Contains(h.M.View(), "❯ value") {
		t.Fatalf("two fields marked:\n%s", h.M.View())
	}
	h.Keys("esc", "n")
	h.RequireView("NEW KEY", "❯ key")
	t.Run("new", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
}
