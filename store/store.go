package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers "sqlite", the driver libsql-client-go hands file: URLs to

	"kvdeck/internal/retry"
)

// Clock returns the current time in epoch milliseconds.
type Clock func() int64

// SystemClock is the real clock.
func SystemClock() int64 { return time.Now().UnixMilli() }

// DefaultBusyTimeout is how long an embedded database waits for another
// writer's lock before failing with ErrLocked.
const DefaultBusyTimeout = 5 * time.Second

// Options configure Open.
type Options struct {
	// AuthToken is sent to remote servers; it is never printed.
	AuthToken string
	// ReadOnly guarantees no write of any kind reaches the database; the
	// schema is not created either.
	ReadOnly bool
	// Clock supplies "now"; nil means SystemClock.
	Clock Clock
	// BusyTimeout for embedded databases; zero means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// RequestTimeout bounds every request to a server (remote databases);
	// zero means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Create lets Open create a store where there is none yet: a missing
	// or empty file, or a database without tables. Without it such a
	// database is refused with ErrNotStore and nothing is written (a
	// missing file is not created). Remote databases without tables are
	// initialised either way, as the reference does lazily.
	Create bool
	// Force, with Create, also adds the store's tables to a database that
	// has other tables; without it such a database is refused.
	Force bool
	// OneShot, on a server, defers the schema check to the store's first
	// call and sends it in the same request (hranaoneshot.go): Open sends
	// nothing, and a Get, a write (Set, Delete, Commit) or any other call
	// then checks the schema as Open would. For a command that makes one
	// call: open and a get, set, delete or atomic are one request over
	// HTTP, one round trip after the handshake over WebSocket. An error
	// Open would return comes from that first call instead.
	OneShot bool
	// Unchecked, with ReadOnly, skips the schema check: Open sends no
	// request to a server, and the first statement that reads kv or
	// kv_meta is the check (ProbeRow reports their absence as
	// ErrNotStore). For one-request reads, e.g. kvdeck fleet's.
	Unchecked bool
	// Namespace names the sqld namespace of a server's database, as the
	// URL's ?namespace=NAME does (both: they must agree); every request
	// carries it (hranaroute.go). A file store takes none.
	Namespace string
	// Replica is the URL of a read replica of the server's database
	// (sqld started with --primary-grpc-url, or a Turso replica): reads
	// go there, carrying the highest replication index the store has
	// seen, writes to the URL Open was given (the primary). It gets the
	// store's token and namespace.
	Replica string
	// OnLockedRead, when not nil, is told once, before the store first
	// reads a rollback-journal file with SQLite's locks, what that costs
	// and why it does (lockednote.go); Store.LockedReadNote keeps it.
	OnLockedRead func(text string)
}

// DefaultRequestTimeout is how long one request to a server may take
// before it fails: a server that accepts and never answers must not hang a
// command or the terminal UI.
const DefaultRequestTimeout = 20 * time.Second

// Store is an open coordination store. It is safe for concurrent use.
// Its fields are the engine's; what belongs to the connection (pools,
// clients, lock-free and immutable reads) is in conn (conn.go).
type Store struct {
	target     Target
	display    string
	readOnly   bool
	clock      Clock
	busy       time.Duration
	reqTimeout time.Duration
	// conn is how statements reach the database: file or server, the
	// one that is not nil (conn.go).
	conn   conn
	file   *fileConn
	server *serverConn
	// recorder journals every write (SetRecorder); nil journals nothing.
	recorder   Recorder
	statements atomic.Int64
	rowsRead   atomic.Int64
	roundTrips atomic.Int64
	watch      versionWatch
	created    bool // Open created the schema
	// knobs are what tests change on this store (knobs.go).
	knobs knobs
	// windows are the last windows of the windowed reads, by kind
	// (lockfree_read.go).
	windows [windowKinds]atomic.Int64
}

// Info describes an open store for status bars and stats.
type Info struct {
	// Display is the database URL without secrets.
	Display string
	// Transport is file, http or websocket.
	Transport Transport
	// ReadOnly is true when the store refuses writes.
	ReadOnly bool
	// Journal is a file's journal mode (JournalMode); "" for a server.
	Journal JournalMode
}

