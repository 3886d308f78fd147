package platform_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the management APIs' clients sit beside the
// store, under both front ends, and know no terminal.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/platform", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
