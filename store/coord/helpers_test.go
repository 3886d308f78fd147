package coord_test

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

// t0 is the clock of the reference vectors (2026-01-02T00:00:00Z).
const t0 = int64(1767312000000)

// clock is a hand-moved clock for the store.
type clock struct{ ms atomic.Int64 }

func newClock(ms int64) *clock {
	c := &clock{}
	c.ms.Store(ms)
	return c
}

func (c *clock) Now() int64          { return c.ms.Load() }
func (c *clock) Set(ms int64)        { c.ms.Store(ms) }
func (c *clock) Add(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// db is one real database of a backend; open may be called several times
// to get several clients (replicas) of the same database.
type db struct {
	url string
}

func (d db) open(t *testing.T, c *clock) *store.Store {
	t.Helper()
	cx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := store.Open(cx, d.url, store.Options{Clock: c.Now})
	if err != nil {
		t.Fatalf("open %s: %v", d.url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// eachDB runs fn against a fresh embedded file and a fresh real sqld.
func eachDB(t *testing.T, fn func(t *testing.T, d db)) {
	t.Helper()
	t.Run("file", func(t *testing.T) {
		fn(t, db{url: "file:" + filepath.Join(t.TempDir(), "kv.db")})
	})
	t.Run("sqld", func(t *testing.T) {
		fn(t, db{url: sqldtest.Start(t).URL})
	})
}

// eachStore is eachDB with one client on a clock at t0.
func eachStore(t *testing.T, fn func(t *testing.T, s *store.Store, c *clock)) {
	t.Helper()
	eachDB(t, func(t *testing.T, d db) {
		c := newClock(t0)
		fn(t, d.open(t, c), c)
	})
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

// rows returns "key = value" for every physical row under prefix.
func rows(t *testing.T, s *store.Store, prefix string) []string {
	t.Helper()
	var out []string
	err := s.Dump(ctx(t), key(t, prefix), func(e store.Entry) error {
		out = append(out, codec.Format(e.Key)+" = "+string(e.Value))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// get returns the live entry at k, failing the test when it is absent.
func get(t *testing.T, s *store.Store, k codec.Key) store.Entry {
	t.Helper()
	e, found, err := s.Get(ctx(t), k)
	if err != nil || !found {
		t.Fatalf("get %s: found=%v err=%v", k, found, err)
	}
	return e
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
