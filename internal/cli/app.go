package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kvdeck/internal/demo"
	"kvdeck/internal/editsession"
	"kvdeck/internal/journal"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

// TUIRunner shows the TUI on s until the user quits.
type TUIRunner func(ctx context.Context, s *store.Store, cfg tuiconfig.Config) error

// App is what every command's Run method receives: the parsed global
// flags, the output, the environment and the store connection. One App
// serves one command.
type App struct {
	// Globals are the parsed global flags.
	Globals Globals
	// Out is where results go (stdout).
	Out *Printer
	// Stdin is the input of FILE arguments given as "-".
	Stdin io.Reader
	// Stderr receives warnings; the token is redacted from it.
	Stderr io.Writer
	// Env is the environment the command runs in.
	Env map[string]string
	// Clock is the virtual clock built from --now / --clock-offset.
	Clock *store.VirtualClock

	ctx context.Context
	tui TUIRunner
	// demoProgress is passed to the demo's simulation (WithDemoProgress).
	demoProgress func(demo.Summary)
	// wrapRecorder, when set (tests), wraps the journal each store gets.
	wrapRecorder func(store.Recorder) store.Recorder
	// terminal reports whether stdin is a terminal (undo's question).
	terminal func(io.Reader) bool
	// command is the command's path ("lease acquire"); writes is what its
	// Writes method names (writer), "" for a command that only reads.
	command, writes string
	pinned          atomic.Int64 // epoch ms while Pinned runs; 0 otherwise
	// oneCall: the command makes one call on its store (OpenForOneCall).
	oneCall bool
	// cost sums what the closed stores cost (--stats).
	cost store.Cost

	mu     sync.Mutex
	stores []*store.Store
	// after runs once the stores are closed: what made a past readable
	// goes (a restored file, a branch database: timemachine.go).
	after []func()
	dir   *editsession.Session // the private directory of restored points
	// past names the point --at opened and pastOf its store, for the
	// TUI's status bar.
	past, pastOf string
	tokens       tokenScope // the TUI's tokens, each bound to its server
	// probes are the Fleet view's stores, kept open between its reads.
	probes  fleetMembers
	minted  mintedTokens // Turso group tokens minted this session (tenants.go)
	listing tursoListing // Turso groups' listings, shared by a Fleet refresh
}

// Context is the command's context, cancelled on interrupt.
func (a *App) Context() context.Context { return a.ctx }

// Now is the store's current time in epoch milliseconds: the virtual
// clock, or the pinned instant while Pinned runs.
func (a *App) Now() int64 {
	if ms := a.pinned.Load(); ms != 0 {
		return ms
	}
	return a.Clock.Now()
}

// Pinned runs fn with the store's clock frozen at the current time, so
// that several reads and a commit (e.g. a batch of load) agree on "now" to
// the millisecond; fn receives that instant.
func (a *App) Pinned(fn func(now int64) error) error {
	now := a.Clock.Now()
	a.pinned.Store(now)
	defer a.pinned.Store(0)
	return fn(now)
}

// StoreOptions are the options every store of this command is opened with.
func (a *App) StoreOptions() store.Options {
	return store.Options{
		AuthToken:   a.Globals.ResolveToken(a.Env),
		ReadOnly:    a.Globals.ReadOnly,
		Clock:       a.Now,
		BusyTimeout: a.Globals.BusyTimeout,
		OneShot:     a.oneCall,
	}
}

// OpenForOneCall is Open for a command that makes one call on the store
// (get): over HTTP the schema check goes in that call's request
// (store.Options.OneShot), so the command sends one request.
func (a *App) OpenForOneCall() (*store.Store, error) {
	a.oneCall = true
	return a.Open()
}

// OpenToWriteForOneCall is OpenToWrite for a command that makes one write
// (set, delete, atomic; an atomic whose check fails re-reads the checked
// keys in a second request).
func (a *App) OpenToWriteForOneCall(create Creation) (*store.Store, error) {
	a.oneCall = true
	return a.OpenToWrite(create)
}

