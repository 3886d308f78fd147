package cli

import (
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
)

// FuzzCoordArgs feeds arbitrary text to the argument parsers the
// coordination commands add: they never panic, an accepted versionstamp is
// the canonical 20-digit form of what was typed, and an accepted duration
// is a whole, non-negative number of milliseconds.
func FuzzCoordArgs(f *testing.F) {
	for _, s := range []string{"00000000000000000042", "42", " 00000000000000000001 ", "", "30s", "0s", "-1s", "1.5ms", "1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if stamp, err := parseStamp("X", s); err == nil {
			if n, err := codec.ParseStamp(stamp); err != nil || codec.FormatStamp(n) != stamp || stamp != strings.TrimSpace(s) {
				t.Fatalf("%q accepted as %q", s, stamp)
			}
		}
		for _, zeroOK := range []bool{false, true} {
			if d, err := positiveDuration("X", s, zeroOK); err == nil && (d < 0 || d == 0 && !zeroOK || d%time.Millisecond != 0) {
				t.Fatalf("%q accepted as %s (zeroOK %v)", s, d, zeroOK)
			}
		}
	})
}
