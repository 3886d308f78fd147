package browse

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestEntryFormMarksTheFocus: the entry form is the TUI's one form
// (widgets.Form): the focused field is marked with ❯, so it shows without
// colour too (issue 13: forms show focus clearly; before, only the
// textarea's cursor told which field had the keys), and the keys it takes
// are on screen.
func TestEntryFormMarksTheFocus(t *testing.T) {
	h := newHarness(t, false, 100, 30)
	goTo(h, `["accounts", "acme"]`)
	h.Keys("e")
	h.RequireView("❯ value", "ctrl+s save (only if unchanged)")
	t.Run("edit", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("tab")
	h.RequireView("❯ ttl")
	if strings.Contains(h.M.View(), "❯ value") {
		t.Fatalf("two fields marked:\n%s", h.M.View())
	}
	h.Keys("esc", "n")
	h.RequireView("NEW KEY", "❯ key")
	t.Run("new", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
}

// TestTTLFieldParsesAsTheCLIDoes: the TTL field takes durations through
// usertext, as the CLI and the other forms: whole milliseconds, at least
// one (issue 24 point 2: time.ParseDuration took "500us" as 0 ms, so the
// row was expired as it was written, and "1.5ms" as 1 ms).
func TestTTLFieldParsesAsTheCLIDoes(t *testing.T) {
	f := &entryForm{}
	for text, want := range map[string]string{"30s": "30s", " 5m ": "5m0s", "1ms": "1ms", "none": "", "": ""} {
		d, err := f.expireIn(text, 0)
		got := ""
		if d != nil {
			got = d.String()
		}
		if err != nil || got != want {
			t.Errorf("%q: %v, %v; want %q", text, got, err, want)
		}
	}
	for _, text := range []string{"500us", "1.5ms", "0s", "-5s", "soon"} {
		if d, err := f.expireIn(text, 0); err == nil {
			t.Errorf("%q: accepted as %v; want a refusal", text, *d)
		}
	}
}
