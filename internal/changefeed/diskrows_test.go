package changefeed

import (
	"testing"

	"kvdeck/codec"
	"kvdeck/store"
)

// newTestDisk is a DiskRows closed with the test, keeping values up to
// 4 KiB each and 32 MiB in all (a watch's bounds).
func newTestDisk(t testing.TB) *DiskRows {
	t.Helper()
	r, err := NewDiskRows(4<<10, 32<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// TestDiskRows: the rows a watch saw, on disk, read back as they were
// (an unkept value as nil, an expiry, a malformed note), counted, gone
// when deleted, their expiries in key order, and rechecked in turn in key
// order, round and round.
func TestDiskRows(t *testing.T) {
	r := newTestDisk(t)
	raw := func(s string) []byte { return codec.MustEncode(codec.Key{codec.String(s)}) }
	exp := int64(500)
	r.put(store.Entry{Raw: raw("b"), Value: []byte(`"x"`), Ver: 2, ExpiresAt: &exp, Malformed: "ver odd"}, 1<<10, 1<<20)
	r.put(store.Entry{Raw: raw("a"), Value: []byte(`"big"`), Ver: 3}, 2, 1<<20)
	r.put(store.Entry{Raw: raw("c"), Value: []byte(`1`), Ver: 4, ExpiresAt: &exp}, 1<<10, 1<<20)
	r.put(store.Entry{Raw: raw("c"), Value: []byte(`12`), Ver: 5, ExpiresAt: &exp}, 1<<10, 1<<20)
	if r.n != 3 || r.err != nil {
		t.Fatalf("%d rows, %v", r.n, r.err)
	}
	e, unkept, kept, had := r.get(string(raw("b")))
	if !had || unkept || kept != 3 || string(e.Value) != `"x"` || e.Ver != 2 || *e.ExpiresAt != 500 || e.Malformed != "ver odd" || codec.Format(e.Key) != `["b"]` {
		t.Errorf("b: %+v unkept %v kept %d had %v", e, unkept, kept, had)
	}
	if e, unkept, _, _ := r.get(string(raw("a"))); !unkept || e.Value != nil || e.Ver != 3 {
		t.Errorf("a: %+v unkept %v", e, unkept)
	}
	if got := r.expired(600); len(got) != 2 || got[0] != string(raw("b")) || got[1] != string(raw("c")) {
		t.Errorf("expired: %q", got)
	}
	var turns []string
	for range 4 {
		for _, k := range r.batch(2) {
			turns = append(turns, string(k[1:2]))
		}
	}
	if got := string([]byte(joinStrings(turns))); got != "abcabcab" {
		t.Errorf("recheck turns %q, want abcabcab", got)
	}
	r.del(string(raw("b")))
	r.del(string(raw("b")))
	if _, _, _, had := r.get(string(raw("b"))); had || r.n != 2 {
		t.Errorf("after delete: had %v, %d rows", had, r.n)
	}
}

func joinStrings(s []string) string {
	out := ""
	for _, x := range s {
		out += x
	}
	return out
}
