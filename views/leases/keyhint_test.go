package leases

import (
	"strings"
	"testing"
)

// TestAcquireKeyFieldSaysHowToWriteIt (issue 22 point 11): the acquire
// form's key field says the key to type for a bare word.
func TestAcquireKeyFieldSaysHowToWriteIt(t *testing.T) {
	if _, err := checkLeaseKey("Cart"); err == nil || !strings.Contains(err.Error(), `write ["Cart"]`) {
		t.Errorf("checkLeaseKey(Cart): %v", err)
	}
}
