//go:build !linux

package cli

import (
	"os"
	"testing"
)

// openPTY skips: the tests open pseudo-terminals on Linux only.
func openPTY(t *testing.T, cols, rows int) (master, slave *os.File) {
	t.Helper()
	t.Skip("pseudo-terminal tests run on Linux")
	return nil, nil
}
