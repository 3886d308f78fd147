package store_test

import (
	"errors"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestOneShotChecksTheSchema: a one-shot (Options.OneShot over HTTP)
// checks the schema in its first call's request and answers as Open
// would: a fresh database gets the store (and the write), a read-only
// one-shot on it says there is no store yet, and a database that is not
// a store is refused with nothing written, whether it has other tables or
// a kv table with other columns (the guard inside the write's batch).
func TestOneShotChecksTheSchema(t *testing.T) {
	ctx := storetest.Ctx(t)
	k := storetest.Key(t, `["k"]`)
	oneShot := func(url string, readOnly bool) *store.Store {
		t.Helper()
		s, err := store.Open(ctx, url, store.Options{OneShot: true, ReadOnly: readOnly})
		if err != nil {
			t.Fatalf("a one-shot open sends nothing and cannot fail here: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}

	fresh := sqldtest.Start(t)
	if _, _, err := oneShot(fresh.URL, true).Get(ctx, k); !errors.Is(err, store.ErrNoStoreYet) {
		t.Errorf("read-only get on an empty database: %v, want ErrNoStoreYet", err)
	}
	if _, err := oneShot(fresh.URL, false).Set(ctx, k, []byte(`1`), nil); err != nil {
		t.Fatalf("set on an empty database: %v", err)
	}
	if e, found, err := oneShot(fresh.URL, true).Get(ctx, k); err != nil || !found || string(e.Value) != "1" {
		t.Errorf("get after the one-shot set: %v %v %q", err, found, e.Value)
	}
	empty := sqldtest.Start(t)
	if _, found, err := oneShot(empty.URL, false).Get(ctx, k); err != nil || found {
		t.Errorf("get on an empty database (creates the store, as Open): found %v, %v", found, err)
	}

	other := sqldtest.Start(t)
	storetest.Exec(t, other.URL, "CREATE TABLE things (a)")
	if _, err := oneShot(other.URL, false).Set(ctx, k, []byte(`1`), nil); !errors.Is(err, store.ErrNotStore) {
		t.Errorf("set on a database with other tables: %v, want ErrNotStore", err)
	}
	odd := sqldtest.Start(t)
	storetest.Exec(t, odd.URL,
		"CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER, extra TEXT)",
		"CREATE TABLE kv_meta (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, ok INTEGER NOT NULL)",
		"INSERT INTO kv_meta VALUES (0, 0, 0)")
	if _, err := oneShot(odd.URL, false).Set(ctx, k, []byte(`1`), nil); !errors.Is(err, store.ErrNotStore) {
		t.Errorf("set on a kv table with other columns: %v, want ErrNotStore", err)
	}
	if err := oneShot(odd.URL, false).Delete(ctx, k); !errors.Is(err, store.ErrNotStore) {
		t.Errorf("delete on a kv table with other columns: %v, want ErrNotStore", err)
	}
	var n int
	if err := storetest.RawDB(t, odd.URL).QueryRowContext(ctx, "SELECT count(*) + (SELECT seq FROM kv_meta) FROM kv").Scan(&n); err != nil || n != 0 {
		t.Errorf("the refused set wrote: %d rows + seq (%v)", n, err)
	}
}

// TestCostCountsRequests: Store.Cost counts the requests of a store and
// the rows the server reports, on HTTP (kvdeck's pipelines and
// libsql-client-go's requests) and WebSocket (the write batches and the
// handshake of their connection).
func TestCostCountsRequests(t *testing.T) {
	srv := sqldtest.Start(t)
	ctx := storetest.Ctx(t)
	k := storetest.Key(t, `["k"]`)
	for _, url := range []string{srv.URL, srv.WSURL} {
		s := storetest.Open(t, url, store.Options{})
		before := s.Cost()
		if _, err := s.Set(ctx, k, []byte(`{"a":1}`), nil); err != nil {
			t.Fatal(err)
		}
		set := s.Cost()
		want := int64(1)
		if url == srv.WSURL {
			want = 2 // the write's connection says hello first
		}
		if set.Requests-before.Requests != want || set.RowsWritten <= before.RowsWritten || set.BytesSent <= before.BytesSent || set.BytesReceived <= before.BytesReceived {
			t.Errorf("%s: a set cost %+v (from %+v), want %d request(s), rows written, bytes each way", url, set, before, want)
		}
		if _, _, err := s.Get(ctx, k); err != nil {
			t.Fatal(err)
		}
		got := s.Cost()
		t.Logf("%s: open %+v, set %+v, get %+v", url, before, set, got)
		if url == srv.URL && (got.Requests-set.Requests != 1 || got.RowsRead <= set.RowsRead) {
			t.Errorf("%s: a get cost %+v (from %+v), want 1 request and rows read", url, got, set)
		}
	}
}
