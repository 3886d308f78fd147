package demo_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/demo"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

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
	must(t, s.Dump(storetest.Ctx(t), nil, func(e store.Entry) error {
		line := codec.Format(e.Key) + " = " + string(e.Value)
		if e.ExpiresAt != nil {
			line += " expires " + time.UnixMilli(*e.ExpiresAt).UTC().Format(time.RFC3339Nano)
		}
		out = append(out, line)
		return nil
	}))
	return out
}

// noDemoGoroutines fails the test when a goroutine still runs code of
// package demo (the test's own frames are in demo_test and do not count),
// showing the first one's stack.
func noDemoGoroutines(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "kvdeck/internal/demo.") {
			t.Fatalf("goroutines still running demo code after Simulate returned:\n%s", g)
		}
	}
}

// seedDemo opens the store at url and seeds it (demo.Seed) with seed.
func seedDemo(t *testing.T, url string, seed int64) {
	t.Helper()
	s := storetest.Open(t, url, store.Options{})
	_, err := demo.Seed(storetest.Ctx(t), s, seed, s.Now())
	must(t, err)
}