// Open opens the store the global flags and environment select (--db,
// KVDECK_DB, ...). It is closed when the command returns.
func (a *App) Open() (*store.Store, error) {
	if a.Globals.At != "" {
		return a.OpenPast() // the store as it was (timemachine.go)
	}
	url, source := a.Globals.ResolveDB(a.Env)
	s, err := a.OpenURL(a.ctx, url)
	if err != nil && source == "default" && errors.Is(err, store.ErrNotStore) {
		err = demoHint(err)
	}
	return s, err
}

// demoHint replaces the hint of a missing default database (kvdeck.db)
// where the demo's store is beside it: a newcomer who ran `kvdeck demo`
// and then `kvdeck watch ...` in the same directory is sent to the demo's
// store, not to `kvdeck init`, which would create an empty one (issue 22
// point 16).
func demoHint(err error) error {
	path, demoPath := strings.TrimPrefix(DefaultDB, "file:"), strings.TrimPrefix(DemoDB, "file:")
	if _, serr := os.Stat(path); !errors.Is(serr, fs.ErrNotExist) {
		return err
	}
	if _, serr := os.Stat(demoPath); serr != nil {
		return err
	}
	return fmt.Errorf("%w: no database at %s (the default: no --db, %s); kvdeck demo keeps its store in %s, which is here: add --db %s", store.ErrNotStore, path, strings.Join(DBEnv(), ", "), demoPath, DemoDB)
}

// Creation says whether a write may create the store where there is none
// yet (a missing or empty file, a database without tables).
type Creation bool

const (
	// MayCreate: a first write creates the store and says so on stderr
	// (set, delete, load, atomic, lease acquire, alarm set, queue send,
	// race, demo). A database with other tables is still refused: only
	// `init --force` adds a store to it.
	MayCreate Creation = true
	// MustExist: the write acts on what is there (release, purge, fire,
	// sweep, undo, index), so a missing store is an error, not a new one.
	MustExist Creation = false
)

// writer is implemented by every command that writes: Writes names the
// write in the read-only refusal ("lease acquire"), or is "" when this
// invocation only reads (sweep --dry-run, undo --list). Main refuses a
// writer under --read-only before its Run starts, so no input is read
// and nothing is opened; OpenToWrite refuses too, so a command that
// writes without declaring it is refused all the same.
type writer interface{ Writes() string }

// readOnlyRefusal is the one refusal of a write under --read-only (nil
// when the store is writable); what names the write.
func (a *App) readOnlyRefusal(what string) error {
	if err := a.pastRefusal(what); err != nil {
		return err // --at (timemachine.go)
	}
	if !a.Globals.ReadOnly {
		return nil
	}
	if what == "" {
		what = a.command
	}
	return fmt.Errorf("%w: %s refused; %s", store.ErrReadOnly, what, a.Globals.readOnlyReason())
}

// OpenToWrite is the one opener of a command that writes: refused under
// --read-only (readOnlyRefusal), else the store of the global flags with
// the journal attached, created there or not as create says. It is
// closed when the command returns.
func (a *App) OpenToWrite(create Creation) (*store.Store, error) {
	url, _ := a.Globals.ResolveDB(a.Env)
	return a.OpenURLToWrite(a.ctx, url, create)
}

// OpenURLToWrite is OpenToWrite on another database (the demo's).
func (a *App) OpenURLToWrite(ctx context.Context, url string, create Creation) (*store.Store, error) {
	opts := a.StoreOptions()
	opts.Create = bool(create)
	return a.openToWrite(ctx, url, opts)
}

// openToWrite refuses under --read-only, else opens url with opts (init
// adds Force).
func (a *App) openToWrite(ctx context.Context, url string, opts store.Options) (*store.Store, error) {
	if err := a.readOnlyRefusal(a.writes); err != nil {
		return nil, err
	}
	return a.open(ctx, url, opts)
}

// OpenURL opens another database with the same options (token,
// read-only, clock, busy timeout). It is closed when the command returns.
func (a *App) OpenURL(ctx context.Context, url string) (*store.Store, error) {
	return a.openWith(ctx, url, a.Globals.ResolveToken(a.Env))
}

