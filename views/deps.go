package views

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/editsession"
	"kvdeck/store"
)

// Deps is what every tab is built with.
type Deps struct {
	// Store is the engine; every call runs inside a command.
	Store Store
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
	// Edits is the session's private place for values handed to $EDITOR
	// (E) and the editors running on them; nil: the temp dir, untracked.
	Edits *editsession.Session
}

// Store is what the views need of the engine; *store.Store has it.
type Store interface {
	Children(ctx context.Context, prefix codec.Key, opts store.ChildrenOptions) (store.ChildPage, error)
	List(ctx context.Context, opts store.ListOptions) (store.Page, error)
	Commit(ctx context.Context, checks []store.Check, muts []store.Mutation) (store.CommitResult, error)
	ReadOnly() bool
	// Scan, Census, ScanExpired and Sweep serve the Sweep tab.
	Scan(ctx context.Context, opts store.ListOptions, fn func(store.Entry) error) error
	Census(ctx context.Context, opts store.CensusOptions) (store.Stats, error)
	ScanExpired(ctx context.Context, prefix codec.Key, now int64, limit int, fn func(store.Entry) error) error
	Sweep(ctx context.Context, opts store.SweepOptions) (store.SweepResult, error)
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

// ErrNotEngine: store/coord acts on *store.Store; the root always
// passes one, so this only shows if a test wires another Store in.
var ErrNotEngine = errors.New("the coordination views need a kvdeck store (*store.Store)")

// Engine returns the engine behind deps: store/coord's functions take
// *store.Store, which is what the root puts in Deps.Store.
func Engine(deps Deps) (*store.Store, error) {
	s, ok := deps.Store.(*store.Store)
	if !ok || s == nil {
		return nil, ErrNotEngine
	}
	return s, nil
}
