package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"kvdeck/internal/retry"
)

// Sentinel errors. Every error the store returns for one of these conditions
// wraps the sentinel (test with errors.Is) and carries a message that names
// the problem and the fix.
var (
	// ErrBadURL: the database URL is malformed or of an unsupported scheme.
	ErrBadURL = errors.New("bad database URL")
	// ErrTokenInURL: an auth token was put into the URL instead of the flag.
	ErrTokenInURL = errors.New("auth token in the database URL")
	// ErrUnreachable: the server could not be reached, or the connection
	// dropped.
	ErrUnreachable = errors.New("database unreachable")
	// ErrUnauthorized: the server refused the auth token (or its absence).
	ErrUnauthorized = errors.New("not authorized")
	// ErrNotStore: the database is not a store (no kv table, or a kv table of
	// another shape, or not a database at all).
	ErrNotStore = errors.New("not a kvdeck store")
	// ErrLocked: the database stayed locked by another writer for longer than
	// the busy timeout.
	ErrLocked = errors.New("database is locked")
	// ErrReadOnly: a write was attempted on a store opened read-only.
	ErrReadOnly = errors.New("store is read-only")
	// ErrInvalidValue: a value is not valid JSON.
	ErrInvalidValue = errors.New("invalid value")
	// ErrInvalidArgument: a malformed versionstamp, a bad limit, and similar
	// (store/coord's ErrInvalidArgument is this sentinel too).
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrOutcomeUnknown: a write reached (or may have reached) the server,
	// but its answer did not come back (a timeout, an interrupt, a dropped
	// connection), and re-reading could not settle whether it was applied.
	ErrOutcomeUnknown = errors.New("outcome unknown")
	// ErrBadToken: the auth token is not one line of printable text.
	ErrBadToken = errors.New("malformed auth token")
)

// classify wraps a driver or transport error in the sentinel that describes
// it, adding the fix to the message. Errors it does not recognise pass
// through unchanged.
func (s *Store) classify(err error) (out error) {
	if err == nil {
		return nil
	}
	defer func() { out = s.scrub(out) }()
	for _, sentinel := range []error{ErrBadURL, ErrTokenInURL, ErrUnreachable, ErrUnauthorized, ErrNotStore, ErrLocked, ErrReadOnly, ErrInvalidValue, ErrInvalidArgument, ErrOutcomeUnknown, ErrBadToken} {
		if errors.Is(err, sentinel) {
			return err
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w: %s stayed locked by another connection for longer than the busy timeout (%s); retry, or raise --busy-timeout: %w", ErrLocked, s.display, s.busy, err)
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %s is not an SQLite database: %w", ErrNotStore, s.display, err)
		case sqlite3.SQLITE_READONLY:
			if se.Code() == sqlite3.SQLITE_READONLY_ROLLBACK {
				// SQLite's own words ("attempt to write a readonly
				// database") would send the user to the permissions.
				return &scrubbed{err: errors.Join(ErrLocked, err), msg: fmt.Sprintf("%v: %s: SQLite took its journal %s-journal for hot (SQLITE_READONLY_ROLLBACK), which a read-only connection may not roll back: either a writer's transaction ended just as kvdeck began to read (that passes: read again), or a writer stopped mid-transaction and left the journal, which SQLite rolls back when a connection that may write opens the file (kvdeck without --read-only, or the service)", ErrLocked, s.display, s.target.Path)}
			}
			if why := s.walFilesRefused(se.Code()); why != "" {
				return fmt.Errorf("%w: %s, which SQLite needs to read or write a WAL database; to read it, pass --read-only (kvdeck then reads the file without them when no writer has it open), or make them writable for this user: %w", ErrReadOnly, why, err)
			}
			return fmt.Errorf("%w: the database file refused a write (file permissions or mode=ro): %w", ErrReadOnly, err)
		case sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("%w: cannot open %s (does the file or its folder exist and is it readable?): %w", ErrUnreachable, s.display, err)
		}
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Write permission"), strings.Contains(msg, "error code 403") && tokenReadOnly(s.conn.secret()):
		return fmt.Errorf("%w: %s refused the write: the auth token does not grant write access (a read-only token), so nothing was written; pass a token that may write with --auth-token or KVDECK_AUTH_TOKEN, or open with --read-only: %s", ErrUnauthorized, s.display, redact(msg))
	case strings.Contains(msg, "error code 401"), strings.Contains(msg, "error code 403"),
		strings.Contains(msg, "Unauthorized"), strings.Contains(msg, "unauthorized"),
		strings.Contains(msg, "AuthError"), strings.Contains(msg, "JWT"):
		return fmt.Errorf("%w: %s refused the auth token; pass a valid one with --auth-token or KVDECK_AUTH_TOKEN: %s", ErrUnauthorized, s.display, redact(msg))
	case strings.Contains(msg, "database is locked"), strings.Contains(msg, "SQLITE_BUSY"):
		return fmt.Errorf("%w: %s: %s", ErrLocked, s.display, redact(msg))
	}
	var netErr net.Error
	var opErr *net.OpError
	if errors.As(err, &opErr) || errors.As(err, &netErr) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || strings.Contains(msg, "connection refused") ||
		strings.Contains(msg, "EOF") || strings.Contains(msg, "failed to WebSocket dial") ||
		strings.Contains(msg, "stream is closed") {
		return fmt.Errorf("%w: cannot reach %s (is the server running and the URL right?): %s", ErrUnreachable, s.display, redact(msg))
	}
	if one := redact(msg); one != msg {
		// A server's error body over several lines:
		// one line, the error itself still wrapped.
		return &scrubbed{msg: one, err: err}
	}
	return err
}

