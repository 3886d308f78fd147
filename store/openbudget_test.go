package store_test

import (
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestOpenAndOneShotBudget: issue 11's budget, open + a one-shot get /
// set / delete / atomic in at most 2 requests over HTTP, counted by the
// latency proxy. It took 3 before (Open checked kv_meta's row 0 with a
// request of its own).
func TestOpenAndOneShotBudget(t *testing.T) {
	srv := sqldtest.Start(t)
	storetest.Open(t, srv.URL, store.Options{}) // the schema exists
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	k := storetest.Key(t, `["k"]`)
	for _, op := range []struct {
		name string
		run  func(s *store.Store) error
	}{
		{"get", func(s *store.Store) error { _, _, err := s.Get(storetest.Ctx(t), k); return err }},
		{"set", func(s *store.Store) error { _, err := s.Set(storetest.Ctx(t), k, []byte(`1`), nil); return err }},
		{"delete", func(s *store.Store) error { return s.Delete(storetest.Ctx(t), k) }},
		{"atomic", func(s *store.Store) error {
			_, err := s.Atomic().Check(k, "").Set(k, []byte(`2`)).Commit(storetest.Ctx(t))
			return err
		}},
	} {
		var err error
		n := proxy.Count(func() {
			var s *store.Store
			if s, err = store.Open(storetest.Ctx(t), proxy.URL, store.Options{}); err == nil {
				err = op.run(s)
				s.Close()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if n > 2 {
			t.Errorf("open + %s: %d requests, want at most 2", op.name, n)
		}
	}
}
