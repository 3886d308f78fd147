// Package tuiconfig holds what the command line hands the TUI. It is its
// own package so that internal/cli (which must not import the UI) and tui
// (which must not import the CLI) share one definition; main wires them.
package tuiconfig

import (
	"context"
	"time"

	"kvdeck/internal/editsession"
	"kvdeck/store"
)

// Config is what the TUI needs from the command line.
type Config struct {
	// Clock is the virtual clock the store was opened with (:clock changes it).
	Clock *store.VirtualClock
	// Open opens another database for :open URL with the same options,
	// sending the auth token only to the server it was given for. Like
	// the store handed to the TUI, a store it opens to write journals its
	// writes (journal.Of finds the journal) unless the journal is off.
	Open func(ctx context.Context, url string) (*store.Store, error)
	// OpenWorkload opens another connection for a workload the TUI runs
	// (the Race tab's workers), with the options and token of Open but
	// without the write journal, as `kvdeck race` does: a workload's
	// writes are not the user's, and would bury them in the journal.
	OpenWorkload func(ctx context.Context, url string) (*store.Store, error)
	// OpenWithToken opens another database with a token typed at the
	// prompt of :open URL --auth-token (nil: the option is refused); on
	// success the token is bound to that server for the Opens that follow.
	OpenWithToken func(ctx context.Context, url, token string) (*store.Store, error)
	// Theme is "auto", "dark", "light" or "high-contrast".
	Theme string
	// Refresh is the live refresh interval (default 1s).
	Refresh time.Duration
	// Edits is the private directory and the editors of Browse's E; tui.Run
	// makes it and removes it when the session ends or a signal stops it.
	Edits *editsession.Session
}
