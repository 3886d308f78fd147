package editsession_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the edit session knows nothing of terminals or the
// UI; the TUI and the views import it, not the other way round.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/editsession", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/store",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
