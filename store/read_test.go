package store_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestRemoteScanPagesInBytes: over HTTP a scan reads pages sized in
// bytes, not in rows, with or without a cursor on the server: values of
// a few bytes come many thousands to a request, large values few to a
// request, and 12 MB of them never in one answer (sqld refuses one over
// 10 MB). Every row arrives once, in order.
func TestRemoteScanPagesInBytes(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 2*time.Millisecond)
	s := storetest.Open(t, proxy.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	paged := storetest.Open(t, noCursorFront(t, proxy.URL), store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	a := s.Atomic()
	for i := 0; i < 6000; i++ {
		a.Set(codec.Key{codec.String("small"), codec.Number(float64(i))}, []byte(`1`))
	}
	if _, err := a.Commit(storetest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	scan := func(s *store.Store, prefix string) (int, int64) {
		t.Helper()
		n := 0
		var last []byte
		reqs := proxy.Count(func() {
			err := s.Dump(storetest.CtxTimeout(t, 5*time.Minute), codec.Key{codec.String(prefix)}, func(e store.Entry) error {
				if last != nil && string(e.Raw) <= string(last) {
					t.Fatalf("rows out of order: %x after %x", e.Raw, last)
				}
				last = e.Raw
				n++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
		return n, reqs
	}
	for _, c := range []struct {
		name string
		s    *store.Store
	}{{"streamed", s}, {"paged", paged}} {
		if n, reqs := scan(c.s, "small"); n != 6000 || reqs != 1 {
			t.Errorf("%s: 6000 small rows: %d rows in %d requests, want 6000 in 1 (a file reads pages of %d)", c.name, n, reqs, store.DefaultPageSize)
		}
	}
	restore := store.SetRemotePage(paged, 100000, 64<<10)
	n, reqs := scan(paged, "small")
	restore()
	if n != 6000 || reqs < 15 || reqs > 20 {
		t.Errorf("6000 small rows in 64 KiB pages: %d rows in %d requests, want 6000 in about 18 (190 estimated bytes a row)", n, reqs)
	}
	// 12 values of 1 MB: one page of them would pass sqld's 10 MB
	// response limit (RESPONSE_TOO_LARGE); pages of 500 rows failed so.
	big := []byte(`"` + strings.Repeat("x", 1<<20) + `"`)
	for i := 0; i < 12; i++ {
		if _, err := s.Set(storetest.Ctx(t), codec.Key{codec.String("big"), codec.Number(float64(i))}, big, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		s    *store.Store
	}{{"with a cursor", s}, {"without", paged}} {
		// Pages of 8 MB estimated, a row of 1 MB counting 2 MB: 3 rows
		// in the server-sized first page, then 4 a page.
		if n, reqs := scan(c.s, "big"); n != 12 || reqs != 4 {
			t.Errorf("%s: 12 rows of 1 MB: %d rows in %d requests, want 12 in 4", c.name, n, reqs)
		}
	}
}

// TestListValueContains: ValueContains keeps, on the server, exactly the
// rows whose stored value holds the bytes: JSON text, non-ASCII text and a
// value another program stored as a blob alike; across pages every match
// comes once, in key order, and nothing else does.
func TestListValueContains(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
		ctx := storetest.Ctx(t)
		a := s.Atomic()
		var want []string
		for i := 0; i < 700; i++ {
			v := `{"n":` + strconv.Itoa(i) + `,"to":"user-` + strconv.Itoa(i) + `@example.com"}`
			if i%100 == 7 {
				v = `{"n":` + strconv.Itoa(i) + `,"to":"grüße-` + strconv.Itoa(i) + `@example.com"}`
				want = append(want, codec.Format(codec.Key{codec.String("m"), codec.Number(float64(i))}))
			}
			a.Set(codec.Key{codec.String("m"), codec.Number(float64(i))}, []byte(v))
		}
		if _, err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		// A row another program wrote with a blob value holding the text.
		raw, _ := codec.Encode(codec.Key{codec.String("m"), codec.Number(1e6)})
		if _, err := storetest.RawDB(t, url).ExecContext(ctx, "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, CAST(? AS BLOB), 1, NULL)", raw, `"grüße"`); err != nil {
			t.Fatal(err)
		}
		want = append(want, `["m", 1000000]`)
		var got []string
		opts := store.ListOptions{Prefix: codec.Key{codec.String("m")}, ValueContains: []byte("grüße")}
		for {
			opts.Limit = 3
			p, err := s.List(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entries {
				got = append(got, codec.Format(e.Key))
			}
			if opts.Cursor = p.Cursor; p.Cursor == "" {
				break
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("rows holding grüße:\n got %v\nwant %v", got, want)
		}
		n := 0
		err := s.Scan(ctx, store.ListOptions{Prefix: codec.Key{codec.String("m")}, ValueContains: []byte(`"n":69`)}, func(e store.Entry) error {
			n++
			return nil
		})
		if err != nil || n != 11 { // 69 and 690-699
			t.Errorf(`scan for "n":69: %d rows (%v), want 11`, n, err)
		}
	})
}
