package storetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/store"
)

// openTimeout bounds Open: a server that does not answer fails the test.
const openTimeout = 30 * time.Second

// Backend is one kind of real database a suite runs against.
type Backend struct {
	// Name is the subtest name Each runs the backend under.
	Name string
	// URL returns the URL of a fresh, empty database of this kind, removed
	// (or stopped) when t ends; each call makes another one.
	URL func(t testing.TB) string
}

// File is a fresh embedded database, a file under t.TempDir(), named "file".
func File() Backend {
	return Backend{Name: "file", URL: func(t testing.TB) string {
		t.Helper()
		return "file:" + filepath.Join(t.TempDir(), "kv.db")
	}}
}

// SQLD is a fresh real sqld reached over HTTP, named "sqld".
func SQLD() Backend {
	return Backend{Name: "sqld", URL: func(t testing.TB) string {
		t.Helper()
		return sqldtest.Start(t).URL
	}}
}

// SQLDWS is a fresh real sqld reached over WebSocket, named "ws".
func SQLDWS() Backend {
	return Backend{Name: "ws", URL: func(t testing.TB) string {
		t.Helper()
		return sqldtest.Start(t).WSURL
	}}
}

// Named returns b under another subtest name, so that a suite keeps the
// names its history (and its -run patterns) know.
func (b Backend) Named(name string) Backend {
	b.Name = name
	return b
}

// FileAndSQLD returns File and SQLD: the embedded engine and a real server.
func FileAndSQLD() []Backend { return []Backend{File(), SQLD()} }

// FileHTTPWS returns File, SQLD named "http" and SQLDWS: both transports
// of the remote driver as well as the embedded engine.
func FileHTTPWS() []Backend { return []Backend{File(), SQLD().Named("http"), SQLDWS()} }

// Each runs fn as a subtest per backend, named by it.
func Each(t *testing.T, backends []Backend, fn func(t *testing.T, b Backend)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) { fn(t, b) })
	}
}

// EachStore is Each with a store: fn gets a store opened (Open) on a fresh
// database of the backend, on a Clock standing at T0.
func EachStore(t *testing.T, backends []Backend, fn func(t *testing.T, s *store.Store, c *Clock)) {
	t.Helper()
	Each(t, backends, func(t *testing.T, b Backend) {
		c := NewClock(T0)
		fn(t, Open(t, b.URL(t), store.Options{Clock: c.Now}), c)
	})
}

// Open opens the store at url with opts, failing the test when it cannot
// within 30 seconds, and closes it when the test ends. It creates the store
// where there is none (Options.Create): tests open fresh databases.
func Open(t testing.TB, url string, opts store.Options) *store.Store {
	t.Helper()
	opts.Create = true
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	s, err := store.Open(ctx, url, opts)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
