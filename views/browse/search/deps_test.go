package search_test

import (
	"slices"
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the value search is a part of Browse: it uses
// views, the widgets and valuefilter; never another part, a tab, the test
// harness, the root nor the command line (it cannot import Browse: Go
// refuses the cycle).
func TestImportDirection(t *testing.T) {
	others := slices.DeleteFunc(slices.Clone(deptest.Tabs), func(p string) bool { return p == "kvdeck/views/browse" })
	parts := []string{"kvdeck/views/browse/editor", "kvdeck/views/browse/reader"}
	deptest.Forbid(t, "kvdeck/views/browse/search", deptest.Plus(parts, []string{"kvdeck/views/viewtest", "kvdeck/views/coordkit"}, deptest.Root, others)...)
}
