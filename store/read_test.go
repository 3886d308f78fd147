package store_test

import (
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestRemoteScanPagesInBytes: over HTTP a scan reads pages sized in bytes,
// not in rows: values of a few bytes come many thousands to a request,
// large values few to a request, and every row arrives once, in order.
func TestRemoteScanPagesInBytes(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 2*time.Millisecond)
	s := storetest.Open(t, proxy.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	a := s.Atomic()
	for i := 0; i < 6000; i++ {
		a.Set(codec.Key{codec.String("small"), codec.Number(float64(i))}, []byte(`1`))
	}
	if _, err := a.Commit(storetest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	scan := func(prefix string) (int, int64) {
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
	if n, reqs := scan("small"); n != 6000 || reqs != 1 {
		t.Errorf("6000 small rows: %d rows in %d requests, want 6000 in 1 (a file reads pages of %d)", n, reqs, store.DefaultPageSize)
	}
	restore := store.SetRemotePage(100000, 64<<10)
	n, reqs := scan("small")
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
	if n, reqs := scan("big"); n != 12 || reqs < 6 {
		t.Errorf("12 rows of 1 MB: %d rows in %d requests, want 12 in at least 6", n, reqs)
	}
}
