package tuiconfig

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: both the CLI and the TUI import this package, so it
// may import neither, nor any UI package.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/tuiconfig", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
