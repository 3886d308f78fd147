package themes_test

import (
	"strings"
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection keeps themes a leaf: lipgloss (and what lipgloss
// itself needs) and nothing of kvdeck.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/themes", "kvdeck/tui", "kvdeck/views", "kvdeck/store", "kvdeck/codec",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/bubbles")
	for _, dep := range deptest.Deps(t, "kvdeck/themes") {
		if strings.HasPrefix(dep, "kvdeck/") && dep != "kvdeck/themes" {
			t.Errorf("themes imports %s; it may import only lipgloss", dep)
		}
	}
}
