package store

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors. Every error the store returns for one of these conditions
// wraps the sentinel (test with errors.Is) and carries a message that names
// the problem and the fix.
var (
	// ErrBadURL: the database URL is malformed or of an unsupported scheme.
	ErrBadURL = errors.New("bad database URL")
	// ErrTokenInURL: an auth token was put into the URL instead of the flag.
	ErrTokenInURL = errors.New("auth token in the database URL")
	// ErrUnreachable: the server could not be reached, or the connection dropped.
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
)

// classify wraps a driver or transport error in the sentinel that describes
// it, adding the fix to the message. Errors it does not recognise pass
// through unchanged.
func (s *Store) classify(err error) (out error) {
	if err == nil {
		return nil
	}
	defer func() { out = s.scrub(out) }()
	for _, sentinel := range []error{ErrBadURL, ErrTokenInURL, ErrUnreachable, ErrUnauthorized, ErrNotStore, ErrLocked, ErrReadOnly, ErrInvalidValue, ErrInvalidArgument, ErrOutcomeUnknown} {
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
			return fmt.Errorf("%w: %s stayed locked by another connection for longer than the busy timeout (%s); retry, or raise --busy-timeout: %v", ErrLocked, s.display, s.busy, err)
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %s is not an SQLite database: %v", ErrNotStore, s.display, err)
		case sqlite3.SQLITE_READONLY:
			return fmt.Errorf("%w: the database file refused a write (file permissions or mode=ro): %v", ErrReadOnly, err)
		case sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("%w: cannot open %s (does the file or its folder exist and is it readable?): %v", ErrUnreachable, s.display, err)
		}
	}
	msg := err.Error()
	switch {
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
	if err == nil || s.token == "" || !strings.Contains(err.Error(), s.token) {
		return err
	}
	return &scrubbed{msg: strings.ReplaceAll(err.Error(), s.token, "<redacted>"), err: err}
}

// scrubbed is an error whose message had the auth token removed.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }
