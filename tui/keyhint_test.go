package tui

import (
	"strings"
	"testing"
)

// TestGotoSaysHowToWriteAKey: :goto with a bare word
// says the key to type.
func TestGotoSaysHowToWriteAKey(t *testing.T) {
	for line, want := range map[string]string{
		"goto users":     `write ["users"]`,
		`goto "users"`:   `write ["users"]`,
		`goto ["users"`:  `["users", 42]: a list of parts`,
		`goto users, 42`: `["users", 42]: a list of parts`,
	} {
		if _, err := parseCommand(line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf(":%s: %v, want it to say %q", line, err, want)
		}
	}
}
