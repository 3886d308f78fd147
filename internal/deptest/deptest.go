// Package deptest checks which way imports point (house-style: main -> tui ->
// views -> store -> codec). Each package has a deps_test.go that calls
// Forbid with the packages it must never depend on.
package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// Deps returns every package pkg depends on, directly or not.
func Deps(t testing.TB, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// Forbid fails the test when pkg depends on any package whose path equals
// one of forbidden or lies below it (forbidden "kvdeck/tui" also forbids
// "kvdeck/tui/x").
func Forbid(t testing.TB, pkg string, forbidden ...string) {
	t.Helper()
	for _, dep := range Deps(t, pkg) {
		if dep == pkg {
			continue // go list -deps names the package itself; a list may too
		}
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("%s imports %s (directly or not); imports must point main -> tui -> views -> store -> codec", pkg, dep)
			}
		}
	}
}

// StdlibOnly fails the test when pkg depends on anything outside the
// standard library and the module itself.
func StdlibOnly(t testing.TB, pkg string) {
	t.Helper()
	for _, dep := range Deps(t, pkg) {
		first := strings.SplitN(dep, "/", 2)[0]
		if strings.Contains(first, ".") {
			t.Errorf("%s depends on %s; it may use the standard library only", pkg, dep)
		}
	}
}

// Tabs are the packages of the TUI's tabs: none may import another (tabs
// hand over through a message to the root), and nothing below them may
// import one.
var Tabs = []string{
	"kvdeck/views/browse",
	"kvdeck/views/leases",
	"kvdeck/views/alarms",
	"kvdeck/views/queues",
	"kvdeck/views/compose",
	"kvdeck/views/race",
	"kvdeck/views/sweep",
	"kvdeck/views/activity",
	"kvdeck/views/fleet",
}

// Root is what no package but main may import: the root model and the
// command line.
var Root = []string{"kvdeck/tui", "kvdeck/internal/cli"}

// Plus returns the packages of lists followed by more, in a new slice.
func Plus(more []string, lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return append(out, more...)
}