// redact removes anything that looks like a bearer token from a message, so
// that driver errors never print a secret.
func redact(msg string) string {
	if i := strings.Index(msg, "Bearer "); i >= 0 {
		msg = msg[:i] + "Bearer <redacted>"
	}
	// The driver wraps its errors over several lines; one line reads better
	// on a status bar and in a terminal.
	return strings.Join(strings.Fields(msg), " ")
}

// scrub removes the store's own auth token from err's message, whatever
// the message is: a server may echo the Authorization header in an error
// body (seen with a 400 and a 500 answer), which no pattern would catch.
// errors.Is and errors.As still see the wrapped error.
func (s *Store) scrub(err error) error {
	token := s.conn.secret()
	if err == nil || token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return &scrubbed{msg: strings.ReplaceAll(err.Error(), token, "<redacted>"), err: err}
}

// scrubbed is an error whose message had the auth token removed, or was
// put on one line.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// hotJournal reports whether err is SQLite's SQLITE_READONLY_ROLLBACK: a
// read-only connection took the journal for hot as a read began, and may
// not roll it back. Beside a live writer that is a race, not a matter of
// permissions: SQLite found the writer's journal and no writer's lock,
// then could not open the journal (the transaction had ended and deleted
// it), and assumes it hot. It passes.
func hotJournal(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_READONLY_ROLLBACK
}

// retryHotJournal runs read again while it fails with hotJournal, backing
// off, for up to the busy timeout (a writer's rollback takes
// milliseconds; a journal left by a writer that stopped stays).
func (s *Store) retryHotJournal(ctx context.Context, read func() error) error {
	p := retry.Policy{Backoff: retry.Backoff{First: time.Millisecond, Max: 50 * time.Millisecond}, Deadline: time.Now().Add(s.busy)}
	return retry.Until(ctx, p, hotJournal, read)
}

// walFilesRefused names why an embedded database's SQLITE_READONLY
// (extended code code) came from its -wal and -shm rather than from the
// database file: a WAL database needs them even to be read. It returns ""
// for other causes.
func (s *Store) walFilesRefused(code int) string {
	if !s.conn.traits().ownsFiles {
		return ""
	}
	switch code {
	case sqlite3.SQLITE_READONLY_DIRECTORY:
		return fmt.Sprintf("the folder %s is not writable, so SQLite cannot create %s-wal and %s-shm", filepath.Dir(s.target.Path), s.target.Path, s.target.Path)
	case sqlite3.SQLITE_READONLY_CANTINIT, sqlite3.SQLITE_READONLY_CANTLOCK:
		return fmt.Sprintf("SQLite cannot set up the WAL index %s-shm (it, or the folder %s, is not writable)", s.target.Path, filepath.Dir(s.target.Path))
	}
	return ""
}

// tokenReadOnly reports whether a JWT's claims grant read access only
// (sqld's and Turso's claim "a": "ro"). The claims are read without
// checking the signature, only to name the cause of a refusal: the server
// decides.
func tokenReadOnly(token string) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return false
	}
	var claims struct {
		A string `json:"a"`
	}
	return json.Unmarshal(payload, &claims) == nil && claims.A == "ro"
}

// readOnlyTokenRefused is the error of a write sent with a read-only token
// over WebSocket: sqld answers it by closing the connection, which alone
// would read as a lost answer. With such a token the server applies no
// write, so nothing was written.
func (s *Store) readOnlyTokenRefused(err error) error {
	return fmt.Errorf("%w: %s refused the write and closed the connection: the auth token grants read access only (its claim \"a\" is \"ro\"), so nothing was written; pass a token that may write with --auth-token or KVDECK_AUTH_TOKEN, or open with --read-only: %s", ErrUnauthorized, s.display, redact(err.Error()))
}

// ErrNoStoreYet marks an ErrNotStore where a store could simply be created
// (a missing file, a database without tables) but the open was read-only:
// a front end can then say how to create one, in its own words.
var ErrNoStoreYet = errors.New("no store here yet")

// ErrNoDatabase marks an ErrNotStore where there is no database at all
// (no file at the path): a front end says "missing file", not "not a
// store" (a file of another program's).
var ErrNoDatabase = errors.New("no database")

// noDatabase is an ErrNotStore and ErrNoDatabase whose message is its
// own ("no database at PATH ..."); yet makes it ErrNoStoreYet too (a
// read-only open, where a write would have created one).
type noDatabase struct {
	msg string
	yet bool
}

func (e noDatabase) Error() string { return e.msg }

func (e noDatabase) Is(target error) bool {
	return target == ErrNotStore || target == ErrNoDatabase || e.yet && target == ErrNoStoreYet
}

// noStoreYet is an ErrNotStore that is also ErrNoStoreYet.
type noStoreYet string

func (e noStoreYet) Error() string { return ErrNotStore.Error() + ": " + string(e) }

func (e noStoreYet) Is(target error) bool { return target == ErrNotStore || target == ErrNoStoreYet }

// Trouble is why a store could not be read, in a word or two, as the
// fleet's listings say it (kvdeck fleet, the Fleet view, the tabs' fleet
// mode): missing file, not a store, unauthorized, unreachable (a
// deadline passed too), interrupted, or error.
func Trouble(err error) string {
	switch {
	case errors.Is(err, ErrNoDatabase):
		return "missing file" // nothing there, of another program's or any
	case errors.Is(err, ErrNotStore):
		return "not a store"
	case errors.Is(err, ErrUnauthorized):
		return "unauthorized"
	case errors.Is(err, ErrUnreachable), errors.Is(err, context.DeadlineExceeded):
		return "unreachable"
	case errors.Is(err, context.Canceled):
		return "interrupted"
	}
	return "error"
}
