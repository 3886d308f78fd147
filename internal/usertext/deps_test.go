package usertext

import (
	"strings"
	"testing"

	"kvdeck/internal/deptest"
)

// TestStandardLibraryOnly keeps usertext a leaf: the CLI, the TUI and the
// store's neighbours all use it, so it imports nothing of kvdeck and
// nothing outside the standard library.
func TestStandardLibraryOnly(t *testing.T) {
	const self = "kvdeck/internal/usertext"
	deptest.StdlibOnly(t, self)
	for _, dep := range deptest.Deps(t, self) {
		if dep != self && strings.HasPrefix(dep, "kvdeck/") {
			t.Errorf("%s imports %s; it must stay a leaf", self, dep)
		}
	}
}
