package usertext

import (
	"strings"

	"kvdeck/codec"
)

// ParseStamp reads a versionstamp typed by a user (codec.ParseStamp's
// rule: exactly 20 digits, at least 1; spaces around it are ignored) and
// returns it in its 20-digit form. Errors match codec.ErrBadStamp.
func ParseStamp(s string) (string, error) {
	n, err := codec.ParseStamp(strings.TrimSpace(s))
	if err != nil {
		return "", err
	}
	return codec.FormatStamp(n), nil
}

// StampText shows a check's expected stamp: the stamp, or "absent" when
// the key must be absent.
func StampText(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}
