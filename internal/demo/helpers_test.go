package demo_test

import (
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

// seedDemo opens the store at url and seeds it (demo.Seed) with seed.
func seedDemo(t *testing.T, url string, seed int64) {
	t.Helper()
	s := storetest.Open(t, url, store.Options{})
	_, err := demo.Seed(storetest.Ctx(t), s, seed, s.Now())
	must(t, err)
}
