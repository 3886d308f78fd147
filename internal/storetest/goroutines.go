package storetest

import (
	"runtime"
	"strings"
	"testing"
)

// NoGoroutinesOf fails the test when a goroutine still runs code of the
// package pkg (its import path) once what returned, showing the first
// one's stack. The frames of pkg's external test package ("pkg_test")
// do not count.
func NoGoroutinesOf(t testing.TB, pkg, what string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, pkg+".") {
			t.Fatalf("a goroutine still runs %s code after %s returned:\n%s", pkg, what, g)
		}
	}
}