// openWith is OpenURL with the given auth token.
func (a *App) openWith(ctx context.Context, url, token string) (*store.Store, error) {
	opts := a.StoreOptions()
	opts.AuthToken = token
	return a.open(ctx, url, opts)
}

// open opens url with opts, announces a store it created, and closes the
// store when the command returns.
func (a *App) open(ctx context.Context, url string, opts store.Options) (*store.Store, error) {
	opts, err := a.tenancy(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	s, err := store.Open(ctx, url, opts)
	if err != nil {
		if errors.Is(err, store.ErrNoStoreYet) && a.Globals.ReadOnly {
			// Only where the user's --read-only (or the saved store's)
			// made the open read-only: diff opens its sides read-only
			// without being asked.
			err = fmt.Errorf("%w; %s creates a store there", err, a.Globals.initCommand(url))
		}
		return nil, err
	}
	if !opts.ReadOnly {
		a.attachJournal(s, url)
	}
	if s.Created() && s.Info().Transport == store.TransportFile {
		// A remote database without tables is initialised silently on any
		// open, as the reference does: no typo creates a server database.
		fmt.Fprintf(a.Stderr, "kvdeck: created a new store at %s\n", s.Info().Display)
	}
	a.mu.Lock()
	a.stores = append(a.stores, s)
	a.mu.Unlock()
	return s, nil
}

// Writable refuses a write under --read-only (readOnlyRefusal); what
// names it. Commands declare their writes with a Writes method instead
// (writer); this is for a write elsewhere than the store (bench --remote).
func (a *App) Writable(what string) error { return a.readOnlyRefusal(what) }

// Warnf prints a warning to stderr ("kvdeck: warning: ...").
func (a *App) Warnf(format string, args ...any) {
	fmt.Fprintf(a.Stderr, "kvdeck: warning: "+format+"\n", args...)
}

// RunTUI shows the TUI on s with the global theme and clock. The auth
// token is bound to s's server: the TUI sends it there and nowhere else.
func (a *App) RunTUI(s *store.Store, refresh time.Duration) error {
	if a.tui == nil {
		return fmt.Errorf("this build of kvdeck has no TUI; use the commands (kvdeck --help)")
	}
	if err := a.Out.Flush(); err != nil {
		return err
	}
	a.tokens.bind(s.Info().Display, a.Globals.ResolveToken(a.Env))
	cfg := tuiconfig.Config{Clock: a.Clock, Open: a.openScoped, OpenWorkload: a.openWorkload, OpenWithToken: a.openWithToken, Theme: a.Globals.Theme, Refresh: refresh, Past: a.past, PastOf: a.pastOf}
	a.savedForTUI(&cfg) // the store switcher (cmd_tui.go)
	return a.tui(a.ctx, s, cfg)
}

// close closes every store the command opened.
func (a *App) close() {
	a.probes.close()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.stores {
		if j := journal.Of(s); j != nil {
			if j.Err() != nil {
				a.Warnf("%v; kvdeck undo --list settles it by reading its keys", j.Err())
			}
			for _, n := range j.Notices() {
				a.Warnf("%s", n)
			}
		}
		_ = s.Close()
		c := s.Cost()
		a.cost.Requests += c.Requests
		a.cost.BytesSent += c.BytesSent
		a.cost.BytesReceived += c.BytesReceived
		a.cost.RowsRead += c.RowsRead
		a.cost.RowsWritten += c.RowsWritten
		if left := s.LeftFiles(); len(left) > 0 {
			// Read-only promises to leave the directory as it was; where
			// it could not, say so (store/readonly.go tells why).
			fmt.Fprintf(a.Stderr, "kvdeck: note: %s did not exist when kvdeck opened %s read-only and exist now: SQLite creates them to read a WAL database (a writer opened it meanwhile, or one of them was missing); kvdeck leaves them, since another process may use them, and the last writer to close removes them\n", strings.Join(left, " and "), s.Info().Display)
		}
	}
	a.stores = nil
	for i := len(a.after) - 1; i >= 0; i-- {
		a.after[i]()
	}
	a.after = nil
}
