package store

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// Transport is how the store reaches its database.
type Transport int

// The transports: an embedded SQLite file, Hrana over HTTP, Hrana over
// WebSocket.
const (
	TransportFile Transport = iota
	TransportHTTP
	TransportWS
)

// String names the transport for status lines.
func (t Transport) String() string {
	switch t {
	case TransportHTTP:
		return "http"
	case TransportWS:
		return "websocket"
	default:
		return "file"
	}
}

// Remote reports whether the transport talks to a server.
func (t Transport) Remote() bool { return t != TransportFile }

// Target is a parsed database URL.
type Target struct {
	// Transport is how the database is reached.
	Transport Transport
	// Path is the filesystem path of an embedded database.
	Path string
	// URL is the server URL handed to libsql-client-go (remote only).
	URL string
	// Display is the URL without secrets, for status bars and messages.
	Display string
}

// ParseTarget reads a database URL in any form product.md accepts:
// file:PATH, file:///abs/path, a bare filesystem path, libsql://, http(s)://,
// ws(s)://. A token inside the URL is refused (use the auth-token flag).
func ParseTarget(raw string) (Target, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return Target{}, fmt.Errorf("%w: empty database URL; pass --db file:PATH or a libsql://, http(s):// or ws(s):// URL", ErrBadURL)
	}
	scheme, rest, hasScheme := strings.Cut(raw, ":")
	if !hasScheme || strings.ContainsAny(scheme, "/.\\") || len(scheme) < 2 {
		// A bare path: "./x.db", "/srv/kv/x.db", "x.db", or a Windows-ish "C:...".
		return fileTarget(raw)
	}
	switch strings.ToLower(scheme) {
	case "file":
		path := rest
		if strings.HasPrefix(path, "//") {
			if !strings.HasPrefix(path, "///") {
				return Target{}, fmt.Errorf("%w: %q: a file URL takes one slash (file:rel/path.db) or three (file:///abs/path.db), not two", ErrBadURL, raw)
			}
			path = path[2:]
		}
		if i := strings.IndexAny(path, "?#"); i >= 0 {
			return Target{}, fmt.Errorf("%w: %q: file URLs take no query or fragment; kvdeck sets the connection options itself", ErrBadURL, raw)
		}
		unescaped, err := url.PathUnescape(path)
		if err != nil {
			return Target{}, fmt.Errorf("%w: %q: %v", ErrBadURL, raw, err)
		}
		return fileTarget(unescaped)
	case "libsql", "http", "https", "ws", "wss":
		return remoteTarget(raw)
	default:
		return Target{}, fmt.Errorf("%w: %q: unsupported scheme %q; use file:, libsql://, http(s):// or ws(s)://", ErrBadURL, raw, scheme)
	}
}

func fileTarget(path string) (Target, error) {
	if path == "" {
		return Target{}, fmt.Errorf("%w: empty file path", ErrBadURL)
	}
	if path == ":memory:" {
		return Target{}, fmt.Errorf("%w: in-memory databases are not supported: a store must live in a file or on a server", ErrBadURL)
	}
	if strings.ContainsAny(path, "?#") {
		return Target{}, fmt.Errorf("%w: %q: a database path may not contain '?' or '#'", ErrBadURL, path)
	}
	return Target{Transport: TransportFile, Path: path, Display: "file:" + path}, nil
}

func remoteTarget(raw string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, fmt.Errorf("%w: %q: %v", ErrBadURL, redactURL(raw), err)
	}
	if u.Host == "" || u.Hostname() == "" {
		return Target{}, fmt.Errorf("%w: %q has no host; expected e.g. libsql://my-db.turso.io or http://127.0.0.1:8080", ErrBadURL, redactURL(raw))
	}
	if u.User != nil {
		return Target{}, fmt.Errorf("%w: credentials in the URL are not accepted; pass the token with --auth-token or KVDECK_AUTH_TOKEN", ErrTokenInURL)
	}
	q := u.Query()
	for _, name := range []string{"authToken", "auth_token", "jwt", "token"} {
		if q.Has(name) {
			return Target{}, fmt.Errorf("%w: the URL carries %q; remove it and pass the token with --auth-token or KVDECK_AUTH_TOKEN", ErrTokenInURL, name)
		}
	}
	for name := range q {
		return Target{}, fmt.Errorf("%w: %q: unknown query parameter %q", ErrBadURL, redactURL(raw), name)
	}
	if u.Fragment != "" {
		return Target{}, fmt.Errorf("%w: %q: a database URL takes no fragment", ErrBadURL, raw)
	}
	t := Target{URL: u.String(), Display: u.String()}
	switch strings.ToLower(u.Scheme) {
	case "ws", "wss":
		t.Transport = TransportWS
	default:
		t.Transport = TransportHTTP
	}
	return t, nil
}

// redactURL keeps a URL's scheme and host for a message, dropping its query
// and user info, which might hold secrets.
func redactURL(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i] + "?…"
	}
	if at := strings.Index(raw, "@"); at >= 0 {
		if s := strings.Index(raw, "://"); s >= 0 && s < at {
			raw = raw[:s+3] + "…@" + raw[at+1:]
		}
	}
	return raw
}

// SQLiteDSN is the modernc.org/sqlite URI the store opens an embedded
// database with: the same driver and settings, for raw-SQL baselines in
// benchmarks and for tests. wal selects synchronous=NORMAL.
func (t Target) SQLiteDSN(readOnly, wal bool, busy time.Duration) string {
	return t.dsn(readOnly, wal, busy.Milliseconds())
}

// dsn builds the modernc.org/sqlite URI for an embedded database.
func (t Target) dsn(readOnly, wal bool, busyMS int64) string {
	abs, err := filepath.Abs(t.Path)
	if err != nil {
		abs = t.Path
	}
	u := url.URL{Scheme: "file", Path: abs}
	// url.URL leaves a path without a host as file:///abs; SQLite accepts it.
	q := []string{fmt.Sprintf("_pragma=busy_timeout(%d)", busyMS), "_txlock=immediate"}
	if readOnly {
		q = append(q, "mode=ro", "_pragma=query_only(1)")
	} else if wal {
		q = append(q, "_pragma=synchronous(NORMAL)")
	}
	return "file://" + u.EscapedPath() + "?" + strings.Join(q, "&")
}
