package widgets

import (
	"strings"
	"testing"

	"kvdeck/themes"
)

// TestParseKeySaysHowToWriteIt: a prompt that takes a
// key shows the syntax while empty, and a bare word's error says what to
// type instead ("users" gave only "expected '[' to start a key").
func TestParseKeySaysHowToWriteIt(t *testing.T) {
	for text, want := range map[string]string{
		"users":       `write ["users"]`,
		" users ":     `write ["users"]`,
		`"users", 42`: `write ["users", 42]`,
		"42":          `write [42]`,
		"users/alice": `write ["users/alice"]`,
		"":            "type a key: " + KeySyntax,
		`["users"`:    "(a key: " + KeySyntax + ")",
		`"users`:      "(a key: " + KeySyntax + ")",
	} {
		_, err := ParseKey(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseKey(%q): %v, want it to say %q", text, err, want)
		}
	}
	if k, err := ParseKey(`["users", 42]`); err != nil || len(k) != 2 {
		t.Errorf(`ParseKey(["users", 42]) = %v, %v`, k, err)
	}
	st := themes.NewStyles(themes.Mono())
	if got := KeyFeedback(st, ""); !strings.Contains(got, `["users", 42]`) || !strings.Contains(got, `b"00ff"`) {
		t.Errorf("an empty key field's feedback %q shows no syntax", got)
	}
	if got := KeyFeedback(st, "users"); !strings.Contains(got, `write ["users"]`) {
		t.Errorf("feedback for users: %q", got)
	}
}
