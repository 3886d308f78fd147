package jsondiff_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the diff knows no terminal and no front end.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/jsondiff", deptest.Plus([]string{"kvdeck/views", "kvdeck/themes", "kvdeck/store",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss"}, deptest.Root)...)
}
