package compose

import "testing"

// TestOpKeyFieldHintsTheSyntax: an op's key field
// says how to write a bare word as a key.
func TestOpKeyFieldHintsTheSyntax(t *testing.T) {
	h := newComposeHarness(t, false)
	h.Keys("n", "ctrl+u")
	h.TypeText("users")
	h.RequireView(`write ["users"]`)
}
