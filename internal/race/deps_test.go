package race_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// The race engine drives a TUI tab but must not know terminals.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/race", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
