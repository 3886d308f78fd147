package usertext

import (
	"errors"
	"strings"
	"testing"

	"kvdeck/codec"
)

func TestParseStamp(t *testing.T) {
	if got, err := ParseStamp(" 00000000000000000042 "); err != nil || got != "00000000000000000042" {
		t.Errorf("ParseStamp = %q, %v", got, err)
	}
	for _, bad := range []string{"", "42", "00000000000000000000", "0000000000000000004x", "absent"} {
		if _, err := ParseStamp(bad); !errors.Is(err, codec.ErrBadStamp) {
			t.Errorf("ParseStamp(%q): %v, want codec.ErrBadStamp", bad, err)
		}
	}
	if StampText("") != "absent" || StampText("00000000000000000042") != "00000000000000000042" {
		t.Error("StampText")
	}
}

// FuzzParseStamp: an accepted stamp is the canonical 20-digit form of
// what was typed.
func FuzzParseStamp(f *testing.F) {
	for _, s := range []string{"00000000000000000042", " 00000000000000000001", "42", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stamp, err := ParseStamp(s)
		if err != nil {
			return
		}
		if n, err := codec.ParseStamp(stamp); err != nil || codec.FormatStamp(n) != stamp || stamp != strings.TrimSpace(s) {
			t.Fatalf("%q accepted as %q", s, stamp)
		}
	})
}
