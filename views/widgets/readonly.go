package widgets

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
)

// RefuseReadOnly says why a write key does nothing in read-only mode; the
// write bindings are disabled (so help leaves them out), so they are
// matched here on enabled copies. The tabs declare their write keys in a
// views.WriteKeys table instead (its Refuse); the Sweep tab still lists
// its key here.
func RefuseReadOnly(readOnly bool, msg tea.KeyMsg, writes ...key.Binding) tea.Cmd {
	if !readOnly {
		return nil
	}
	for _, b := range writes {
		b.SetEnabled(true)
		if key.Matches(msg, b) {
			return views.Flash(views.FlashError, "read-only: %s is disabled (the store was opened with --read-only)", b.Help().Desc)
		}
	}
	return nil
}

// ReadOnlyNote is the line a coordination view shows instead of its
// action hints in read-only mode.
const ReadOnlyNote = "read-only: the store was opened read-only, so actions are disabled."
