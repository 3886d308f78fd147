package store_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// oddKeys are raw keys under ["u"] that a foreign or buggy writer could
// leave: each must be one undecodable child (or the decodable first part
// of a key whose rest is garbage), never hide its neighbours.
func oddKeys() [][]byte {
	u := codec.MustEncode(codec.Key{codec.String("u")})
	nan := []byte{0x03, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1} // a NaN (sign bit set: positive)
	nan[1] |= 0x80
	var out [][]byte
	for _, tail := range [][]byte{
		{0xff},                   // unknown tag
		{0x06, 0x01},             // unknown tag
		{0x03, 0x01, 0x02},       // truncated number
		{0x04},                   // bigint without payload
		{0x05},                   // boolean without payload
		{0x05, 0x07},             // boolean byte other than 0/1
		{0x02, 0x61},             // string without terminator
		{0x02, 0x61, 0x00, 0xff}, // escape then end: no terminator
		{0x02, 0xc3, 0x28, 0x00}, // invalid UTF-8 string
		{0x02, 0xc3, 0x28, 0x00, 0x02, 0x62, 0x00}, // ... with a child below
		nan,                                        // NaN number
		{0x02, 0x62, 0x00, 0x07},                   // part "b", then garbage
		{0x02, 0x62, 0x00, 0x00, 0x01},             // part "b", then a 0x00 that is no tag
		{0x02, 0x64, 0x00, 0x06},                   // part "d", then garbage
		{0x02, 0x64, 0x00, 0x06, 0x01},             // part "d", then garbage
		{0x01, 0x00, 0xff, 0x00, 0xff, 0x00},       // bytes 00 00
		{0x01, 0x00, 0xff, 0x00, 0x02, 0x63, 0x00}, // bytes 00, then "c"
	} {
		out = append(out, append(append([]byte{}, u...), tail...))
	}
	return out
}

// oracleChildren computes Children's answer from every physical row.
func oracleChildren(rows [][]byte, p []byte, hi []byte, bound int) []string {
	var out []string
	var cur []byte // the current child's range end
	var last *[]string
	var count int
	flush := func() {
		if last != nil {
			c := count
			capped := c > bound
			if capped {
				c = bound
			}
			(*last)[len(*last)-1] += fmt.Sprintf(" %d %v", c, capped)
		}
	}
	start := append(append([]byte{}, p...), 0x00)
	for _, k := range rows {
		if bytes.Compare(k, start) < 0 || (hi != nil && bytes.Compare(k, hi) >= 0) {
			continue
		}
		if cur != nil && bytes.Compare(k, cur) < 0 {
			count++
			continue
		}
		flush()
		part, n, err := codec.DecodePart(k[len(p):])
		if err != nil {
			out = append(out, fmt.Sprintf("undecodable %x", k))
			cur = append(append([]byte{}, k...), 0x00)
		} else {
			out = append(out, fmt.Sprintf("%s key=%v", part, len(k) == len(p)+n))
			cur = codec.PrefixEnd(k[:len(p)+n])
		}
		last, count = &out, 1
	}
	flush()
	return out
}

func describeChild(c store.Child) string {
	if c.Undecodable {
		return fmt.Sprintf("undecodable %x %d %v", c.Raw, c.Count, c.Capped)
	}
	return fmt.Sprintf("%s key=%v %d %v", c.Part, c.IsKey, c.Count, c.Capped)
}

// TestChildrenSkipScanMatchesEveryRow: the one-statement skip-scan finds
// the same children, counts and bounds as a walk over every row, across
// page sizes, on every transport, with odd rows among well-formed ones.
func TestChildrenSkipScanMatchesEveryRow(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
		a := s.Atomic()
		for _, k := range []string{`["u"]`, `["u", "a"]`, `["u", "a", 1]`, `["u", "a\u0000"]`, `["u", "a\u0000", true]`,
			`["u", "b", 1]`, `["u", "b", 2]`, `["u", "b", 3]`, `["u", 42]`, `["u", -0]`, `["u", 0]`, `["u", 42n]`, `["u", -7n, "x"]`,
			`["u", false]`, `["u", true, 1]`, `["u", true, 2]`, `["u", b"00ff"]`, `["u", b"", 1]`, `["u", "\u00e9"]`, `["v"]`, `["v", 1]`, `[]`} {
			a.Set(storetest.Key(t, k), []byte(`0`))
		}
		if _, err := a.Commit(storetest.Ctx(t)); err != nil {
			t.Fatal(err)
		}
		db := storetest.RawDB(t, url)
		for _, k := range append(oddKeys(), []byte{0xff, 0x01}) {
			if _, err := db.ExecContext(storetest.Ctx(t), "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, '0', 1, NULL)", k); err != nil {
				t.Fatal(err)
			}
		}
		var rows [][]byte
		if err := s.Dump(storetest.Ctx(t), nil, func(e store.Entry) error { rows = append(rows, e.Raw); return nil }); err != nil {
			t.Fatal(err)
		}
		for _, prefix := range []codec.Key{nil, {codec.String("u")}, {codec.String("u"), codec.String("b")}, {codec.String("w")}} {
			p := codec.MustEncode(prefix)
			var hi []byte
			if len(prefix) > 0 {
				hi = codec.PrefixEnd(p)
			}
			want := strings.Join(oracleChildren(rows, p, hi, 2), "\n")
			for _, limit := range []int{1, 2, 3, 7, 100} {
				var got []string
				var after []byte
				for pages := 0; ; pages++ {
					if pages > 100 {
						t.Fatalf("%v limit %d: no end after 100 pages", prefix, limit)
					}
					page, err := s.Children(storetest.Ctx(t), prefix, store.ChildrenOptions{After: after, Limit: limit, CountBound: 2})
					if err != nil {
						t.Fatal(err)
					}
					if len(page.Children) > limit {
						t.Fatalf("%v limit %d: a page of %d", prefix, limit, len(page.Children))
					}
					for _, c := range page.Children {
						got = append(got, describeChild(c))
					}
					if page.Next == nil {
						break
					}
					after = page.Next
				}
				if g := strings.Join(got, "\n"); g != want {
					t.Errorf("%v limit %d:\n got %s\nwant %s", prefix, limit, g, want)
				}
			}
		}
	})
}

// TestChildrenOneRequest: a level page costs one request over HTTP
// whatever the number of children, and says whether more follow without
// another read.
func TestChildrenOneRequest(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 2*time.Millisecond)
	s := storetest.Open(t, proxy.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	a := s.Atomic()
	for i := 0; i < 300; i++ {
		a.Set(codec.Key{codec.String("n"), codec.Number(float64(i)), codec.Bool(i%2 == 0)}, []byte(`0`))
	}
	if _, err := a.Commit(storetest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1, 40, 299, 300, 1000} {
		var page store.ChildPage
		var err error
		n := proxy.Count(func() {
			page, err = s.Children(storetest.Ctx(t), storetest.Key(t, `["n"]`), store.ChildrenOptions{Limit: limit})
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("a page of %d children took %d requests, want 1", limit, n)
		}
		if wantMore := limit < 300; (page.Next != nil) != wantMore || len(page.Children) != min(limit, 300) {
			t.Errorf("limit %d: %d children, next=%x", limit, len(page.Children), page.Next)
		}
	}
}
