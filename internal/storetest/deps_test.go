package storetest_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: storetest serves the codec and store tests, so it
// sits beside the store and knows nothing of terminals.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/storetest", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
