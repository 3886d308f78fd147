package demo_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/store"
)

// t0 is the clock of the reference vectors (2026-01-02T00:00:00Z).
const t0 = int64(1767312000000)

// fixedClock is a clock the test sets by hand.
type fixedClock struct{ ms atomic.Int64 }

func newFixedClock(ms int64) *fixedClock {
	c := &fixedClock{}
	c.ms.Store(ms)
	return c
}

func (c *fixedClock) Now() int64 { return c.ms.Load() }

// eachDB runs fn against a fresh embedded file and a fresh real sqld.
func eachDB(t *testing.T, fn func(t *testing.T, url string)) {
	t.Helper()
	t.Run("file", func(t *testing.T) { fn(t, "file:"+filepath.Join(t.TempDir(), "demo.db")) })
	t.Run("sqld", func(t *testing.T) { fn(t, sqldtest.Start(t).URL) })
}

// open opens url on clock (the real clock when nil), closed with the test.
func open(t *testing.T, url string, clock store.Clock) *store.Store {
	t.Helper()
	s, err := store.Open(ctx(t), url, store.Options{Clock: clock})
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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// dump returns every physical row as "key = value (expires)".
func dump(t *testing.T, s *store.Store) []string {
	t.Helper()
	var out []string
	must(t, s.Dump(ctx(t), nil, func(e store.Entry) error {
		line := codec.Format(e.Key) + " = " + string(e.Value)
		if e.ExpiresAt != nil {
			line += " expires " + time.UnixMilli(*e.ExpiresAt).UTC().Format(time.RFC3339Nano)
		}
		out = append(out, line)
		return nil
	}))
	return out
}

// demoGoroutines returns the stacks of goroutines running code of package
// demo (the test's own frames are in demo_test and do not count).
func demoGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "kvdeck/internal/demo.") {
			out = append(out, g)
		}
	}
	return out
}
