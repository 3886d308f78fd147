package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// The engine apart from its connection.
//
// The engine (read.go, write.go, changes.go, the census, the sweep)
// builds statements and reads their rows; how a statement reaches the
// database is its connection's business, and a Store has one of two:
//
//   - fileConn, an embedded SQLite file: a database/sql pool
//     (connector.go), prepared statements, a read-only WAL file read as
//     immutable (readonly.go), and on a rollback-journal file every read
//     it can make without SQLite's locks (lockfree.go), windowed where
//     a read examines many rows (lockfree_read.go), the others said once
//     (lockednote.go);
//   - serverConn, sqld or Turso through kvdeck's own Hrana client over
//     HTTP or WebSocket (serverconn.go, hrana*.go): a request timeout, a
//     replica for reads, a one-shot's deferred schema check, answers
//     sized in bytes.
//
// The engine asks the connection (conn) for what it needs: a read, a
// windowed read, a write transaction, how large a page may be. It never
// asks which transport it has. Open is the one place that chooses.
type conn interface {
	// rows runs one read statement: on a file with SQLite's locks (said
	// once on a rollback-journal file), over a server one request to
	// where reads go. after, when not nil, checks the statement once its
	// rows are read (readonly.go). The caller counts it.
	rows(ctx context.Context, q string, args []any) (src rowSource, after func() error, err error)
	// readFree runs one read statement without SQLite's locks where the
	// connection reads so (a rollback-journal file), its rows read whole
	// before they are handed on; ok is false where it does not, or when
	// every try met a writer's commit: the caller then uses rows.
	readFree(ctx context.Context, q string, args []any) (rows *reqRows, ok bool, err error)
	// exec runs stmts as one write transaction.
	exec(ctx context.Context, stmts []stmt) error
	// requestCtx bounds a request of n statements (a server's request
	// timeout; a file is bounded by its busy timeout instead).
	requestCtx(ctx context.Context, n int) (context.Context, context.CancelFunc)
	// readShort runs one read statement that examines many rows and
	// hands its rows to read (which may be called more than once and
	// must start afresh each time): without SQLite's locks on a
	// rollback-journal file where it can (lockfree_read.go).
	readShort(ctx context.Context, q string, args []any, read func(resultRows) error) error
	// readWindowed runs stmt(n) for the window of w and hands its rows to
	// read, sizing w's next window (lockfree_read.go): on a
	// rollback-journal file halved while a writer leaves no room.
	readWindowed(ctx context.Context, w *readWindow, stmt func(n int) (string, []any), read func(resultRows) error) error
	// version is Version: on a file from data_version where it can.
	version(ctx context.Context) (Version, error)
	// windowed reports whether the reads that examine many rows go in
	// windows, each short (readWindowed): on a rollback-journal file read
	// without locks, where a long read cannot be kept beside a writer.
	windowed() bool
	// traits are what the engine's statements must suit on this
	// connection: their sizes, how cells travel.
	traits() connTraits
	// initNew readies a database Open created (a file gets WAL).
	initNew(ctx context.Context) error
	// deferCheck keeps opts for a schema check sent with the first call
	// (Options.OneShot on a server), reporting whether it did.
	deferCheck(opts Options) bool
	// takeDeferred returns the options of a schema check still to come,
	// and marks it done (hranaoneshot.go).
	takeDeferred() *Options
	// cost is what the requests cost (Cost).
	cost() Cost
	// secret is what is scrubbed from errors (the auth token).
	secret() string
	close() error

	// What a file reports of itself (journalmode.go, lockednote.go,
	// lockfree.go, readonly.go); nothing on a server, whose files the
	// server owns.
	journalMode() JournalMode
	// rollback: a rollback-journal file read with locks, where a read
	// blocks a writer's commit (as the last head or Version read saw it).
	rollback() bool
	// lockFree is the lock-free connection of a rollback-journal file,
	// opened on first use; nil elsewhere.
	lockFree() *lockFree
	lockedReadNote() string
	lockedReadCount() int64
	leftFiles() []string
}

// connTraits are what the engine's statements must suit on one
// connection. A server's answers are sized in bytes too (sqld refuses
// one of more than about 10 MB); a file's are not.
type connTraits struct {
	// sized: pages end where their estimated answer passes budget, and
	// only an empty page ends a listing.
	sized bool
	// textTagged: TEXT cells travel tagged or as BLOBs (valueSQL,
	// intSQL), as a server must put TEXT in a JSON string.
	textTagged bool
	// scanAhead: a Scan reads the next page while its caller handles
	// this one (a round trip is worth overlapping).
	scanAhead bool
	// serverFilters: an expired-row listing is one listing the server
	// filters rather than windows read here.
	serverFilters bool
	// lazySchema: any open initialises a database without tables, as
	// the reference does lazily (a file is created only when asked).
	lazySchema bool
	// ownsFiles: the store reads the database's own files (its journal
	// mode, its -wal and -shm); a server owns its files.
	ownsFiles bool
	// head: a change scan reads a head first (seq and a mark, no rows)
	// and its page only when something moved; over a server the check
	// and the read are one statement.
	head bool
	// cursor: a listing can be one streamed request (hranacursor.go:
	// reads over HTTP).
	cursor bool
	// immutable: a read-only WAL file read as immutable (readonly.go),
	// whose data_version never moves.
	immutable                                      bool
	census, sweepChunk, expiredCount, expiredSweep int
}

// fileConn is the connection of an embedded file.
type fileConn struct {
	s  *Store
	db *sql.DB
	// imm: a read-only WAL file read as immutable (readonly.go); nil
	// otherwise. absentAtOpen: the -wal/-shm a read-only open found
	// missing (LeftFiles).
	imm          *immutableRead
	absentAtOpen []string
	// cache keeps the pool's prepared statements (exec.go).
	cache stmtCache
	// lf reads a rollback-journal file without locks (lockfree.go).
	lfOnce sync.Once
	lf     *lockFree
	// lockNote is what the store said before its first locked read of a
	// rollback-journal file (lockednote.go), once, to onLockedRead.
	lockNote     atomic.Pointer[string]
	lockNoteOnce sync.Once
	onLockedRead func(string)
	lockedReads  atomic.Int64
	// journal is the file's JournalMode (journalmode.go).
	journal atomic.Value
}

// The traits of each connection.
var (
	fileTraits = connTraits{ownsFiles: true, head: true, census: censusWindowFile, sweepChunk: DefaultSweepBatch, expiredCount: fileExpiredWindow, expiredSweep: fileExpiredWindow}
	// serverTraits' pages are sized by Store.remotePage.
	serverTraits = connTraits{sized: true, textTagged: true, scanAhead: true, serverFilters: true, lazySchema: true,
		census: censusWindowRemote, sweepChunk: remoteSweepChunk, expiredCount: remoteCountWindow, expiredSweep: remoteSweepWindow}
)

func (f *fileConn) traits() connTraits {
	t := fileTraits
	t.immutable = f.imm != nil
	return t
}

func (c *serverConn) traits() connTraits {
	t := serverTraits
	t.cursor = !c.reads.NoCursor()
	return t
}

func (f *fileConn) secret() string   { return "" }
func (c *serverConn) secret() string { return c.token }

func (f *fileConn) deferCheck(Options) bool { return false }

func (c *serverConn) deferCheck(opts Options) bool {
	if opts.OneShot {
		c.deferred = &opts
	}
	return opts.OneShot
}

// windowed: see conn. A server answers in pages sized in bytes.
func (c *serverConn) windowed() bool { return false }
func (f *fileConn) windowed() bool   { return f.lockFreeUsable() }

// requestCtx: a file is bounded by the busy timeout, so ctx is returned
// as it is.
func (f *fileConn) requestCtx(ctx context.Context, _ int) (context.Context, context.CancelFunc) {
	return ctx, func() {}
}

// initNew: a database kvdeck creates gets WAL; an existing one keeps its
// mode.
func (f *fileConn) initNew(ctx context.Context) error {
	if _, err := f.db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		return f.s.classify(err)
	}
	return nil
}

// initNew: a server's database is never created by Open.
func (c *serverConn) initNew(context.Context) error { return nil }

func (c *serverConn) journalMode() JournalMode { return "" }
func (c *serverConn) rollback() bool           { return false }
func (c *serverConn) lockFree() *lockFree      { return nil }
func (c *serverConn) lockedReadNote() string   { return "" }
func (c *serverConn) lockedReadCount() int64   { return 0 }
func (c *serverConn) leftFiles() []string      { return nil }

// readFree: a server takes no locks kvdeck could hold.
func (c *serverConn) readFree(context.Context, string, []any) (*reqRows, bool, error) {
	return nil, false, nil
}

// readFree on a rollback-journal file: queryLockFree.
func (f *fileConn) readFree(ctx context.Context, q string, args []any) (*reqRows, bool, error) {
	if !f.lockFreeUsable() {
		return nil, false, nil
	}
	return f.s.queryLockFree(ctx, q, args)
}
