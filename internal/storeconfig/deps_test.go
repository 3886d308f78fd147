package storeconfig

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the config is read by the CLI (and later the TUI's
// switcher); it knows no front end and no store.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/storeconfig", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli", "kvdeck/store",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
