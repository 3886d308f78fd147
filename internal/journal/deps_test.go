package journal_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the journal sits on the store, under both front
// ends (the CLI attaches it, the TUI's undo overlay reads it), so it knows
// neither of them nor any terminal package.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/journal", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
