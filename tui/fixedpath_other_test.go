//go:build !unix

package tui

import "testing"

// lockFixedPath: without flock, tests of two checkouts at once may collide
// on the fixed path; CI runs one checkout.
func lockFixedPath(t *testing.T, dir string) {}
