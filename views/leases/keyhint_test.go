package leases

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// TestAcquireKeyFieldSaysHowToWriteIt: the acquire
// form's key field says the key to type for a bare word.
func TestAcquireKeyFieldSaysHowToWriteIt(t *testing.T) {
	if _, err := checkLeaseKey("Cart"); err == nil || !strings.Contains(err.Error(), `write ["Cart"]`) {
		t.Errorf("checkLeaseKey(Cart): %v", err)
	}
}

// TestLeasesHintsNameTheirKeys: the hints that name a key take it from
// the key table: the stamp's "B checks it" (break is B, not b), the
// acquire form's "d can release it" (not r), the refused release's "B
// breaks it"; rebound, each names the new key.
func TestLeasesHintsNameTheirKeys(t *testing.T) {
	h := seededLeases(t)
	selectLease(t, h, coord.LeaseKey("Cart", viewtest.IDCart1))
	h.RequireView("(fencing token; B checks it)")
	h.Keys("n")
	h.RequireView("d can release it")
	h.Keys("esc")

	h.M.keys.Release = key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "release"))
	h.M.keys.Break = key.NewBinding(key.WithKeys("Z"), key.WithHelp("Z", "break"))
	h.RequireView("(fencing token; Z checks it)", "x release (kvdeck's) · Z break")
	h.Keys("x")
	h.RequireFlash("cannot release it; Z breaks it")
	h.Keys("n")
	h.RequireView("x can release it")
}
