package store_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/store"
)

// testClock is an injectable clock the tests move by hand.
type testClock struct{ ms atomic.Int64 }

func newClock(ms int64) *testClock {
	c := &testClock{}
	c.ms.Store(ms)
	return c
}

func (c *testClock) Now() int64          { return c.ms.Load() }
func (c *testClock) Set(ms int64)        { c.ms.Store(ms) }
func (c *testClock) Add(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// backend is one real database kind the whole suite runs against.
type backend struct {
	name string
	// url returns a fresh, empty database URL.
	url func(t *testing.T) string
}

// backends returns the embedded file and a real sqld (over HTTP and over
// WebSocket); every subtest gets a fresh database.
func backends() []backend {
	return []backend{
		{name: "file", url: func(t *testing.T) string { return "file:" + filepath.Join(t.TempDir(), "kv.db") }},
		{name: "http", url: func(t *testing.T) string { return sqldtest.Start(t).URL }},
		{name: "ws", url: func(t *testing.T) string { return sqldtest.Start(t).WSURL }},
	}
}

// eachBackend runs fn once per backend.
func eachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}

// openStore opens a fresh store on b with the given clock.
func openStore(t *testing.T, b backend, clock *testClock) *store.Store {
	t.Helper()
	return openURL(t, b.url(t), store.Options{Clock: clock.Now})
}

func openURL(t *testing.T, url string, opts store.Options) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := store.Open(ctx, url, opts)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func key(t testing.TB, text string) codec.Key {
	t.Helper()
	k, err := codec.Parse(text)
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	return k
}

func mustSet(t *testing.T, s *store.Store, k string, v string, expireIn *time.Duration) string {
	t.Helper()
	stamp, err := s.Set(ctx(t), key(t, k), []byte(v), expireIn)
	if err != nil {
		t.Fatalf("set %s: %v", k, err)
	}
	return stamp
}

func dur(d time.Duration) *time.Duration { return &d }

func keysOf(entries []store.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = codec.Format(e.Key)
	}
	return out
}
