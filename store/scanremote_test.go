package store_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// seedSameRows writes into the store at url n rows [prefix, i] whose
// values hold a pad of about pad digits (every tenth row expired at T0),
// the same rows on every backend: the rows of a file are the reference a
// server's scan must read.
func seedSameRows(t *testing.T, url, prefix string, n, pad int) {
	t.Helper()
	seedRows(t, url, prefix, n, fmt.Sprintf("printf('%%0%dd', i)", max(pad, 1)))
}

// seedRows writes n rows [prefix, i] into the store at url, generated on
// the server: values {"n": i, "pad": <padSQL>}, every tenth expired at T0.
func seedRows(t *testing.T, url, prefix string, n int, padSQL string) {
	t.Helper()
	storetest.Open(t, url, store.Options{Create: true}).Close()
	storetest.Exec(t, url, fmt.Sprintf(
		"WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < %d) "+
			"INSERT INTO kv SELECT unhex('02' || hex('%s') || '0004' || printf('80%%014X', i)), "+
			"'{\"n\":' || i || ',\"pad\":\"' || %s || '\"}', i + 1, "+
			"CASE WHEN i %% 10 = 3 THEN %d - 1 END FROM n", n, prefix, padSQL, storetest.T0))
}

// scanText is every row a Scan of opts reads, one line each.
func scanText(t *testing.T, s *store.Store, opts store.ListOptions) ([]string, error) {
	t.Helper()
	var got []string
	err := s.Scan(storetest.Ctx(t), opts, func(e store.Entry) error {
		got = append(got, fmt.Sprintf("%x %s %d %v", e.Raw, e.Value, e.Ver, e.ExpiresAt != nil))
		return nil
	})
	return got, err
}

// TestRemoteScanReadsWhatAFileReads: over HTTP and WebSocket a Scan
// reads exactly the rows a file of the same rows reads, whatever the
// options, and over HTTP 3000 small rows are one request (the first
// page is sized by the server: it holds them all); MaxBytes bounds each
// page, as List's.
func TestRemoteScanReadsWhatAFileReads(t *testing.T) {
	srv := sqldtest.Start(t)
	file := "file:" + t.TempDir() + "/kv.db"
	for _, u := range []string{srv.URL, file} {
		seedSameRows(t, u, "s", 3000, 20)
	}
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	clock := storetest.NewClock(storetest.T0).Now
	local := storetest.Open(t, file, store.Options{Clock: clock})
	remotes := map[string]*store.Store{
		"http": storetest.Open(t, proxy.URL, store.Options{Clock: clock}),
		"ws":   storetest.Open(t, srv.WSURL, store.Options{Clock: clock}),
	}
	key := func(i int) codec.Key { return codec.Key{codec.String("s"), codec.Bigint(int64(i))} }
	after := func(i int) string {
		p, err := local.List(storetest.Ctx(t), store.ListOptions{Start: key(i), End: key(i + 1), IncludeExpired: true})
		if err != nil || len(p.Entries) != 1 {
			t.Fatalf("row %d: %v %d", i, err, len(p.Entries))
		}
		return store.CursorAfter(p.Entries[0])
	}
	s := codec.Key{codec.String("s")}
	for _, c := range []struct {
		name string
		opts store.ListOptions
	}{
		{"prefix", store.ListOptions{Prefix: s}},
		{"expired too", store.ListOptions{Prefix: s, IncludeExpired: true}},
		{"start end", store.ListOptions{Prefix: s, Start: key(100), End: key(2500)}},
		{"reverse", store.ListOptions{Prefix: s, Reverse: true}},
		{"limit", store.ListOptions{Prefix: s, Limit: 777}},
		{"reverse limit end", store.ListOptions{Prefix: s, Reverse: true, Limit: 50, End: key(1000)}},
		{"cursor", store.ListOptions{Prefix: s, Cursor: after(1234)}},
		{"reverse cursor", store.ListOptions{Prefix: s, Reverse: true, Cursor: after(1234), IncludeExpired: true}},
		{"contains", store.ListOptions{Prefix: s, ValueContains: []byte(`"n":12`)}},
		{"all keys", store.ListOptions{Unbounded: true, IncludeExpired: true}},
		{"max bytes (a page's bound)", store.ListOptions{Prefix: s, MaxBytes: 64 << 10}},
	} {
		want, err := scanText(t, local, c.opts)
		if err != nil || len(want) == 0 {
			t.Fatalf("%s on the file: %d rows, %v", c.name, len(want), err)
		}
		for name, r := range remotes {
			var got []string
			n := proxy.Count(func() { got, err = scanText(t, r, c.opts) })
			if err != nil {
				t.Fatalf("%s over %s: %v", c.name, name, err)
			}
			switch {
			case name != "http":
			case c.opts.MaxBytes > 0 && n < 10:
				t.Errorf("%s over HTTP: %d requests, want pages of 64 KB (about 12)", c.name, n)
			case c.opts.MaxBytes == 0 && n != 1:
				t.Errorf("%s over HTTP: %d requests, want 1", c.name, n)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s over %s: %d rows, the file %d; they differ", c.name, name, len(got), len(want))
			}
		}
	}
	var expired int
	n := proxy.Count(func() {
		err := remotes["http"].ScanExpired(storetest.Ctx(t), s, storetest.T0, 0, func(store.Entry) error { expired++; return nil })
		if err != nil {
			t.Fatal(err)
		}
	})
	if expired != 300 || n != 1 {
		t.Errorf("ScanExpired: %d rows in %d requests, want 300 in 1", expired, n)
	}
	if c := remotes["http"].Cost(); c.RowsRead < 3000 || c.BytesReceived == 0 {
		t.Errorf("the meter counted %+v for the scans", c)
	}
}

