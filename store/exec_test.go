package store_test

import (
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestOneRoundTripPerOperation: over HTTP a commit, a get and each list page
// are exactly one request.
func TestOneRoundTripPerOperation(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	s := storetest.Open(t, proxy.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	measure := func(what string, want int64, op func() error) {
		t.Helper()
		var err error
		if got := proxy.Count(func() { err = op() }); err != nil {
			t.Fatalf("%s: %v", what, err)
		} else if got != want {
			t.Errorf("%s took %d requests, want %d", what, got, want)
		}
	}
	k := storetest.Key(t, `["rt", 1]`)
	measure("set", 1, func() error { _, err := s.Set(storetest.Ctx(t), k, []byte(`1`), nil); return err })
	measure("get", 1, func() error { _, _, err := s.Get(storetest.Ctx(t), k); return err })
	e, _, _ := s.Get(storetest.Ctx(t), k)
	measure("check+set+delete commit", 1, func() error {
		res, err := s.Atomic().Check(k, e.Versionstamp()).Set(k, []byte(`2`)).Delete(storetest.Key(t, `["rt", 0]`)).Commit(storetest.Ctx(t))
		if err == nil && !res.OK {
			t.Error("check on the current stamp failed")
		}
		return err
	})
	a := s.Atomic()
	for i := 0; i < 30; i++ {
		a.Set(codec.Key{codec.String("rt"), codec.Number(float64(100 + i))}, []byte(`0`))
	}
	measure("commit of 30 sets", 1, func() error { _, err := a.Commit(storetest.Ctx(t)); return err })
	measure("delete", 1, func() error { return s.Delete(storetest.Ctx(t), k) })
	measure("list page", 1, func() error {
		p, err := s.List(storetest.Ctx(t), store.ListOptions{Prefix: storetest.Key(t, `["rt"]`), Limit: 10})
		if err == nil && len(p.Entries) != 10 {
			t.Errorf("page has %d entries", len(p.Entries))
		}
		return err
	})
	measure("scan of 30 rows in pages of 500", 1, func() error {
		return s.Scan(storetest.Ctx(t), store.ListOptions{Prefix: storetest.Key(t, `["rt"]`)}, func(store.Entry) error { return nil })
	})
	measure("30 rows in pages of 10: three requests, no empty fourth", 3, func() error {
		opts := store.ListOptions{Prefix: storetest.Key(t, `["rt"]`), Limit: 10}
		for {
			p, err := s.List(storetest.Ctx(t), opts)
			if err != nil || p.Cursor == "" {
				return err
			}
			opts.Cursor = p.Cursor
		}
	})
	measure("get many", 1, func() error {
		_, err := s.GetMany(storetest.Ctx(t), []codec.Key{storetest.Key(t, `["rt", 100]`), storetest.Key(t, `["rt", 101]`)})
		return err
	})
}
