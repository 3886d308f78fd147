package race_test

import (
	"context"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/race"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// ctx is storetest.Ctx with a longer deadline: a race opens a store per
// worker and runs them all to the end.
func ctx(t *testing.T) context.Context {
	t.Helper()
	return storetest.CtxTimeout(t, 2*time.Minute)
}

// opener returns a Config.Open for url.
func opener(url string) func(context.Context) (*store.Store, error) {
	return func(ctx context.Context) (*store.Store, error) {
		return store.Open(ctx, url, store.Options{Create: true})
	}
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
