package store_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestDumpIsTwoRequests: over HTTP, a DumpAll of 3002 small rows is two
// requests (the NULL keys, then one page the server sized; it was a
// request per page of each, and the NULL keys' last page an empty one),
// NULL keys first, and reads the same rows where the server has no
// cursor (a front that answers /v3/cursor with 404): scans do not need
// it.
func TestDumpIsTwoRequests(t *testing.T) {
	srv := sqldtest.Start(t)
	storetest.Open(t, srv.URL, store.Options{})
	storetest.Exec(t, srv.URL,
		"WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < 3000) "+
			"INSERT INTO kv SELECT unhex('0262656E63680004' || printf('80%014X', i)), '{\"n\":' || i || '}', 1, NULL FROM n",
		"INSERT INTO kv VALUES (NULL, '\"k1\"', 2, NULL)",
		"INSERT INTO kv VALUES (x'0261', CAST(x'22ff6122' AS TEXT), 3, 5)")
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	noCursor := noCursorFront(t, srv.URL)
	dump := func(u string) ([]string, int64) {
		s := storetest.Open(t, u, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
		var got []string
		var err error
		n := proxy.Count(func() {
			err = s.DumpAll(storetest.Ctx(t), nil, func(e store.Entry) error {
				exp := int64(-1)
				if e.ExpiresAt != nil {
					exp = *e.ExpiresAt
				}
				got = append(got, fmt.Sprintf("%x %q %d %d %v", e.Raw, e.Value, e.Ver, exp, e.KeyNull))
				return nil
			})
		})
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		return got, n
	}
	streamed, n := dump(proxy.URL)
	paged, _ := dump(noCursor)
	if n != 2 {
		t.Errorf("DumpAll through the proxy: %d requests, want 2", n)
	}
	if len(streamed) != 3002 || !strings.HasSuffix(streamed[0], "true") {
		t.Fatalf("streamed %d rows, first %q; want 3002, the NULL key first", len(streamed), streamed[0])
	}
	if strings.Join(streamed, "\n") != strings.Join(paged, "\n") {
		for i := range streamed {
			if streamed[i] != paged[i] {
				t.Errorf("row %d: streamed %s, paged %s", i, streamed[i], paged[i])
				break
			}
		}
	}
}

// noCursorFront is a server in front of target that has no cursor
// endpoint (it answers /v3/cursor with 404, as a server of Hrana 2
// would) and passes everything else on: the paged reads' path.
func noCursorFront(t testing.TB, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // Scan's read-ahead, cancelled at the end
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v3/cursor") {
			http.NotFound(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL
}
