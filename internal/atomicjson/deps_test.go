package atomicjson_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/atomicjson", "kvdeck/tui", "kvdeck/views", "kvdeck/themes", "kvdeck/internal/cli",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles")
}