// TestRemoteScanPagesGrowAndShrink: a server whose answers may not pass
// 64 KB (sqld's --max-response-size; 10 MB by default) under rows whose
// size changes along the range: small rows, then rows of 6 KB that a
// page sized for the small ones cannot carry (the server refuses it, and
// the page is read again, cut by the server's count of its bytes), then
// small rows again, and one row of 100 KB that no page carries (over
// HTTP it is read alone, streamed through the cursor; over WebSocket
// the scan fails and says why). Every row comes once, in order, as a
// file reads them.
func TestRemoteScanPagesGrowAndShrink(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithMaxResponseSize("64KB"))
	file := "file:" + t.TempDir() + "/kv.db"
	for _, u := range []string{srv.URL, file} {
		seedSameRows(t, u, "a", 2000, 10)
		seedSameRows(t, u, "b", 40, 6000)
		seedSameRows(t, u, "c", 2000, 10)
		storetest.Exec(t, u, "INSERT INTO kv VALUES (unhex('0264000400'), '\"' || printf('%0100000d', 7) || '\"', 5, NULL)")
	}
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	clock := storetest.NewClock(storetest.T0).Now
	open := func(u string) *store.Store {
		s := storetest.Open(t, u, store.Options{Clock: clock})
		store.SetRemotePage(s, 100000, 64<<10) // estimated bytes: under the server's 64 KB
		return s
	}
	local, http, ws := open(file), open(proxy.URL), open(srv.WSURL)
	for _, c := range []struct {
		name string
		opts store.ListOptions
		ws   bool // the huge row is out of the range
	}{
		{"small, then large, then small rows", store.ListOptions{Unbounded: true, IncludeExpired: true, Start: codec.Key{codec.String("a")}, End: codec.Key{codec.String("b\x00")}}, true},
		{"the same backwards", store.ListOptions{Unbounded: true, IncludeExpired: true, Start: codec.Key{codec.String("a")}, End: codec.Key{codec.String("b\x00")}, Reverse: true}, true},
		{"every row, the huge one too", store.ListOptions{Unbounded: true, IncludeExpired: true}, false},
	} {
		want, err := scanText(t, local, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		n := proxy.Count(func() { got, err = scanText(t, http, c.opts) })
		t.Logf("%s: %d rows in %d requests over HTTP", c.name, len(got), n)
		if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s over HTTP: %d rows, %v; the file %d rows", c.name, len(got), err, len(want))
		}
		got, err = scanText(t, ws, c.opts)
		switch {
		case c.ws && (err != nil || strings.Join(got, "\n") != strings.Join(want, "\n")):
			t.Errorf("%s over WebSocket: %d rows, %v; the file %d rows", c.name, len(got), err, len(want))
		case !c.ws && (err == nil || !strings.Contains(err.Error(), "larger than its answer limit")):
			t.Errorf("%s over WebSocket: %d rows, %v; want the huge row refused, in words", c.name, len(got), err)
		}
	}
}

// failingFront is a server in front of target that answers the scan
// pages (pipelines whose statement reads k, v, ver, expires_at) with 503
// while fail is positive, counting each down, and passes everything
// else on.
func failingFront(t *testing.T, target string, fail *atomic.Int64) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if strings.Contains(string(body), "SELECT k, CASE WHEN typeof(v)") && fail.Add(-1) >= 0 {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL
}

// TestRemoteScanRetriesAFailedPageOnce: a scan page answered 503 is sent
// once more and the scan reads every row; a page that fails twice is
// the scan's error, after two requests, not more.
func TestRemoteScanRetriesAFailedPageOnce(t *testing.T) {
	srv := sqldtest.Start(t)
	seedSameRows(t, srv.URL, "s", 3000, 20)
	var fail atomic.Int64
	front := failingFront(t, srv.URL, &fail)
	s := storetest.Open(t, front, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	store.SetRemotePage(s, 1000, 4<<20) // three pages
	opts := store.ListOptions{Prefix: codec.Key{codec.String("s")}, IncludeExpired: true}
	for _, failures := range []int64{1, 2} {
		fail.Store(failures)
		got, err := scanText(t, s, opts)
		switch {
		case failures == 1 && (err != nil || len(got) != 3000):
			t.Errorf("one failed page: %d rows, %v; want 3000 (the page sent again)", len(got), err)
		case failures == 2 && (err == nil || !strings.Contains(err.Error(), "503") || len(got) != 0):
			t.Errorf("a page that fails twice: %d rows, %v; want the 503 and no row", len(got), err)
		}
		if left := fail.Load(); failures == 2 && left != 0 {
			t.Errorf("the failing page was sent %d times, want 2", failures-left)
		}
	}
}
