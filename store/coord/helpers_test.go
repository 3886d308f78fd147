package coord_test

import (
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// rows returns "key = value" for every physical row under prefix.
func rows(t *testing.T, s *store.Store, prefix string) []string {
	t.Helper()
	var out []string
	err := s.Dump(storetest.Ctx(t), storetest.Key(t, prefix), func(e store.Entry) error {
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
	e, found, err := s.Get(storetest.Ctx(t), k)
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
