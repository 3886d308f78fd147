package activity

import (
	"strings"
	"testing"

	"kvdeck/views/widgets"
)

// TestFilterKeyPrefixHintsTheSyntax: a / filter that
// starts as a key prefix but does not parse says the key syntax; a bare
// word is a word to find, not an error.
func TestFilterKeyPrefixHintsTheSyntax(t *testing.T) {
	var m Model
	if err := m.setFilter(`["users`); err == nil || !strings.Contains(err.Error(), widgets.KeySyntax) {
		t.Errorf(`/["users: %v, want the key syntax`, err)
	}
	if err := m.setFilter("users"); err != nil {
		t.Errorf("/users: %v", err)
	}
	if !strings.Contains(filterHint, `["dwk_lease"]`) {
		t.Errorf("the filter's placeholder %q shows no key prefix", filterHint)
	}
}