// Open connects to the database at rawURL and checks that it is a store.
// It creates the schema only when asked (Options.Create; see there), and
// never adds tables to a database that has other tables unless forced
// (Options.Force). Created reports whether it did.
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	target, err := ParseTarget(rawURL)
	if err != nil {
		return nil, err
	}
	s := &Store{target: target, display: target.Display, readOnly: opts.ReadOnly, clock: opts.Clock, busy: opts.BusyTimeout}
	if s.clock == nil {
		s.clock = SystemClock
	}
	if s.busy <= 0 {
		s.busy = DefaultBusyTimeout
	}
	s.reqTimeout = opts.RequestTimeout
	if s.reqTimeout <= 0 {
		s.reqTimeout = DefaultRequestTimeout
	}
	created, err := s.openConn(opts)
	if err != nil {
		return nil, err
	}
	if s.conn.deferCheck(opts) {
		return s, nil
	}
	if opts.Unchecked && opts.ReadOnly {
		return s, nil
	}
	ictx, cancel := s.requestCtx(ctx)
	defer cancel()
	if err := s.initPatiently(ictx, created, opts); err != nil {
		s.Close()
		return nil, s.classify(s.timedOut(ictx, err))
	}
	return s, nil
}

// checkToken refuses a token that is not one line of printable text (a
// control byte: a line break or an escape sequence pasted with it), which
// no HTTP header can carry, before anything is sent; the error says
// where, never what.
func checkToken(token string) error {
	for i := 0; i < len(token); i++ {
		if c := token[i]; c < 0x20 || c == 0x7f {
			what := fmt.Sprintf("control byte 0x%02x", c)
			switch c {
			case '\n', '\r':
				what = "a line break"
			case 0x1b:
				what = "an escape (ESC)"
			case '\t':
				what = "a tab"
			}
			return fmt.Errorf("%w: the auth token holds %s at byte %d of %d; a token is one line of printable text (was a line break or a terminal's escape pasted with it?)", ErrBadToken, what, i+1, len(token))
		}
	}
	return nil
}

// openConn makes the store's connection (conn.go): the one place that
// asks which transport the URL names.
func (s *Store) openConn(opts Options) (created bool, err error) {
	if !s.target.Transport.Remote() {
		s.file = &fileConn{s: s, onLockedRead: opts.OnLockedRead}
		s.conn = s.file
		return s.fileDB(opts)
	}
	if err := checkToken(opts.AuthToken); err != nil {
		return false, err
	}
	// A server is reached through kvdeck's own Hrana clients only, the
	// schema check included: no database/sql pool.
	s.server = &serverConn{s: s}
	s.conn = s.server
	return false, s.hranaClients(opts)
}

// fileDB opens the connection pool of an embedded database (through
// libsql-client-go, which hands file: URLs to modernc.org/sqlite), and
// reports whether opening creates the file.
func (s *Store) fileDB(opts Options) (created bool, err error) {
	if opts.Namespace != "" || opts.Replica != "" {
		return false, fmt.Errorf("%w: %s is a database file, which has no namespace or replica", ErrBadURL, s.display)
	}
	connURL, created, err := s.fileConn(opts)
	if err != nil {
		return false, err
	}
	conn, err := fileConnector(connURL)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %w", ErrBadURL, s.display, err)
	}
	s.file.db = sql.OpenDB(conn)
	return created, nil
}

// fileConn returns the driver's address of an embedded database, and
// whether opening will create it (opts.Create and no file yet). A
// read-only open notes the sidecars absent now and, for a WAL database
// without them, reads the file as immutable.
func (s *Store) fileConn(opts Options) (connURL string, created bool, err error) {
	target := s.target
	wal, exists, err := inspectFile(target.Path)
	if err != nil {
		return "", false, err
	}
	if !exists && opts.ReadOnly {
		return "", false, noDatabase{msg: fmt.Sprintf("no database at %s (a read-only open creates none)", target.Path), yet: true}
	}
	if !exists && !opts.Create {
		return "", false, noDatabase{msg: fmt.Sprintf("no database at %s; `kvdeck init --db %s` creates one (a first set/load/atomic does too)", target.Path, target.Path)}
	}
	created = !exists
	s.file.journal.Store(map[bool]JournalMode{true: JournalWAL, false: JournalRollback}[wal || created])
	if exists && !wal {
		s.watch.journal.Store(journalRollback) // the feed reads it without locks from the first read
	} else {
		s.watch.journal.Store(journalOther) // WAL (kvdeck creates its files so)
	}
	connURL = target.dsn(opts.ReadOnly, s.busy.Milliseconds())
	if !opts.ReadOnly {
		return connURL, created, nil
	}
	// The file first, then its sidecars: a writer starting in between
	// shows in one or the other at the first statement.
	stamp, err := os.Stat(target.Path)
	if err != nil {
		return "", false, fmt.Errorf("%w: %s: %w", ErrUnreachable, target.Path, err)
	}
	s.file.absentAtOpen = absentSidecars(target.Path)
	if wal && len(s.file.absentAtOpen) == 2 {
		s.file.imm = &immutableRead{path: target.Path, stamp: stamp, dsn: connURL}
		connURL += "&immutable=1"
	}
	return connURL, created, nil
}

