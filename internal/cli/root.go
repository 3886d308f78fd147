package cli

import (
	"fmt"
	"time"

	"kvdeck/store"
)

// DefaultDB is the database used when neither --db nor an environment
// variable names one: kvdeck.db in the current directory.
const DefaultDB = "file:kvdeck.db"

// DBEnv returns the environment variables consulted, in order, when --db
// is not given.
func DBEnv() []string { return []string{"KVDECK_DB", "LIBSQL_URL", "TURSO_DATABASE_URL"} }

// TokenEnv returns the environment variables consulted, in order, when
// --auth-token is not given.
func TokenEnv() []string {
	return []string{"KVDECK_AUTH_TOKEN", "LIBSQL_AUTH_TOKEN", "TURSO_AUTH_TOKEN"}
}

// Root is the kong command tree. Commands added by other files go here,
// one line each.
type Root struct {
	Globals

	TUI      TUICmd      `cmd:"" name:"tui" default:"withargs" help:"Open the terminal explorer (the default command)."`
	Init     InitCmd     `cmd:"" help:"Create a store at --db (--force: also in a database that has other tables)."`
	Get      GetCmd      `cmd:"" help:"Print the live entry at KEY (exit 1 when absent)."`
	Set      SetCmd      `cmd:"" help:"Set KEY to a JSON value; print the versionstamp."`
	Delete   DeleteCmd   `cmd:"" help:"Delete KEY."`
	List     ListCmd     `cmd:"" help:"List live entries under a prefix, in key order."`
	Dump     DumpCmd     `cmd:"" help:"Print every physical row (expired and undecodable ones included) as JSON lines."`
	Load     LoadCmd     `cmd:"" help:"Write the rows of a dump (or {key,value,expiresAt} lines) in atomic batches."`
	Atomic   AtomicCmd   `cmd:"" help:"Commit checks and mutations from a JSON document atomically."`
	Sweep    SweepCmd    `cmd:"" help:"Delete expired rows in batches."`
	Stats    StatsCmd    `cmd:"" help:"Summarise the store: rows, live, expired, per top-level prefix."`
	Key      KeyCmd      `cmd:"" help:"Encode and decode keys (for debugging raw rows)."`
	Race     RaceCmd     `cmd:"" help:"Race workers incrementing a JSON counter with read / check / set / retry; --naive shows lost updates."`
	Demo     DemoCmd     `cmd:"" help:"Seed (or reuse) a demo store, simulate replicas on it and open the TUI; --headless prints a summary."`
	Lease    LeaseCmd    `cmd:"" help:"Leases: list, acquire, release, break (CAS-guarded)."`
	Alarm    AlarmCmd    `cmd:"" help:"Alarms: list, set, get, delete, fire."`
	Queue    QueueCmd    `cmd:"" help:"Queues: list, send, poll as a consumer, purge."`
	Doctor   DoctorCmd   `cmd:"" help:"Check the store for the weak spots of the coordination records; exit 1 when any finding is an error."`
	Watch    WatchCmd    `cmd:"" help:"Print each change of keys or prefixes (set, delete, expire; old and new row) until interrupted."`
	Diff     DiffCmd     `cmd:"" help:"Compare two stores, two dumps, or a store and a dump: added, removed, changed keys; exit 1 when they differ."`
	Index    IndexCmd    `cmd:"" help:"Show, add or drop the opt-in index on kv(ver) that makes the change feed cheap on large stores."`
	WAL      WALCmd      `cmd:"" name:"wal" help:"Switch a rollback-journal file to WAL (asks; journaled: undo switches back), where readers never fail the service's commits."`
	Bench    BenchCmd    `cmd:"" help:"Measure the engine beside raw SQL on the same driver (embedded, and --remote URL)."`
	Undo     UndoCmd     `cmd:"" help:"Undo what a command or key of kvdeck did (default: the last; again steps back), checked against every key; --list shows the journal."`
	Redo     RedoCmd     `cmd:"" help:"Redo an action undo took back (default: the last undone), checked against every key."`
	Version  VersionCmd  `cmd:"" help:"Print the version and build information."`
	Stores   StoresCmd   `cmd:"" help:"Saved stores (config.toml): list, show, add, remove; open one with --store NAME."`
	Fleet    FleetCmd    `cmd:"" help:"Act on every saved store (or a group): status (the default), find, doctor."`
	Copy     CopyCmd     `cmd:"" help:"Copy the live rows under a prefix from one store to another (saved names or URLs) as checked commits; never overwrites a key that differs unless --overwrite."`
	Shell    ShellCmd    `cmd:"" name:"completion" help:"Print the shell code for completing kvdeck's commands, flags and saved stores: bash, zsh or fish."`
	History  HistoryCmd  `cmd:"" help:"The store's restore points (Litestream replica, kvdeck record), or with KEY the key's values across them."`
	PutBack  PutBackCmd  `cmd:"" name:"put-back" help:"Put KEYs back as they were at --at TIME: one checked, journaled write (undo undoes it)."`
	Record   RecordCmd   `cmd:"" help:"Follow the store's changes into a bounded local history that --at and history read when no replica is configured."`
	Exporter ExporterCmd `cmd:"" help:"Serve Prometheus metrics of the saved stores (or a group): one statement per store per scrape, on --listen (loopback by default)."`
}

