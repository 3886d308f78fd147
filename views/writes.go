package views

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Ask is how a write key asks before anything is written.
type Ask int

// The ways a write key asks first.
const (
	// AskDialog: the key sends a ConfirmMsg naming what will change; the
	// write is its Do.
	AskDialog Ask = iota
	// AskForm: the key opens a form that shows the whole write (key,
	// value, expiry, the check it runs under); its submit key is the
	// confirmation, and a submit that would change nothing writes nothing.
	AskForm
	// AskNone: the key writes nothing itself; it stages a write that
	// another key of the table commits, and that key asks (read-only
	// refuses it all the same: the commit could not be made).
	AskNone
)

// WriteKey declares one key of a tab that writes to the store. Each tab
// lists its write keys once (its Keys.Writes); that one list disables
// them in read-only mode (Disable, so help leaves them out), says why
// when one is pressed there (Refuse, with What), and is what the tests
// walk: read-only, each key is refused with its reason and writes
// nothing; writable, each asks (Asks) before anything is written.
type WriteKey struct {
	// Binding points into the tab's key map.
	Binding *key.Binding
	// What names the action in the refusal: "edit value", "delete".
	What string
	// Asks is how the key asks before it writes.
	Asks Ask
}

// WriteKeys is a tab's table of write keys.
type WriteKeys []WriteKey

// Disable turns every write key off (read-only mode).
func (ws WriteKeys) Disable() {
	for _, w := range ws {
		w.Binding.SetEnabled(false)
	}
}

// Match is the write key msg presses, matched whether or not it is
// enabled (a disabled key must still be recognised to be refused).
func (ws WriteKeys) Match(msg tea.KeyMsg) (WriteKey, bool) {
	for _, w := range ws {
		b := *w.Binding
		b.SetEnabled(true)
		if key.Matches(msg, b) {
			return w, true
		}
	}
	return WriteKey{}, false
}

// Refuse says why a write key does nothing when the store is read-only;
// nil when it is not, or when msg is none of the write keys.
func (ws WriteKeys) Refuse(readOnly bool, msg tea.KeyMsg) tea.Cmd {
	if !readOnly {
		return nil
	}
	if w, ok := ws.Match(msg); ok {
		return Flash(FlashError, "%s", w.Refusal())
	}
	return nil
}

// Refusal is the read-only refusal of w, with its reason.
func (w WriteKey) Refusal() string {
	return "read-only: " + w.What + " (" + w.Binding.Help().Key + ") is off: the store is open read-only (--read-only, or saved read-only: --write opens it to write), so kvdeck writes nothing"
}
