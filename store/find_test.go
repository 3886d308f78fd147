package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

func foundText(found []store.FoundKey) []string {
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = codec.Format(f.Key)
	}
	return out
}

// TestFindKeys: the finder matches a needle inside string and bytes parts
// of live keys (a NUL in the needle too), never numbers, expired rows or
// bytes that only look alike across parts; it pages in windows (here of 2
// keys) and stops at max, on a file and over sqld.
func TestFindKeys(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		store.SetFindFileRows(s, 2)
		store.SetRemotePage(s, 2, 1<<20)
		for _, k := range []string{`["users","alice"]`, `["users","bob"]`, `["orders","alice-1",3]`, `["n",42]`, `["zz","Alice"]`, `["m","malice"]`} {
			mustSet(t, s, k, `1`, nil)
		}
		mustSet(t, s, `["old","alice"]`, `1`, dur(time.Minute))
		for _, k := range []codec.Key{
			{codec.Bytes([]byte("xalicex"))},
			{codec.String("nul\x00alice")},
		} {
			if _, err := s.Set(storetest.Ctx(t), k, []byte(`1`), nil); err != nil {
				t.Fatal(err)
			}
		}
		c.Add(2 * time.Minute) // ["old","alice"] expires
		pages := 0
		got, err := s.FindAll(storetest.Ctx(t), "alice", 0, func(p store.FindPage) bool { pages++; return true })
		if err != nil {
			t.Fatal(err)
		}
		want := []string{`[b"78616c69636578"]`, `["m", "malice"]`, `["nul\u0000alice"]`, `["orders", "alice-1", 3]`, `["users", "alice"]`}
		if !slices.Equal(foundText(got), want) {
			t.Errorf("found %q, want %q", foundText(got), want)
		}
		if pages < 4 {
			t.Errorf("%d pages over 10 keys in windows of 2, want at least 4", pages)
		}
		got, err = s.FindAll(storetest.Ctx(t), "\x00ali", 0, nil)
		if err != nil || !slices.Equal(foundText(got), []string{`["nul\u0000alice"]`}) {
			t.Errorf("a NUL in the needle: %q, %v", foundText(got), err)
		}
		got, err = s.FindAll(storetest.Ctx(t), "42", 0, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("a number part matched: %q, %v", foundText(got), err)
		}
		// max: the page ends at the last match kept, the next starts after it.
		got, err = s.FindAll(storetest.Ctx(t), "alice", 2, nil)
		if err != nil || !slices.Equal(foundText(got), want[:2]) {
			t.Errorf("max 2: %q, %v", foundText(got), err)
		}
		p, err := s.FindKeys(storetest.Ctx(t), "alice", got[1].Raw, 1)
		if err != nil {
			t.Fatal(err)
		}
		for p.Next != nil && len(p.Matches) == 0 {
			if p, err = s.FindKeys(storetest.Ctx(t), "alice", p.Next, 1); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(foundText(p.Matches), want[2:3]) {
			t.Errorf("after the second match: %q, want %q", foundText(p.Matches), want[2:3])
		}
		if _, err := s.FindKeys(storetest.Ctx(t), "", nil, 0); err == nil {
			t.Error("an empty needle was accepted")
		}
	})
}

// TestFindBudget: over HTTP behind the latency proxy, a find over 3000
// keys is one request with the default page, and with pages of 1000 keys
// three (the last page says no more follow: no empty read after it); a
// find that reaches the bound of 200 stops there.
func TestFindBudget(t *testing.T) {
	srv := sqldtest.Start(t)
	s0 := storetest.Open(t, srv.URL, store.Options{})
	a := s0.Atomic()
	for i := range 3000 {
		a.Set(codec.Key{codec.String("bench"), codec.String(fmt.Sprintf("item-%04d", i))}, []byte(`1`))
	}
	if _, err := a.Commit(storetest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	proxy := sqldtest.StartProxy(t, srv.URL, time.Millisecond)
	s := storetest.Open(t, proxy.URL, store.Options{})
	for _, tc := range []struct {
		rows int
		want int64
	}{{0, 1}, {1000, 3}} {
		if tc.rows > 0 {
			store.SetRemotePage(s, tc.rows, 4<<20)
		}
		var got []store.FoundKey
		var err error
		n := proxy.Count(func() { got, err = s.FindAll(storetest.Ctx(t), "item-1", 0, nil) })
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 200 || n > tc.want {
			t.Errorf("pages of %d: %d matches in %d requests, want 200 (the bound) in at most %d", tc.rows, len(got), n, tc.want)
		}
		got = nil
		n = proxy.Count(func() { got, err = s.FindAll(storetest.Ctx(t), "item-29", 0, nil) })
		if err != nil || len(got) != 100 {
			t.Fatalf("pages of %d: %d matches of item-29, %v", tc.rows, len(got), err)
		}
		t.Logf("pages of %d rows: %d request(s) for a scan of 3000 keys", tc.rows, n)
		if n > tc.want {
			t.Errorf("pages of %d rows: %d requests, want at most %d", tc.rows, n, tc.want)
		}
	}
}

// BenchmarkFindKeys: a find that matches one key in 50,000 (every page
// read, nearly nothing sent back) against the baseline of a Scan of the
// same keys; report the ratio of the two ns/op.
func BenchmarkFindKeys(b *testing.B) {
	s := storetest.Open(b, "file:"+b.TempDir()+"/find.db", store.Options{})
	const n = 50000
	for i := 0; i < n; i += 5000 {
		a := s.Atomic()
		for j := i; j < i+5000; j++ {
			a.Set(codec.Key{codec.String("users"), codec.String(fmt.Sprintf("user-%06d", j)), codec.Number(float64(j))}, []byte(`{"a":1}`))
		}
		if _, err := a.Commit(storetest.Ctx(b)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("find", func(b *testing.B) {
		for range b.N {
			got, err := s.FindAll(storetest.Ctx(b), "user-031337", 0, nil)
			if err != nil || len(got) != 1 {
				b.Fatal(len(got), err)
			}
		}
	})
	b.Run("scan-baseline", func(b *testing.B) {
		for range b.N {
			seen := 0
			if err := s.Scan(storetest.Ctx(b), store.ListOptions{}, func(store.Entry) error { seen++; return nil }); err != nil || seen != n {
				b.Fatal(seen, err)
			}
		}
	})
}
