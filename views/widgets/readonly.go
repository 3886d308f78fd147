package widgets

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
)

// RefuseReadOnly says why a write key does nothing in read-only mode; the
// write bindings are disabled (so help leaves them out), so they are
// matched here on enabled copies.
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

// DisableBindings turns bindings off, for read-only mode.
func DisableBindings(bs ...*key.Binding) {
	for _, b := range bs {
		b.SetEnabled(false)
	}
}

// ReadOnlyNote is the line a coordination view shows instead of its
// action hints in read-only mode.
const ReadOnlyNote = "read-only: the store was opened read-only, so actions are disabled."
