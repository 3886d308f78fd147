package valuefilter_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the filter sits on the store, shared by the CLI and
// the TUI, and knows neither.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/valuefilter", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