// initPatiently runs init, retrying while the database is locked, for up
// to the busy timeout. Processes that open a new file at the same moment
// race to switch it to WAL and create the schema: SQLite answers the loser
// with SQLITE_BUSY at once (its busy handler does not wait when waiting
// could deadlock), although the winner is done a moment later. Every step of
// init is idempotent, so trying again is safe.
func (s *Store) initPatiently(ctx context.Context, created bool, opts Options) error {
	p := retry.Policy{Backoff: retry.Backoff{First: 5 * time.Millisecond, Max: 100 * time.Millisecond}, Deadline: time.Now().Add(s.busy)}
	locked := func(err error) bool { return errors.Is(err, ErrLocked) }
	return retry.Until(ctx, p, locked, func() error { return s.init(ctx, created, opts) })
}

// inspectFile reports whether an embedded database exists and whether its
// header says WAL mode (bytes 18 and 19 equal 2), without opening it: kvdeck
// never changes an existing database's journal mode.
func inspectFile(path string) (wal, exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("%w: %s: %w", ErrUnreachable, path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, false, fmt.Errorf("%w: %s: %w", ErrUnreachable, path, err)
	}
	if st.IsDir() {
		return false, false, fmt.Errorf("%w: %s is a directory, not a database file", ErrBadURL, path)
	}
	if st.Size() == 0 {
		return false, false, nil
	}
	var header [100]byte
	if _, err := io.ReadFull(f, header[:]); err != nil || string(header[:16]) != "SQLite format 3\x00" {
		return false, true, fmt.Errorf("%w: %s is not an SQLite database", ErrNotStore, path)
	}
	return header[18] == 2 && header[19] == 2, true, nil
}

const (
	schemaKV   = `CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER)`
	schemaMeta = `CREATE TABLE IF NOT EXISTS kv_meta (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, ok INTEGER NOT NULL)`
	// schemaSeed starts seq at the highest stamp already in kv (0 in a
	// new store, as the reference): completing a database that has kv but
	// lost kv_meta must not issue stamps below existing ones. A REAL stamp
	// counts as its ceiling; TEXT and BLOB ones are
	// not stamps.
	schemaSeed = `INSERT OR IGNORE INTO kv_meta (id, seq, ok) SELECT 0, coalesce((SELECT CAST(m AS INTEGER) + (m > CAST(m AS INTEGER)) FROM ` +
		`(SELECT max(ver) AS m FROM kv WHERE typeof(ver) IN ('integer', 'real'))), 0), 0`
)

// init checks the schema and creates what is missing when opts allow it.
func (s *Store) init(ctx context.Context, created bool, opts Options) error {
	if created {
		if err := s.conn.initNew(ctx); err != nil {
			return err
		}
	}
	tables, others, err := s.tables(ctx)
	if err != nil {
		return err
	}
	return s.checkTables(ctx, tables, others, opts)
}

// storeTables reports whether tables (from tablesSQL) are a complete
// store's: then checkTables has nothing to do.
func storeTables(tables map[string][]string) bool {
	return checkColumns("kv", tables["kv"], kvColumns) == nil && checkColumns("kv_meta", tables["kv_meta"], metaColumns) == nil
}

// The columns of a store's tables, in order.
var (
	kvColumns   = []string{"k", "v", "ver", "expires_at"}
	metaColumns = []string{"id", "seq", "ok"}
)

// checkTables checks the schema that tables and others (from tablesSQL)
// describe and creates what is missing when opts allow it.
func (s *Store) checkTables(ctx context.Context, tables map[string][]string, others []string, opts Options) error {
	kvCols, hasKV := tables["kv"]
	metaCols, hasMeta := tables["kv_meta"]
	if hasKV {
		if err := checkColumns("kv", kvCols, kvColumns); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrNotStore, s.display, err)
		}
	}
	if hasMeta {
		if err := checkColumns("kv_meta", metaCols, metaColumns); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrNotStore, s.display, err)
		}
	}
	if hasKV && hasMeta {
		// kv_meta's row 0 is not checked here (budget: open and
		// a one-shot command in two requests over HTTP); a table without it
		// fails the first commit or Seq with ErrNotStore naming it.
		return nil
	}
	if s.readOnly {
		if hasKV || hasMeta {
			return fmt.Errorf("%w: %s has only one of the kv and kv_meta tables", ErrNotStore, s.display)
		}
		if len(others) > 0 {
			return fmt.Errorf("%w: %s has tables %s but no kvdeck store (kv and kv_meta)", ErrNotStore, s.display, strings.Join(others, ", "))
		}
		return noStoreYet(fmt.Sprintf("%s has no kv and kv_meta tables (a read-only open creates none)", s.display))
	}
	if len(others) > 0 && !(opts.Create && opts.Force) {
		return fmt.Errorf("%w: %s has tables %s but no kvdeck store; `kvdeck init --db %s --force` adds one", ErrNotStore, s.display, strings.Join(others, ", "), s.display)
	}
	if len(others) == 0 && !hasKV && !hasMeta && !opts.Create && !s.conn.traits().lazySchema {
		return fmt.Errorf("%w: %s has no tables; `kvdeck init --db %s` creates a store there (a first set/load/atomic does too)", ErrNotStore, s.display, s.display)
	}
	if !opts.Create && !s.conn.traits().lazySchema {
		return fmt.Errorf("%w: %s has only one of the kv and kv_meta tables; `kvdeck init --db %s` completes the store", ErrNotStore, s.display, s.display)
	}
	if err := s.execBatch(ctx, []stmt{{sql: schemaKV, ddl: true}, {sql: schemaMeta, ddl: true}, {sql: schemaSeed, ddl: true}}); err != nil {
		return fmt.Errorf("initialise the schema on %s: %w", s.display, err)
	}
	s.created = !hasKV && !hasMeta
	return nil
}

