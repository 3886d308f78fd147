package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// Rows other programs wrote that break a naive reader: a TEXT value that
// is not UTF-8, a NULL key, a NULL value. Each read
// shows such a row or leaves it out as documented; none fails.

// keyHex is the encoding of a key text, as an SQL blob literal's digits.
func keyHex(t *testing.T, k string) string {
	t.Helper()
	return fmt.Sprintf("%x", codec.MustEncode(storetest.Key(t, k)))
}

// insertRow writes the row of key text k with the SQL cells (v, ver,
// expires_at) at url as another program would, past kvdeck's checks.
func insertRow(t *testing.T, url, k, cells string) {
	t.Helper()
	storetest.Exec(t, url, fmt.Sprintf(`INSERT INTO kv VALUES (x'%s', %s)`, keyHex(t, k), cells))
}

// openAtT0 opens a new store of b on a clock fixed at T0; it returns the
// store's URL and the store.
func openAtT0(t *testing.T, b storetest.Backend) (string, *store.Store) {
	t.Helper()
	url := b.URL(t)
	return url, storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
}

// TestInvalidUTF8TextIsRead: a TEXT value whose bytes are not UTF-8 reads
// as its exact bytes through Get, GetRaw, GetMany, List, Scan, Dump and
// DumpPrefixes on every transport. Over sqld every one of them failed
// before with "invalid utf-8 sequence" (the server cannot put the cell in
// its JSON answer), for the whole range; a file read them.
func TestInvalidUTF8TextIsRead(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url, s := openAtT0(t, b)
		mustSet(t, s, `["a", "1"]`, `"plain"`, nil)
		mustSet(t, s, `["a", "3"]`, `"é"`, nil)
		insertRow(t, url, `["a", "2"]`, `CAST(x'22ff6122' AS TEXT), 7, NULL`)
		want := []byte("\"\xffa\"")
		ctx := storetest.Ctx(t)
		k := storetest.Key(t, `["a", "2"]`)
		e, found, err := s.Get(ctx, k)
		if err != nil || !found || !bytes.Equal(e.Value, want) || e.Ver != 7 {
			t.Fatalf("Get: %q ver %d found %v err %v, want %q", e.Value, e.Ver, found, err, want)
		}
		if e, _, err := s.GetRaw(ctx, codec.MustEncode(k)); err != nil || !bytes.Equal(e.Value, want) {
			t.Errorf("GetRaw: %q %v", e.Value, err)
		}
		if es, err := s.GetMany(ctx, []codec.Key{k}); err != nil || es[0] == nil || !bytes.Equal(es[0].Value, want) {
			t.Errorf("GetMany: %v %v", es, err)
		}
		p, err := s.List(ctx, store.ListOptions{Prefix: storetest.Key(t, `["a"]`)})
		if err != nil || len(p.Entries) != 3 || !bytes.Equal(p.Entries[1].Value, want) || string(p.Entries[2].Value) != `"é"` {
			t.Fatalf("List: %v %v", p.Entries, err)
		}
		var values [][]byte
		err = s.Dump(ctx, nil, func(e store.Entry) error { values = append(values, e.Value); return nil })
		if err != nil || len(values) != 3 || !bytes.Equal(values[1], want) || string(values[0]) != `"plain"` {
			t.Errorf("Dump: %q %v", values, err)
		}
		n := 0
		err = s.DumpPrefixes(ctx, []codec.Key{storetest.Key(t, `["a"]`)}, func(e store.Entry) error { n++; return nil })
		if err != nil || n != 3 {
			t.Errorf("DumpPrefixes: %d rows, %v", n, err)
		}
		// The row is still TEXT: kvdeck read it, it changed nothing.
		var typ string
		if err := storetest.RawDB(t, url).QueryRowContext(ctx, "SELECT typeof(v) FROM kv WHERE k = ?", codec.MustEncode(k)).Scan(&typ); err != nil || typ != "text" {
			t.Errorf("typeof(v) = %q %v", typ, err)
		}
	})
}

// nullSchema is a kv another program created without NOT NULL: k and v
// can hold NULL (k can in the reference's schema too: SQLite lets a
// rowid table's PRIMARY KEY hold NULLs, and they are not unique).
const nullSchema = `CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT, ver INTEGER, expires_at INTEGER)`

// nullStore is a store whose kv holds, beside ["a", "1"] and ["z"] set
// by kvdeck, three rows with a NULL key (one expired) and ["n"] with a
// NULL value.
func nullStore(t *testing.T, b storetest.Backend) *store.Store {
	t.Helper()
	url := b.URL(t)
	storetest.Exec(t, url, nullSchema)
	s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	mustSet(t, s, `["a", "1"]`, `1`, nil)
	mustSet(t, s, `["z"]`, `2`, nil)
	storetest.Exec(t, url,
		`INSERT INTO kv VALUES (NULL, '"k1"', 5, NULL)`,
		fmt.Sprintf(`INSERT INTO kv VALUES (NULL, '"k2"', 6, %d)`, storetest.T0-1000),
		`INSERT INTO kv VALUES (NULL, NULL, 7, NULL)`,
		fmt.Sprintf(`INSERT INTO kv VALUES (x'%s', NULL, 8, NULL)`, keyHex(t, `["n"]`)),
	)
	return s
}

