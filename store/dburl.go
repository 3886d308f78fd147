package store

import (
	"errors"
	"fmt"
	"net"
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
	// URL is the server URL kvdeck's Hrana clients reach (remote only),
	// without its namespace parameter.
	URL string
	// Display is the URL without secrets, for status bars and messages.
	Display string
	// Namespace is the sqld namespace the URL names (?namespace=NAME;
	// remote only): every request of the store carries it in the
	// x-namespace-bin header, so an IP address reaches it too.
	Namespace string
}

// ParseTarget reads a database URL in any of the accepted forms:
// file:PATH, file:///abs/path, a bare filesystem path, libsql://, http(s)://,
// ws(s)://; a server's URL may name an sqld namespace with
// ?namespace=NAME, its one query parameter. A token inside the URL is
// refused (use the auth-token flag).
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
		if err := refuseSecrets(raw); err != nil {
			return Target{}, err
		}
		if strings.HasPrefix(path, "//") {
			if !strings.HasPrefix(path, "///") {
				return Target{}, fmt.Errorf("%w: %q: a file URL takes one slash (file:rel/path.db) or three (file:///abs/path.db), not two", ErrBadURL, redactURL(raw))
			}
			path = path[2:]
		}
		if i := strings.IndexAny(path, "?#"); i >= 0 {
			return Target{}, fmt.Errorf("%w: %q: file URLs take no query or fragment; kvdeck sets the connection options itself", ErrBadURL, redactURL(raw))
		}
		unescaped, err := url.PathUnescape(path)
		if err != nil {
			return Target{}, fmt.Errorf("%w: %q: a %%-escape in the path is malformed", ErrBadURL, raw)
		}
		return fileTarget(unescaped)
	case "libsql", "http", "https", "ws", "wss":
		return remoteTarget(raw)
	default:
		return Target{}, fmt.Errorf("%w: %q: unsupported scheme %q; use file:, libsql://, http(s):// or ws(s)://", ErrBadURL, redactURL(raw), scheme)
	}
}

// refuseSecrets refuses a URL whose query, fragment or user info might
// carry a token: ErrTokenInURL when it looks like one (user info, or a
// parameter named like a token), ErrBadURL otherwise. Its message never
// repeats what it refused.
func refuseSecrets(raw string) error {
	const useFlag = "pass the token with --auth-token or KVDECK_AUTH_TOKEN"
	if hasUserinfo(raw) {
		return fmt.Errorf("%w: credentials in the URL are not accepted; %s", ErrTokenInURL, useFlag)
	}
	i := strings.IndexAny(raw, "?#")
	if i < 0 {
		return nil
	}
	lower := strings.ToLower(raw[i:])
	for _, name := range []string{"token", "jwt", "auth", "key", "secret", "password"} {
		if strings.Contains(lower, name) {
			return fmt.Errorf("%w: the URL carries what looks like a token after %q; remove it and %s", ErrTokenInURL, raw[i:i+1], useFlag)
		}
	}
	what := "query parameters"
	if raw[i] == '#' {
		what = "fragment"
	}
	return fmt.Errorf("%w: %q: a database URL takes no %s; kvdeck sets the connection options itself", ErrBadURL, redactURL(raw), what)
}

// hasUserinfo reports whether the authority of a scheme://authority URL
// holds an '@' (user info).
func hasUserinfo(raw string) bool {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return false
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.Contains(rest, "@")
}

func fileTarget(path string) (Target, error) {
	if path == "" {
		return Target{}, fmt.Errorf("%w: empty file path", ErrBadURL)
	}
	if path == ":memory:" {
		return Target{}, fmt.Errorf("%w: in-memory databases are not supported: a store must live in a file or on a server", ErrBadURL)
	}
	if strings.ContainsAny(path, "?#") {
		if err := refuseSecrets(path); err != nil {
			return Target{}, err
		}
	}
	if strings.Contains(path, "://") {
		if err := refuseSecrets(path); err != nil {
			return Target{}, err
		}
		return Target{}, fmt.Errorf("%w: %q looks like a URL without its scheme; use file:PATH, libsql://, http(s):// or ws(s)://", ErrBadURL, path)
	}
	return Target{Transport: TransportFile, Path: path, Display: "file:" + path}, nil
}

func remoteTarget(raw string) (Target, error) {
	raw, ns, err := cutNamespace(raw)
	if err != nil {
		return Target{}, err
	}
	// Secrets are refused before parsing: a parse error would quote the
	// whole URL, and url.Query drops malformed pairs silently (a token
	// with a bad %-escape would pass).
	if err := refuseSecrets(raw); err != nil {
		return Target{}, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which it quotes whole
		}
		return Target{}, fmt.Errorf("%w: %q: %w", ErrBadURL, redactURL(raw), err)
	}
	if u.Host == "" || u.Hostname() == "" {
		return Target{}, fmt.Errorf("%w: %q has no host; expected e.g. libsql://my-db.turso.io or http://127.0.0.1:8080", ErrBadURL, redactURL(raw))
	}
	t := Target{URL: u.String(), Display: u.String(), Namespace: ns}
	if ns != "" {
		t.Display += "?namespace=" + ns
	}
	switch strings.ToLower(u.Scheme) {
	case "ws", "wss":
		t.Transport = TransportWS
	default:
		t.Transport = TransportHTTP
	}
	return t, nil
}

// cutNamespace takes the namespace=NAME parameter out of a server URL's
// query and returns the URL without it (other parameters stay, for
// refuseSecrets to refuse) and the name. A URL with a fragment is left
// whole. Errors never repeat what was given.
func cutNamespace(raw string) (rest, ns string, err error) {
	base, query, ok := strings.Cut(raw, "?")
	if !ok || strings.Contains(query, "#") {
		return raw, "", nil
	}
	var others []string
	found := false
	for _, p := range strings.Split(query, "&") {
		name, ok := strings.CutPrefix(p, "namespace=")
		if !ok {
			others = append(others, p)
			continue
		}
		if found {
			return "", "", fmt.Errorf("%w: %s: the URL names a namespace twice", ErrBadURL, redactURL(raw))
		}
		if err := CheckNamespace(name); err != nil {
			return "", "", fmt.Errorf("%w: %s: %w", ErrBadURL, redactURL(raw), err)
		}
		ns, found = name, true
	}
	if len(others) > 0 {
		base += "?" + strings.Join(others, "&")
	}
	return base, ns, nil
}

// CheckNamespace refuses a namespace name kvdeck does not send: sqld's
// names are taken as letters, digits, '.', '-' and '_', 1 to 128 of them,
// not starting with '.' (what a URL path and a file name take as they
// are, "." and ".." excluded). The error does not repeat the name.
func CheckNamespace(name string) error {
	if name == "" || len(name) > 128 || name[0] == '.' || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
		return errors.New("a namespace is 1 to 128 letters, digits, '.', '-' and '_', not starting with '.'")
	}
	return nil
}

// Server is the host:port a remote target reaches, with the host in
// lower case and the port filled in from the scheme when the URL has none
// (http, ws: 80; https, wss, libsql: 443); "" for a file. Two URLs with
// the same Server reach the same server whatever their scheme: an auth
// token given for one may go to the other, and to nothing else.
func (t Target) Server() string {
	if !t.Transport.Remote() {
		return ""
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if s := strings.ToLower(u.Scheme); s == "http" || s == "ws" {
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// RedactURL is raw as it may be shown: scheme, host and path, without a
// query, fragment or user info, which might hold a token. It never fails;
// raw need not be a valid URL.
func RedactURL(raw string) string { return redactURL(raw) }

// redactURL keeps a URL's scheme, host and path for a message, dropping
// its query, fragment and user info, which might hold secrets.
func redactURL(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i] + "?…"
	}
	if at := strings.LastIndex(raw, "@"); at >= 0 {
		if s := strings.Index(raw, "://"); s >= 0 && s < at {
			raw = raw[:s+3] + "…@" + raw[at+1:]
		}
	}
	return raw
}

// SQLiteDSN is the modernc.org/sqlite URI the store opens an embedded
// database with: the same driver and settings, for raw-SQL baselines in
// benchmarks and for tests. A writable database gets synchronous=FULL,
// WAL or not: a write kvdeck reports is on the disk, as SQLite's default
// makes the service's (NORMAL on a WAL file may lose the last commits at
// a power loss).
func (t Target) SQLiteDSN(readOnly bool, busy time.Duration) string {
	return t.dsn(readOnly, busy.Milliseconds())
}

// dsn builds the modernc.org/sqlite URI for an embedded database.
func (t Target) dsn(readOnly bool, busyMS int64) string {
	abs, err := filepath.Abs(t.Path)
	if err != nil {
		abs = t.Path
	}
	u := url.URL{Scheme: "file", Path: abs}
	// url.URL leaves a path without a host as file:///abs; SQLite accepts it.
	q := []string{fmt.Sprintf("_pragma=busy_timeout(%d)", busyMS), "_txlock=immediate"}
	if readOnly {
		q = append(q, "mode=ro", "_pragma=query_only(1)")
	} else {
		q = append(q, "_pragma=synchronous(FULL)")
	}
	return "file://" + u.EscapedPath() + "?" + strings.Join(q, "&")
}