// Created reports whether Open created the store's tables.
func (s *Store) Created() bool { return s.created }

// tables returns the store's tables (kv, kv_meta) with their column names,
// and the names of the database's other tables, in one query (over a
// server, one request of kvdeck's own client).
func (s *Store) tables(ctx context.Context) (store map[string][]string, others []string, err error) {
	// A service's rollback-journal file: the schema is read without
	// locks too (lockfree.go), or the open alone could fail a commit.
	rows, ok, err := s.conn.readFree(ctx, tablesSQL, nil)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		src, after, err := s.conn.rows(ctx, tablesSQL, nil)
		if err != nil {
			return nil, nil, s.classify(err)
		}
		rows = &reqRows{rowSource: src, cancel: func() {}, after: after}
	}
	defer rows.Close()
	store, others, err = scanTables(rows)
	return store, others, s.classify(err)
}

// tablesSQL lists the database's tables, with the columns of kv and
// kv_meta.
const tablesSQL = "SELECT m.name, p.name FROM sqlite_master AS m LEFT JOIN pragma_table_info(m.name) AS p ON m.name IN ('kv', 'kv_meta') WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.name NOT LIKE 'libsql\\_%' ESCAPE '\\' ORDER BY m.name, p.cid"

// scanTables reads the rows of tablesSQL.
func scanTables(rows resultRows) (store map[string][]string, others []string, err error) {
	store = map[string][]string{}
	for rows.Next() {
		var table string
		var col sql.NullString
		if err := rows.Scan(&table, &col); err != nil {
			return nil, nil, err
		}
		if table == "kv" || table == "kv_meta" {
			store[table] = append(store[table], col.String)
		} else {
			others = append(others, table)
		}
	}
	return store, others, rows.Err()
}

func checkColumns(table string, got, want []string) error {
	if strings.Join(got, ",") != strings.Join(want, ",") {
		return fmt.Errorf("table %s has columns (%s), a store's has (%s)", table, strings.Join(got, ", "), strings.Join(want, ", "))
	}
	return nil
}

// Close releases the connections.
func (s *Store) Close() error {
	s.closeWatch()
	return s.conn.close()
}

// close ends the clients' connections.
func (c *serverConn) close() error {
	c.primary.Close()
	if c.reads != c.primary {
		c.reads.Close()
	}
	return nil
}

// close closes the pools.
func (f *fileConn) close() error {
	f.cache.close()
	var err error
	if f.db != nil {
		err = f.db.Close()
	}
	return errors.Join(err, f.closeImmutable(), f.closeLockFree())
}

// Info describes the store.
func (s *Store) Info() Info {
	return Info{Display: s.display, Transport: s.target.Transport, ReadOnly: s.readOnly, Journal: s.JournalMode()}
}

// Now is the store's current time in epoch milliseconds.
func (s *Store) Now() int64 { return s.clock() }

// ReadOnly reports whether writes are refused.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Counters are the numbers of statements run, rows read and requests sent
// since Open; tests and benchmarks use them to prove how much work an
// operation did.
type Counters struct {
	Statements int64
	RowsRead   int64
	// RoundTrips counts requests to the database: one per read statement,
	// one per commit over HTTP (a single Hrana batch), and BEGIN + each
	// statement + COMMIT in a transaction (file, WebSocket).
	RoundTrips int64
}

// Counters returns the statement and row counters.
func (s *Store) Counters() Counters {
	return Counters{Statements: s.statements.Load(), RowsRead: s.rowsRead.Load(), RoundTrips: s.roundTrips.Load()}
}

func (s *Store) checkWritable(what string) error {
	if s.readOnly {
		return fmt.Errorf("%w: %s refused; the store was opened with --read-only", ErrReadOnly, what)
	}
	return nil
}
