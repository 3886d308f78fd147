package demo_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
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
