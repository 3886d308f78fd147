package cli

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection keeps the command line away from the UI packages:
// only main imports kvdeck/tui, and the TUI reaches the CLI as a
// TUIRunner.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/cli", "kvdeck/tui", "kvdeck/views", "kvdeck/themes",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
