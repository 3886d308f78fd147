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
	// name is what kvdeck was invoked as (WithName), without a path.
	name string
	// command is the command's path ("lease acquire"); writes is what its
	// Writes method names (writer), "" for a command that only reads.
	command, writes string
	pinned          atomic.Int64 // epoch ms while Pinned runs; 0 otherwise
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
	// probes are the Fleet view's stores (and the fleet mode's of the
	// coordination tabs), kept open between their reads.
	probes fleetMembers
	// tuiFleet is kvdeck tui --fleet's group.
	tuiFleet string
	minted   mintedTokens // Turso group tokens minted this session (tenants.go)
	listing  tursoListing // Turso groups' listings, shared by a Fleet refresh
	// inTUI: the TUI has the terminal (lockedReadNote); noteMu keeps the
	// notes of stores read at once (the fleet's) apart.
	inTUI  atomic.Bool
	noteMu sync.Mutex
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

// lockedReadNote says on stderr, once per store, that kvdeck reads a
// rollback-journal file with SQLite's locks (store.Options.OnLockedRead),
// before it does; not while the TUI has the terminal (it shows the store's
// LockedReadNote itself).
func (a *App) lockedReadNote(text string) {
	if a.inTUI.Load() {
		return
	}
	a.noteMu.Lock()
	defer a.noteMu.Unlock()
	fmt.Fprintf(a.Stderr, "kvdeck: note: %s\n", text)
}

// Opening says how App.Open opens a store. Its zero value opens the
// store the global flags select (--db, --store, KVDECK_DB, ...; as it
// was at --at) with the global token, read-only when they say so, to
// read, and closes it when the command returns.
type Opening struct {
	// URL opens another database; "" the global flags' own.
	URL string
	// Token is the auth token URL's server gets ("" none); the global
	// flags' store gets the global token. A token goes only to the store
	// it was given for (globalTokenFor).
	Token string
	// Write: the command writes here, and is refused under --read-only
	// and --at (readOnlyRefusal); the global flags' store is then the
	// live one, even under --at (put-back).
	Write bool
	// Create makes a store where there is none (MayCreate); Force adds
	// its tables to a database that has others (init --force).
	Create Creation
	Force  bool
	// Access overrides the global flags' read-only where they do not
	// decide it.
	Access Access
	// OneCall: the command makes one call on the store (get, set), and
	// over HTTP the schema check goes in that call's request
	// (store.Options.OneShot), so the command sends one request.
	OneCall bool
	// Unchecked opens with no request: the first read is the check
	// (store.Options.Unchecked, the fleet's pulse).
	Unchecked bool
	// Timeout bounds each request to a server (0: none).
	Timeout time.Duration
	// Replica is a read replica's URL to read through (a saved store's
	// replica_url, store.Options.Replica).
	Replica string
	// Own: the caller closes the store (a race's workers, a fleet's
	// members kept between reads), and it is not journaled. Else the
	// store is closed when the command returns, and journaled unless it
	// is read-only.
	Own bool
}

// Access says whether a store is opened read-only.
type Access int

const (
	// AsFlags: read-only under --read-only or for a store saved
	// read-only (unless --write).
	AsFlags Access = iota
	// ReadOnly whatever the flags say: a diff side, copy's --from,
	// record, the fleet, a point of the past.
	ReadOnly
	// Writable whatever the flags say: a store whose read-only the
	// command decided itself (copy's --to, the TUI's store switcher).
	Writable
)

// Open is the one opener of a command's stores (see Opening). A write is
// refused under --read-only (readOnlyRefusal) before anything is opened;
// a store created where there was none is said on stderr.
func (a *App) Open(ctx context.Context, o Opening) (*store.Store, error) {
	if o.Write {
		if err := a.readOnlyRefusal(a.writes); err != nil {
			return nil, err
		}
	}
	url, token, source := o.URL, o.Token, ""
	if url == "" {
		if a.Globals.At != "" && !o.Write {
			return a.OpenPast() // the store as it was (timemachine.go)
		}
		url, source = a.Globals.ResolveDB(a.Env)
		token = a.Globals.ResolveToken(a.Env)
	}
	opts := store.Options{
		AuthToken:      token,
		ReadOnly:       a.Globals.ReadOnly,
		Clock:          a.Now,
		BusyTimeout:    a.Globals.BusyTimeout,
		OneShot:        o.OneCall,
		Create:         bool(o.Create),
		Force:          o.Force,
		Unchecked:      o.Unchecked,
		RequestTimeout: o.Timeout,
		Replica:        o.Replica,
		OnLockedRead:   a.lockedReadNote,
	}
	if o.Access != AsFlags {
		opts.ReadOnly = o.Access == ReadOnly
	}
	opts, err := a.tenancy(ctx, url, opts) // the saved store's replica, a minted token
	if err != nil {
		return nil, err
	}
	s, err := store.Open(ctx, url, opts)
	if err != nil && !o.Own {
		err = a.openError(err, url, source)
	}
	if err != nil {
		return nil, err
	}
	if !opts.ReadOnly && !o.Own {
		a.attachJournal(s, url)
	}
	if s.Created() && s.Info().Transport == store.TransportFile {
		// A remote database without tables is initialised silently on any
		// open, as the reference does: no typo creates a server database.
		fmt.Fprintf(a.Stderr, "kvdeck: created a new store at %s\n", s.Info().Display)
	}
	if !o.Own {
		a.mu.Lock()
		a.stores = append(a.stores, s)
		a.mu.Unlock()
	}
	return s, nil
}

// openError adds to a refused open of a store the command keeps what
// the user can do: a missing store under --read-only is created by
// init; a missing default database beside the demo's store is the demo's
// (demoHint). A store its caller owns (a fleet's, a worker's) says its
// error as it is.
func (a *App) openError(err error, url, source string) error {
	if errors.Is(err, store.ErrNoStoreYet) && a.Globals.ReadOnly {
		// Only where the user's --read-only (or the saved store's) made
		// the open read-only: diff opens its sides read-only without
		// being asked. A command that reads creates nothing, whatever
		// its flags: init is named.
		return fmt.Errorf("%w; %s creates a store there", err, a.Globals.initCommand(url))
	}
	if source == "default" && errors.Is(err, store.ErrNotStore) {
		return demoHint(err)
	}
	return err
}

// demoHint replaces the hint of a missing default database (kvdeck.db)
// where the demo's store is beside it: a newcomer who ran `kvdeck demo`
// and then `kvdeck watch ...` in the same directory is sent to the demo's
// store, not to `kvdeck init`, which would create an empty one.
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
// and nothing is opened; Open refuses an Opening.Write too, so a command
// that writes without declaring it is refused all the same.
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
	cfg := tuiconfig.Config{Clock: a.Clock, Open: a.openScoped, OpenWorkload: a.openWorkload, OpenWithToken: a.openWithToken, Theme: a.Globals.Theme, Refresh: refresh, Past: a.past, PastOf: a.pastOf,
		JournalOff: a.JournalOff(), ReadJournal: a.JournalFor, FleetGroup: a.tuiFleet}
	// No state directory (no HOME): the TUI keeps nothing across sessions.
	cfg.StateDir, _ = journal.StateDir(func(k string) string { return a.Env[k] })
	a.savedForTUI(&cfg)                // the store switcher (cmd_tui.go)
	cfg.TimeMachine = a.tuiTimeMachine // :at and H (timemachine.go)
	a.inTUI.Store(true)
	defer a.inTUI.Store(false)
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
