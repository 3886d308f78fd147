package usertext

import (
	"strings"
	"testing"

	"kvdeck/internal/deptest"
)

// TestStandardLibraryOnly keeps usertext near a leaf: the CLI, the TUI and
// the store's neighbours all use it, so it imports nothing outside the
// standard library and, of kvdeck, only codec (itself standard library
// only), whose versionstamp rule it reads stamps with.
func TestStandardLibraryOnly(t *testing.T) {
	const self = "kvdeck/internal/usertext"
	deptest.StdlibOnly(t, self)
	for _, dep := range deptest.Deps(t, self) {
		if dep != self && dep != "kvdeck/codec" && strings.HasPrefix(dep, "kvdeck/") {
			t.Errorf("%s imports %s; it may import only codec of kvdeck", self, dep)
		}
	}
}
