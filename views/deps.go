package views

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/editsession"
	"kvdeck/store"
)

// Deps is what every tab is built with.
type Deps struct {
	// Store is the engine; every call runs inside a command. It is the
	// concrete store (no interface: the views are tested against the real
	// engine on a file and on sqld, never a stand-in).
	Store *store.Store
	// Now is the virtual clock (epoch ms), read when rendering countdowns.
	Now func() int64
	// Clipboard copies text (OSC 52).
	Clipboard func(string) error
	// Session tags the view's answers: the root raises it when it opens
	// another database, so that answers from the old store are dropped.
	Session int
	// Open opens another connection to the same database with the same
	// options (the Race tab's live workers, one each); nil when the shell
	// cannot, and the view then says so.
	Open func(ctx context.Context) (*store.Store, error)
	// Live is the live store while Store is a point of its past (:at,
	// read-only): Browse shows a key then and now. nil otherwise.
	Live *store.Store
	// Edits is the session's private place for values handed to $EDITOR
	// (E) and the editors running on them; nil: the temp dir, untracked.
	Edits *editsession.Session
	// StateDir is where kvdeck keeps what outlives a session (the
	// journal's $XDG_STATE_HOME/kvdeck: 0700, files 0600), such as the
	// commands typed at Browse's | prompt; "" keeps nothing (tests).
	StateDir string
	// Fleet are the saved stores Leases, Alarms and Queues read at once
	// in their fleet mode (members.go).
	Fleet Members
}

// Deadlines of the store calls made by commands: a read that takes longer
// shows an error instead of a frozen "loading…".
const (
	ReadTimeout  = 10 * time.Second
	WriteTimeout = 15 * time.Second
)

// StoreCmd runs call off the UI goroutine with a deadline of timeout
// (ReadTimeout or WriteTimeout); the message call returns answers it.
func StoreCmd(timeout time.Duration, call func(ctx context.Context) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		return call(ctx)
	}
}