// TestNullRowsAreDumped: DumpAll lists every physical row, the NULL-key ones
// first (as SQLite orders them) with KeyNull and ErrNullKey, in pages that
// neither loop nor stop at them, and the NULL value with ValueNull; Dump
// (a key range, what a sweep reads) and List (live decoded rows, Browse)
// leave the NULL keys out and page past them. Before: no read saw the
// NULL-key rows, and over sqld a sized page dropped the NULL value.
func TestNullRowsAreDumped(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		s := nullStore(t, b)
		ctx := storetest.Ctx(t)
		for _, page := range []int{0, 1, 2} {
			restore := store.SetKeylessPage(s, page)
			var got []string
			err := s.DumpAll(ctx, nil, func(e store.Entry) error {
				switch {
				case e.KeyNull:
					if e.Raw != nil || !errors.Is(e.KeyErr, store.ErrNullKey) || e.Decodable() {
						t.Errorf("NULL key row: raw %x err %v", e.Raw, e.KeyErr)
					}
					got = append(got, fmt.Sprintf("NULL=%s null:%v", e.Value, e.ValueNull))
				default:
					got = append(got, fmt.Sprintf("%s=%s null:%v", codec.Format(e.Key), e.Value, e.ValueNull))
				}
				return nil
			})
			restore()
			want := fmt.Sprint([]string{`NULL="k1" null:false`, `NULL="k2" null:false`, `NULL= null:true`,
				`["a", "1"]=1 null:false`, `["n"]= null:true`, `["z"]=2 null:false`})
			if err != nil || fmt.Sprint(got) != want {
				t.Errorf("Dump in pages of %d NULL keys: %v (%v), want %v", page, got, err, want)
			}
		}
		n := 0
		if err := s.Dump(ctx, nil, func(e store.Entry) error {
			if e.KeyNull {
				t.Errorf("Dump (a sweep's listing) read a NULL key")
			}
			n++
			return nil
		}); err != nil || n != 3 {
			t.Errorf("Dump read %d rows (%v), want the 3 with a key", n, err)
		}
		var under []string
		if err := s.DumpAll(ctx, codec.Key{codec.String("a")}, func(e store.Entry) error {
			under = append(under, codec.Format(e.Key))
			return nil
		}); err != nil || fmt.Sprint(under) != `[["a", "1"]]` {
			t.Errorf("Dump under a prefix: %v %v", under, err)
		}
		var listed []string
		for cursor := ""; ; {
			p, err := s.List(ctx, store.ListOptions{Limit: 1, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entries {
				listed = append(listed, codec.Format(e.Key))
			}
			if cursor = p.Cursor; cursor == "" || len(listed) > 10 {
				break
			}
		}
		if fmt.Sprint(listed) != `[["a", "1"] ["n"] ["z"]]` {
			t.Errorf("List in pages of 1: %v", listed)
		}
		p, err := s.List(ctx, store.ListOptions{Reverse: true, Limit: 2})
		if err != nil || len(p.Entries) != 2 || p.Cursor == "" {
			t.Fatalf("List reverse: %v %v", p, err)
		}
		if p, err = s.List(ctx, store.ListOptions{Reverse: true, Limit: 2, Cursor: p.Cursor}); err != nil || len(p.Entries) != 1 || p.Cursor != "" {
			t.Errorf("List reverse, second page: %v %v", p, err)
		}
		// Browse's root level: the children of the empty prefix, one a
		// page, from the first key on.
		var children []string
		for after := []byte(nil); ; {
			p, err := s.Children(ctx, nil, store.ChildrenOptions{After: after, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Children {
				children = append(children, c.Part.String())
			}
			if after = p.Next; after == nil || len(children) > 10 {
				break
			}
		}
		if fmt.Sprint(children) != `["a" "n" "z"]` {
			t.Errorf("Children of the root in pages of 1: %v", children)
		}
		e, found, err := s.Get(ctx, codec.Key{codec.String("n")})
		if err != nil || !found || !e.ValueNull || e.ValueValid() {
			t.Errorf("Get of a NULL value: %+v %v %v", e, found, err)
		}
	})
}

// TestCensusCountsNullRows: Stats and Census count every physical row: a
// NULL value as an invalid value (NullValues), a NULL key as undecodable
// (NullKeys), live or expired like any row. Before: a NULL value failed
// the census of the whole store (sum of no bytes scanned into an int64:
// "converting NULL to int64 is unsupported"), and NULL keys were not
// counted.
func TestCensusCountsNullRows(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		s := nullStore(t, b)
		for _, window := range []int{0, 1, 2} {
			for check, want := range map[bool]string{
				true:  "rows 6 live 5 expired 1 undecodable 3 (null keys 3) invalid 2 (null values 2)",
				false: "rows 6 live 5 expired 1 undecodable 3 (null keys 3) invalid 0 (null values 0)", // values unchecked
			} {
				store.SetCensusWindow(s, window)
				st, err := s.StatsWith(storetest.Ctx(t), store.CensusOptions{Now: storetest.T0, Check: check})
				store.SetCensusWindow(s, 0)
				if err != nil {
					t.Fatalf("window %d: %v", window, err)
				}
				got := fmt.Sprintf("rows %d live %d expired %d undecodable %d (null keys %d) invalid %d (null values %d)",
					st.Rows, st.Live, st.Expired, st.Undecodable, st.NullKeys, st.InvalidValues, st.NullValues)
				if got != want {
					t.Errorf("window %d, check %v: %s, want %s", window, check, got, want)
				}
			}
			st, err := s.Stats(storetest.Ctx(t), storetest.T0)
			if err != nil {
				t.Fatal(err)
			}
			last := st.ByPrefix[len(st.ByPrefix)-1]
			if !last.Undecodable || last.Rows != 3 || last.Expired != 1 {
				t.Errorf("window %d: the undecodable group is %+v", window, last)
			}
		}
		st, err := s.Census(storetest.Ctx(t), store.CensusOptions{Prefix: codec.Key{codec.String("n")}, Check: true})
		if err != nil || st.Rows != 1 || st.NullKeys != 0 || st.NullValues != 1 || st.InvalidValues != 1 {
			t.Errorf("census under [\"n\"]: %+v %v", st, err)
		}
	})
}

