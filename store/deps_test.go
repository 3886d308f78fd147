package store_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the engine knows no terminal and none of its
// consumers (the coordination records, the race, the atomic document, the
// demo, the command line).
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/store", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"kvdeck/store/coord", "kvdeck/internal/race", "kvdeck/internal/atomicjson", "kvdeck/internal/demo",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
