package race_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/store"
	"kvdeck/store/race"
)

// backend is a real database kind the suite runs against; url returns a
// fresh, empty database.
type backend struct {
	name string
	url  func(t *testing.T) string
}

// eachBackend runs fn against an embedded file and a real sqld (HTTP).
func eachBackend(t *testing.T, fn func(t *testing.T, url string)) {
	t.Helper()
	for _, b := range []backend{
		{name: "file", url: func(t *testing.T) string { return "file:" + filepath.Join(t.TempDir(), "kv.db") }},
		{name: "sqld", url: func(t *testing.T) string { return sqldtest.Start(t).URL }},
	} {
		t.Run(b.name, func(t *testing.T) { fn(t, b.url(t)) })
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// opener returns a Config.Open for url.
func opener(url string) func(context.Context) (*store.Store, error) {
	return func(ctx context.Context) (*store.Store, error) { return store.Open(ctx, url, store.Options{}) }
}

func open(t *testing.T, url string) *store.Store {
	t.Helper()
	s, err := opener(url)(ctx(t))
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var counterKey = codec.Key{codec.String("race"), codec.String("counter")}

func set(t *testing.T, s *store.Store, value string) string {
	t.Helper()
	stamp, err := s.Set(ctx(t), counterKey, []byte(value), nil)
	if err != nil {
		t.Fatal(err)
	}
	return stamp
}

func read(t *testing.T, s *store.Store) race.Counter {
	t.Helper()
	c, err := race.ReadCounter(ctx(t), s, counterKey)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