// TestInvalidUTF8VerAndExpiry: a ver or expires_at that another program
// left as TEXT whose bytes are not UTF-8 reads as a malformed row naming
// the TEXT (as on a file) through Get, GetRaw, List and Dump on every
// transport. Over sqld every read of the range failed before with
// "invalid utf-8 sequence": the server cannot put the cell in its JSON
// answer, as with a TEXT value (TestInvalidUTF8TextIsRead).
func TestInvalidUTF8VerAndExpiry(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url, s := openAtT0(t, b)
		mustSet(t, s, `["a", "1"]`, `1`, nil)
		mustSet(t, s, `["a", "3"]`, `3`, nil)
		insertRow(t, url, `["a", "2"]`, `'2', CAST(x'ff39' AS TEXT), CAST(x'fe' AS TEXT)`)
		const want = `ver is TEXT "\xff9"; expires_at is TEXT "\xfe" (never expires: SQLite orders it after every number)`
		ctx := storetest.Ctx(t)
		k := storetest.Key(t, `["a", "2"]`)
		e, found, err := s.Get(ctx, k)
		if err != nil || !found || e.Malformed != want || e.Ver != 0 || e.ExpiresAt != nil {
			t.Fatalf("Get: %+v found %v err %v, want malformed %q", e, found, err, want)
		}
		if e, _, err := s.GetRaw(ctx, codec.MustEncode(k)); err != nil || e.Malformed != want {
			t.Errorf("GetRaw: %q %v", e.Malformed, err)
		}
		p, err := s.List(ctx, store.ListOptions{Prefix: storetest.Key(t, `["a"]`)})
		if err != nil || len(p.Entries) != 3 || p.Entries[1].Malformed != want || p.Entries[2].Ver == 0 {
			t.Fatalf("List: %+v %v", p.Entries, err)
		}
		n := 0
		err = s.Dump(ctx, nil, func(e store.Entry) error {
			if e.Malformed != "" && e.Malformed != want {
				t.Errorf("Dump: %q", e.Malformed)
			}
			n++
			return nil
		})
		if err != nil || n != 3 {
			t.Errorf("Dump: %d rows, %v", n, err)
		}
	})
}

// TestInvalidUTF8ExpiryInChildren: a child whose first row has a non-UTF-8
// TEXT expires_at is listed (as live: such a cell never expires) on every
// transport; over sqld the level failed before.
func TestInvalidUTF8ExpiryInChildren(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url, s := openAtT0(t, b)
		mustSet(t, s, `["a", "1"]`, `1`, nil)
		insertRow(t, url, `["b"]`, `'2', 9, CAST(x'fe' AS TEXT)`)
		p, err := s.Children(storetest.Ctx(t), nil, store.ChildrenOptions{})
		if err != nil || len(p.Children) != 2 {
			t.Fatalf("Children: %+v %v", p, err)
		}
	})
}
