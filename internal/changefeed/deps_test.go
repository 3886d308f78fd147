package changefeed_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the change feed's consumer sits on the store,
// under both front ends, and knows no terminal.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/changefeed", deptest.Plus([]string{"kvdeck/views", "kvdeck/themes",
		"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/lipgloss", "github.com/charmbracelet/bubbles"}, deptest.Root)...)
}