// Globals are the flags every command takes. The
// environment fallbacks of --db and --auth-token are resolved by ResolveDB
// and ResolveToken from the environment Main was given, not by kong, so
// tests control them completely.
type Globals struct {
	DB          string        `name:"db" placeholder:"URL" help:"Database: file:PATH, a path, libsql://, http(s)://, ws(s)://. Else $KVDECK_DB, $LIBSQL_URL, $TURSO_DATABASE_URL, else file:kvdeck.db."`
	AuthToken   string        `name:"auth-token" placeholder:"TOKEN" help:"Auth token for remote servers. Else $KVDECK_AUTH_TOKEN, $LIBSQL_AUTH_TOKEN, $TURSO_AUTH_TOKEN. Never printed."`
	Store       string        `name:"store" short:"s" placeholder:"NAME" predictor:"store" help:"A saved store (kvdeck stores list). Else $KVDECK_STORE; not with --db."`
	ReadOnly    bool          `name:"read-only" xor:"write" help:"Refuse every write; do not create the schema."`
	Write       bool          `name:"write" xor:"write" help:"Open a store saved read-only to write."`
	NoJournal   bool          `name:"no-journal" help:"Do not record writes in the write journal (they cannot be undone). Also KVDECK_JOURNAL=off."`
	Now         string        `name:"now" placeholder:"MS" xor:"clock" help:"Fix the clock: epoch milliseconds or an RFC 3339 time."`
	ClockOffset time.Duration `name:"clock-offset" placeholder:"DURATION" xor:"clock" help:"Shift the real clock, e.g. +5m or --clock-offset=-30s."`
	BusyTimeout time.Duration `name:"busy-timeout" placeholder:"DURATION" default:"5s" help:"How long an embedded database waits for another writer's lock."`
	Output      string        `name:"output" short:"o" placeholder:"text|json" help:"Output format: text or json (one JSON object per line). Default text; dump and watch default to json (their lines are read by programs: load reads dump)."`
	Theme       string        `name:"theme" enum:"auto,dark,light,high-contrast" default:"auto" help:"TUI colours: auto, dark, light, high-contrast."`
	Stats       bool          `name:"stats" help:"Print what the command cost on stderr: requests, bytes each way, rows the server read and wrote, time."`
	At          string        `name:"at" placeholder:"TIME" help:"Open the store as it was at TIME (RFC 3339, -10m, txid:N), read-only, from its history: the saved store's litestream_replica, --replica, a Turso branch, or kvdeck record's."`
	Replica     string        `name:"replica" placeholder:"URL" help:"The Litestream replica of the store (file:///path, s3://..., a path): where --at, diff @TIME and history read its past."`

	saved *savedStore // the saved store selected (stores.go: resolveSaved)
}

// ResolveDB returns the database URL and where it came from: the --db
// flag, the saved store selected (--store, KVDECK_STORE, the config's
// default: resolveSaved), the first non-empty variable of DBEnv, or
// DefaultDB.
func (g Globals) ResolveDB(env map[string]string) (url, source string) {
	if g.saved != nil {
		return g.saved.url, g.saved.from
	}
	if g.DB != "" {
		return g.DB, "--db"
	}
	for _, name := range DBEnv() {
		if v := env[name]; v != "" {
			return v, name
		}
	}
	return DefaultDB, "default"
}

// ResolveToken returns the auth token: the --auth-token flag or the first
// non-empty variable of TokenEnv; "" when none. A saved store takes its
// own token (or none), never the variables'.
func (g Globals) ResolveToken(env map[string]string) string {
	if g.AuthToken != "" {
		return g.AuthToken
	}
	if g.saved != nil {
		return g.saved.token
	}
	for _, name := range TokenEnv() {
		if v := env[name]; v != "" {
			return v
		}
	}
	return ""
}

// JSON reports whether output is JSON; def is the command's default when
// --output was not given.
func (g Globals) JSON(def bool) bool {
	if g.Output == "" {
		return def
	}
	return g.Output == "json"
}

// clock validates the clock flags and builds the virtual clock.
func (g Globals) clock() (*store.VirtualClock, error) {
	vc := store.NewVirtualClock(nil)
	switch {
	case g.Now != "":
		ms, err := ParseTime(g.Now, store.SystemClock())
		if err != nil {
			return nil, fmt.Errorf("--now: %w", err)
		}
		if ms <= 0 {
			return nil, fmt.Errorf("--now %s: the clock must be after 1970-01-01T00:00:00Z", g.Now)
		}
		vc.Fix(ms)
	case g.ClockOffset != 0:
		vc.Shift(g.ClockOffset)
	}
	return vc, nil
}

// check validates what kong's tags cannot express.
func (g Globals) check() error {
	switch g.Output {
	case "", "text", "json":
	default:
		return fmt.Errorf("--output %s: want text or json", shown(g.Output))
	}
	if g.BusyTimeout < 0 {
		return fmt.Errorf("--busy-timeout %s: must not be negative", g.BusyTimeout)
	}
	return nil
}
