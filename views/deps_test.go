package views_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: views may use the store, the codec and the themes,
// never the root (tui) nor the command line.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views", "kvdeck/tui", "kvdeck/internal/cli")
}
