package exporter_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the exporter reads stores through the engine and
// the coordination libraries, and knows no terminal and no front end.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/exporter", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
