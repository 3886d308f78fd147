package tui

import (
	"strings"
	"testing"

	"kvdeck/themes"
	"kvdeck/views"
)

// TestLogWrapsAtSpacesOnly: the log wraps with the one word wrapper of the
// TUI (widgets.Wrap), which never splits a time or an id at its dashes
// (ansi.Wrap, used here before, broke "2026-01-02T00:00:30Z" after "2026-").
func TestLogWrapsAtSpacesOnly(t *testing.T) {
	m := model{width: 50, styles: themes.NewStyles(themes.Dark())}
	m.flash.log = []logEntry{{msg: views.FlashMsg{Text: "the lease lapses at 2026-01-02T00:00:30Z, re-acquire it"}}}
	text := strings.Join(m.logLines(), "\n")
	if !strings.Contains(text, "2026-01-02T00:00:30Z") {
		t.Fatalf("the time is split:\n%s", text)
	}
}
