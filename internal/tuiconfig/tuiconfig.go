// Package tuiconfig holds what the command line hands the TUI. It is its
// own package so that internal/cli (which must not import the UI) and tui
// (which must not import the CLI) share one definition; main wires them.
package tuiconfig

import (
	"context"
	"time"

	"kvdeck/internal/editsession"
	"kvdeck/internal/history"
	"kvdeck/internal/journal"
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
	// Stores lists the saved stores (config.toml), read again each time
	// the switcher opens; nil: no saved stores here (the picker and
	// :store NAME say so).
	Stores func() ([]SavedStore, error)
	// OpenStore opens the saved store name as `--store NAME` would: its
	// URL, its own token (no other's), read-only unless the store is
	// saved writable or the command line had --write (--read-only keeps
	// every store read-only), and, opened to write, the write journal of
	// its URL. An unknown name is an error naming the saved stores. The
	// error never holds the token.
	OpenStore func(ctx context.Context, name string) (*store.Store, SavedStore, error)
	// OpenProbe opens the saved store name for the Fleet view: read-only
	// and unchecked (store.Options.Unchecked: no request; the view's one
	// read is the check), with its own token. nil: no Fleet view.
	OpenProbe func(ctx context.Context, name string) (*store.Store, error)
	// ProbeDone, when set, takes back the store OpenProbe returned for
	// name once the Fleet view has read it (err: the read's error): the
	// opener keeps it open for the next read (the token had and the
	// connection made once) and closes it after an error. Without it the
	// view closes the store itself.
	ProbeDone func(name string, err error)
	// Platform reads what the saved store name's platform says of it, in
	// a few words for the Fleet view's PLATFORM column ("lag 3", "blocked
	// writes", a namespace's storage and rows): "" when its entry names
	// no platform to ask. nil: no such column.
	Platform func(ctx context.Context, name string) (string, error)
	// FleetGroup (--fleet GROUP) starts Leases, Alarms and Queues in
	// their fleet mode over the saved stores of GROUP, and the TUI on
	// Alarms; "": the fleet mode's group is the saved store's shown.
	FleetGroup string
	// Current is the saved store the TUI starts on (--store, KVDECK_STORE
	// or the config's default); zero when it started on a URL.
	Current SavedStore
	// Edits is the private directory and the editors of Browse's E; tui.Run
	// makes it and removes it when the session ends or a signal stops it.
	Edits *editsession.Session
	// JournalOff: the session's writes are not journaled (--no-journal or
	// KVDECK_JOURNAL=off). The status bar says so, and z lists the
	// store's journal read-only through ReadJournal (undo is off).
	JournalOff bool
	// StateDir is kvdeck's state directory ($XDG_STATE_HOME/kvdeck, the
	// journal's); "" when there is none: nothing is kept across sessions.
	StateDir string
	// ReadJournal opens the journal of the store at url (as undo --list
	// reads it), nil: none to read.
	ReadJournal func(url string) (*journal.Journal, error)
	// Past, when not empty, names the point in the store's past the TUI
	// shows (--at: "txid 42 · 2026-…"): the store is a read-only restore
	// of it, and the status bar says so while it is shown. PastOf names
	// the store it is the past of (its saved name or URL), which the
	// status bar shows instead of the restore's temporary file.
	Past, PastOf string
	// TimeMachine opens the time machine of the store the TUI started on
	// (its Litestream replica, Turso database or kvdeck record's
	// history, as --at finds it): :at TIME and a key's history (H) read
	// through it. It is called in a command, once. nil: none here.
	TimeMachine func(ctx context.Context) (*history.Machine, error)
}

// SavedStore is a saved store as the TUI shows it: never its token.
type SavedStore struct {
	Name, Group string
	// URL is the store's URL as saved (config.toml holds no token in it;
	// the TUI shows it through store.RedactURL all the same).
	URL string
	// ReadOnly is whether the TUI opens it read-only (as saved, unless
	// --write or --read-only was given).
	ReadOnly bool
}
