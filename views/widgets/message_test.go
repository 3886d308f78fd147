package widgets

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestFitMessageKeepsTheVerb: a message too wide loses the middle of its
// key, not what it says of it; a message without a key, or whose key is
// as short as it goes, is cut at its end.
func TestFitMessageKeepsTheVerb(t *testing.T) {
	for _, c := range []widthCase{
		{`["dwk_queue_due", "invoices", 1767312005000, "m-0004"] is gone`, 46, []string{`["dwk_queue`, `"m-0004"] is gone`}},
		{`not deleted: ["users", "alice \"]\" 0123456789abcdef"] changed after it was shown`, 56, []string{"not deleted: [", `def"] changed after it was shown`}},
		{`deleted ["a", "b"]`, 10, []string{"deleted […"}},
		{"no key here, only words that go on and on", 20, []string{"no key here, only w…"}},
	} {
		got := FitMessage(c.text, c.w)
		if ansi.StringWidth(got) > c.w {
			t.Errorf("FitMessage(%q, %d) = %q: %d cells", c.text, c.w, got, ansi.StringWidth(got))
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("FitMessage(%q, %d) = %q, lacks %q", c.text, c.w, got, w)
			}
		}
	}
	if got := FitMessage("short", 20); got != "short" {
		t.Errorf("a message that fits changed: %q", got)
	}
}

// TestFitMessageKeepsAKeyFollowedByWords: a key that a cut at the end
// leaves followed by enough words keeps its length.
func TestFitMessageKeepsAKeyFollowedByWords(t *testing.T) {
	s := `acquired ["dwk_lease", "Cart", "abcabcabcabcabcabcabcabcabcabc12"] as holder 9b2f0d0e-6a6a-4b8e-9b1f-0d7d0c9f1e2a at stamp 00000000000000000039; d releases it`
	if got := FitMessage(s, 105); !strings.HasPrefix(got, `acquired ["dwk_lease", "Cart", "abcabcabcabcabcabcabcabcabcabc12"] as holder`) {
		t.Errorf("the key was shortened though words follow it: %q", got)
	}
}
