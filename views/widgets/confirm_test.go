package widgets

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"kvdeck/themes"
	"kvdeck/views"
)

// TestConfirmDialogIsTerminalSafe: a title or line quoting a stored name
// (Purge <queue>?, Fire alarms of <class>?) shows it escaped (before the
// fix the queue name reached the terminal raw in the purge dialog).
func TestConfirmDialogIsTerminalSafe(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	d := NewConfirmDialog(DefaultConfirmKeys(), themes.NewStyles(themes.Dark()))
	d.SetSize(100, 30)
	d.Ask(views.ConfirmMsg{Title: "Purge q\x1b]52;c;eA==\x07: delete its 1 message(s)?", Lines: []string{"of \u009b2J\u202eclass"}})
	v := d.View()
	for _, raw := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
		if strings.Contains(v, raw) {
			t.Errorf("the dialog shows %q raw:\n%s", raw, v)
		}
	}
	if !strings.Contains(v, `q\u001b]52;c;eA==\u0007`) {
		t.Errorf("the dialog does not show the escaped name:\n%s", v)
	}
}
