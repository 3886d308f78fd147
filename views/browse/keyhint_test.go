package browse

import "testing"

// TestNewKeyFieldHintsTheSyntax: n's key field shows
// the key syntax while empty, and a bare word says how to write it.
func TestNewKeyFieldHintsTheSyntax(t *testing.T) {
	h := newHarness(t, false, 200, 30)
	h.Keys("n")
	h.RequireView("NEW KEY", "❯ key", `["accounts", `) // the selected prefix, to go on from
	h.Keys("ctrl+u")
	h.RequireView(`key ["users", 42]: a list of parts`)
	h.TypeText("users")
	h.RequireView(`write ["users"]`)
}
