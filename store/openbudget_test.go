package store_test

import (
	"testing"

	"kvdeck/codec"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestOpenAndOneShotBudget: issue 11's budget, open + a one-shot get /
// set / delete / atomic in at most 2 requests over HTTP, counted by the
// latency proxy. It took 3 before (Open checked kv_meta's row 0 with a
// request of its own). With Options.OneShot it is one
// request: the schema check, the statements and the stream's close in one
// pipeline (it was 2 to 3: libsql-client-go closes its stream in a
// request of its own).
func TestOpenAndOneShotBudget(t *testing.T) {
	for _, oneShot := range []bool{false, true} {
		t.Run(map[bool]string{false: "open", true: "oneshot"}[oneShot], func(t *testing.T) { testOneShotBudget(t, oneShot) })
	}
}

func testOneShotBudget(t *testing.T, oneShot bool) {
	t.Helper()
	srv := sqldtest.Start(t)
	storetest.Open(t, srv.URL, store.Options{}) // the schema exists
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	k := storetest.Key(t, `["k"]`)
	for _, op := range oneShotOps(t, k) {
		var err error
		n := proxy.Count(func() {
			var s *store.Store
			if s, err = store.Open(storetest.Ctx(t), proxy.URL, store.Options{OneShot: oneShot}); err == nil {
				err = op.run(s)
				s.Close()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(2)
		if oneShot {
			want = 1
		}
		t.Logf("open + %s: %d requests", op.name, n)
		if n > want {
			t.Errorf("open + %s: %d requests, want at most %d", op.name, n, want)
		}
	}
}

type oneShotOp struct {
	name string
	run  func(s *store.Store) error
}

// oneShotOps are the one-shot commands' calls on k.
func oneShotOps(t *testing.T, k codec.Key) []oneShotOp {
	t.Helper()
	return []oneShotOp{
		{"get", func(s *store.Store) error { _, _, err := s.Get(storetest.Ctx(t), k); return err }},
		{"set", func(s *store.Store) error { _, err := s.Set(storetest.Ctx(t), k, []byte(`1`), nil); return err }},
		{"delete", func(s *store.Store) error { return s.Delete(storetest.Ctx(t), k) }},
		{"atomic", func(s *store.Store) error {
			_, err := s.Atomic().Check(k, "").Set(k, []byte(`2`)).Commit(storetest.Ctx(t))
			return err
		}},
	}
}

// TestOneShotOverWebSocket: over WebSocket a one-shot's open and get,
// set, delete or atomic are the handshake and one round trip (the schema
// check, the statements and the stream's open and close in one burst),
// as the store's meter counts them (the proxy counts messages, not round
// trips). Before, Open checked the schema through libsql-client-go's
// connection (a handshake and round trips of its own) and a write dialled
// again.
func TestOneShotOverWebSocket(t *testing.T) {
	srv := sqldtest.Start(t)
	storetest.Open(t, srv.URL, store.Options{}) // the schema exists
	k := storetest.Key(t, `["k"]`)
	for _, op := range oneShotOps(t, k) {
		s, err := store.Open(storetest.Ctx(t), srv.WSURL, store.Options{OneShot: true})
		if err != nil {
			t.Fatal(err)
		}
		err = op.run(s)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		c := s.Cost()
		t.Logf("open + %s over ws: %+v", op.name, c)
		if c.Requests != 2 {
			t.Errorf("open + %s over ws: %d round trips, want 2 (the handshake and one)", op.name, c.Requests)
		}
	}
}
