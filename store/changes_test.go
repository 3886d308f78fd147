package store_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// feed reads every page of the change feed after `after`, checking that
// pages chain, and returns the rows and the last page.
func feed(t *testing.T, s *store.Store, opts store.ChangesOptions) ([]store.Entry, store.ChangesPage) {
	t.Helper()
	var all []store.Entry
	for i := 0; ; i++ {
		p, err := s.Changes(storetest.Ctx(t), opts)
		if err != nil {
			t.Fatalf("changes after %d: %v", opts.After, err)
		}
		all = append(all, p.Entries...)
		if !p.More {
			return all, p
		}
		if i > 1000 {
			t.Fatal("the feed does not end")
		}
		opts.After, opts.AfterKey, opts.Recheck = p.Next, p.NextKey, nil
	}
}

// feedText is "key=value@ver" per row.
func feedText(entries []store.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		k := codec.Format(e.Key)
		if e.KeyErr != nil {
			k = fmt.Sprintf("raw:%x", e.Raw)
		}
		out[i] = fmt.Sprintf("%s=%s@%d", k, e.Value, e.Ver)
	}
	return out
}

func wantFeed(t *testing.T, what string, got []store.Entry, want ...string) {
	t.Helper()
	if g := feedText(got); !slices.Equal(g, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, g, want)
	}
}

// TestChanges: the feed returns the rows stamped after a point, in stamp
// order and then key order, each once as it is now; nothing when seq has
// not moved; deletions and expiries are found by rechecking.
func TestChanges(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.Ctx(t)
		mustSet(t, s, `["a", 1]`, `1`, nil)           // 1
		mustSet(t, s, `["b"]`, `2`, dur(time.Second)) // 2
		if _, err := s.Atomic().Set(storetest.Key(t, `["c", 2]`), []byte(`3`)).Set(storetest.Key(t, `["c", 1]`), []byte(`4`)).Commit(ctx); err != nil {
			t.Fatal(err)
		} // 3
		got, last := feed(t, s, store.ChangesOptions{})
		wantFeed(t, "from 0", got, `["a", 1]=1@1`, `["b"]=2@2`, `["c", 1]=4@3`, `["c", 2]=3@3`)
		// A file counts no rows (a count walks the table): Rows is -1.
		rows := func(n int64) int64 { return map[bool]int64{true: n, false: -1}[s.Info().Transport.Remote()] }
		if last.Next != 3 || last.NextKey != nil || last.Version != (store.Version{Seq: 3, Rows: rows(4)}) {
			t.Errorf("next %d %x, version %+v", last.Next, last.NextKey, last.Version)
		}
		got, _ = feed(t, s, store.ChangesOptions{After: 2})
		wantFeed(t, "after 2", got, `["c", 1]=4@3`, `["c", 2]=3@3`)

		// Nothing moved: an empty page at the same point.
		p, err := s.Changes(ctx, store.ChangesOptions{After: 3})
		if err != nil || len(p.Entries) != 0 || p.Next != 3 || p.More || p.Windows != 0 {
			t.Errorf("idle page %+v, %v", p, err)
		}

		// A rewritten key shows once, as it is now; a delete issues no
		// stamp; a recheck finds the deleted and the expired rows.
		mustSet(t, s, `["a", 1]`, `10`, nil) // 4
		mustSet(t, s, `["a", 1]`, `11`, nil) // 5
		if err := s.Delete(ctx, storetest.Key(t, `["c", 2]`)); err != nil {
			t.Fatal(err)
		}
		c.Add(2 * time.Second) // ["b"] expires
		raws := [][]byte{codec.MustEncode(storetest.Key(t, `["a", 1]`)), codec.MustEncode(storetest.Key(t, `["b"]`)), codec.MustEncode(storetest.Key(t, `["c", 2]`)), codec.MustEncode(storetest.Key(t, `["c", 1]`))}
		p, err = s.Changes(ctx, store.ChangesOptions{After: 3, Recheck: raws})
		if err != nil {
			t.Fatal(err)
		}
		wantFeed(t, "after the rewrite", p.Entries, `["a", 1]=11@5`)
		if p.Next != 5 || p.Version.Seq != 5 || p.Version.Rows != rows(3) {
			t.Errorf("next %d, version %+v", p.Next, p.Version)
		}
		var re []string
		for _, e := range p.Rechecked {
			if e == nil {
				re = append(re, "gone")
			} else {
				re = append(re, fmt.Sprintf("%s@%d", e.Value, e.Ver))
			}
		}
		if want := []string{"11@5", "gone", "gone", "4@3"}; !slices.Equal(re, want) {
			t.Errorf("rechecked %q, want %q", re, want)
		}
		many, err := s.GetRawMany(ctx, raws)
		if err != nil {
			t.Fatal(err)
		}
		for i := range raws {
			if (many[i] == nil) != (p.Rechecked[i] == nil) {
				t.Errorf("GetRawMany and Recheck differ at %d", i)
			}
		}
		// A recheck with nothing moved still answers.
		p, err = s.Changes(ctx, store.ChangesOptions{After: 5, Recheck: raws[:1]})
		if err != nil || len(p.Rechecked) != 1 || p.Rechecked[0] == nil || len(p.Entries) != 0 {
			t.Errorf("recheck while idle: %+v, %v", p, err)
		}

		// A prefix.
		got, _ = feed(t, s, store.ChangesOptions{Prefix: storetest.Key(t, `["c"]`)})
		wantFeed(t, "under [c]", got, `["c", 1]=4@3`)
		got, _ = feed(t, s, store.ChangesOptions{Prefixes: []codec.Key{storetest.Key(t, `["c"]`), storetest.Key(t, `["a"]`), storetest.Key(t, `["zz"]`)}})
		wantFeed(t, "under [c] or [a]", got, `["c", 1]=4@3`, `["a", 1]=11@5`)
	})
}

// TestChangesPaging: pages cut by Limit and MaxBytes, also inside one
// commit, chain without losing or repeating a row; windows of rowids
// smaller than the store give the same feed; an index on ver too.
func TestChangesPaging(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		var want []string
		// 12 single sets, then one commit of 9, then rewrites of early
		// keys (their rows move to later stamps, rowids stay).
		for i := 0; i < 12; i++ {
			mustSet(t, s, fmt.Sprintf(`["k", %d]`, i), fmt.Sprint(i), nil)
		}
		a := s.Atomic()
		for i := 20; i > 11; i-- {
			a.Set(storetest.Key(t, fmt.Sprintf(`["k", %d]`, i)), []byte(fmt.Sprint(i)))
		}
		if _, err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		mustSet(t, s, `["k", 3]`, `"x"`, nil)
		mustSet(t, s, `["k", 0]`, `"y"`, nil)
		for i := 0; i < 12; i++ {
			if i != 0 && i != 3 {
				want = append(want, fmt.Sprintf(`["k", %d]=%d@%d`, i, i, i+1))
			}
		}
		for i := 12; i <= 20; i++ {
			want = append(want, fmt.Sprintf(`["k", %d]=%d@13`, i, i))
		}
		want = append(want, `["k", 3]="x"@14`, `["k", 0]="y"@15`)

		check := func(name string, opts store.ChangesOptions, indexed bool) {
			t.Run(name, func(t *testing.T) {
				got, last := feed(t, s, opts)
				wantFeed(t, name, got, want...)
				if last.Next != 15 || last.Indexed != indexed {
					t.Errorf("next %d, indexed %v", last.Next, last.Indexed)
				}
			})
		}
		check("one page", store.ChangesOptions{}, false)
		check("pages of 4", store.ChangesOptions{Limit: 4}, false)
		check("pages of 1", store.ChangesOptions{Limit: 1}, false)
		check("pages of 300 bytes", store.ChangesOptions{MaxBytes: 300}, false)
		store.SetChangesWindow(s, 5)
		p, err := s.Changes(ctx, store.ChangesOptions{})
		if err != nil || p.Windows < 5 || p.Statements < 5 {
			t.Errorf("windows of 5 over 21 rows: %d windows, %d statements, %v", p.Windows, p.Statements, err)
		}
		check("windows of 5", store.ChangesOptions{}, false)
		check("windows of 5, pages of 3", store.ChangesOptions{Limit: 3}, false)
		store.SetChangesWindow(s, 1)
		check("windows of 1, pages of 2", store.ChangesOptions{Limit: 2}, false)
		store.SetChangesWindow(s, 0)

		if created, err := s.AddVerIndex(ctx); err != nil || !created {
			t.Fatalf("add index: %v, %v", created, err)
		}
		if created, err := s.AddVerIndex(ctx); err != nil || created {
			t.Fatalf("add the index again: %v, %v", created, err)
		}
		ix, err := s.VerIndexes(ctx)
		if err != nil || len(ix) != 1 || ix[0].Name != store.VerIndex || !ix[0].Ours || ix[0].Partial {
			t.Fatalf("indexes %+v, %v", ix, err)
		}
		check("indexed", store.ChangesOptions{}, true)
		check("indexed, pages of 4", store.ChangesOptions{Limit: 4}, true)
		p, err = s.Changes(ctx, store.ChangesOptions{After: 13})
		if err != nil || p.Statements != 1 || p.Windows != 0 {
			t.Errorf("an indexed page: %+v, %v", p, err)
		}
		if dropped, err := s.DropVerIndex(ctx); err != nil || !dropped {
			t.Fatalf("drop index: %v, %v", dropped, err)
		}
		if ix, err := s.VerIndexes(ctx); err != nil || len(ix) != 0 {
			t.Fatalf("indexes after the drop %+v, %v", ix, err)
		}
		check("after the drop", store.ChangesOptions{Limit: 4}, false)
	})
}

// TestChangesOddRows: undecodable keys, invalid JSON and odd expiries are
// in the feed like any row; a ver that is not a whole number has no place
// in stamp order and is left out (it would otherwise come back forever:
// SQLite orders TEXT after every number), and OddStamps lists such rows.
func TestChangesOddRows(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
		mustSet(t, s, `["a"]`, `1`, nil)
		storetest.Exec(t, url,
			"UPDATE kv_meta SET seq = 4",
			"INSERT INTO kv VALUES (X'ff01', '2', 2, NULL)",
			"INSERT INTO kv VALUES (X'0262616400', 'not json', 3, NULL)",
			fmt.Sprintf("INSERT INTO kv VALUES (X'026f646400027200', '4', 4, %d.5)", storetest.T0+1000),
			"INSERT INTO kv VALUES (X'0274657874766572', '5', 'seven', NULL)",
			"INSERT INTO kv VALUES (X'027265616c766572', '6', 2.5, NULL)",
		)
		got, last := feed(t, s, store.ChangesOptions{})
		wantFeed(t, "odd rows", got, `["a"]=1@1`, `raw:ff01=2@2`, `["bad"]=not json@3`, `["odd", "r"]=4@4`)
		if last.Next != 4 || got[3].Malformed == "" {
			t.Errorf("next %d, malformed %q", last.Next, got[3].Malformed)
		}
		if p, err := s.Changes(storetest.Ctx(t), store.ChangesOptions{After: 4}); err != nil || len(p.Entries) != 0 {
			t.Errorf("after the last stamp: %q, %v", feedText(p.Entries), err)
		}
		// They are not lost without a word: OddStamps names them, under a
		// prefix too, and caps the list, not the count.
		odd, n, err := s.OddStamps(storetest.Ctx(t), nil, 1)
		if err != nil || n != 2 || len(odd) != 1 || string(odd[0].Raw) != "\x02realver" || !strings.Contains(odd[0].Malformed, "ver") {
			t.Errorf("odd stamps: %d %+v %v", n, odd, err)
		}
		if odd, n, err = s.OddStamps(storetest.Ctx(t), []codec.Key{storetest.Key(t, `["a"]`), storetest.Key(t, `["odd"]`)}, 10); err != nil || n != 0 || len(odd) != 0 {
			t.Errorf("odd stamps under two prefixes: %d %+v %v", n, odd, err)
		}
	})
}

// TestChangesRequests: over HTTP a refresh of the feed is one request,
// whether seq moved or not and with a recheck of what was read; an idle
// one reads no row.
func TestChangesRequests(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	s := storetest.Open(t, proxy.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	ctx := storetest.Ctx(t)
	for i := 0; i < 50; i++ {
		mustSet(t, s, fmt.Sprintf(`["r", %d]`, i), `1`, nil)
	}
	raws := [][]byte{codec.MustEncode(storetest.Key(t, `["r", 1]`)), codec.MustEncode(storetest.Key(t, `["r", 2]`))}
	measure := func(what string, opts store.ChangesOptions, rows int) store.ChangesPage {
		t.Helper()
		var p store.ChangesPage
		var err error
		read := s.Counters().RowsRead
		if n := proxy.Count(func() { p, err = s.Changes(ctx, opts) }); err != nil || n != 1 {
			t.Errorf("%s: %d requests, %v", what, n, err)
		}
		if got := s.Counters().RowsRead - read; got != int64(rows) {
			t.Errorf("%s read %d rows, want %d", what, got, rows)
		}
		return p
	}
	p := measure("first page", store.ChangesOptions{}, 50+1)
	measure("idle", store.ChangesOptions{After: p.Next}, 1)
	measure("idle with a recheck", store.ChangesOptions{After: p.Next, Recheck: raws}, 1+2)
	mustSet(t, s, `["r", 7]`, `2`, nil)
	s.Delete(ctx, storetest.Key(t, `["r", 1]`))
	p = measure("moved, with a recheck", store.ChangesOptions{After: p.Next, Recheck: raws}, 1+1+1)
	if len(p.Entries) != 1 || p.Rechecked[0] != nil || p.Rechecked[1] == nil || p.Version.Rows != 49 {
		t.Errorf("moved page %+v", p)
	}
	if _, err := s.AddVerIndex(ctx); err != nil {
		t.Fatal(err)
	}
	s.Changes(ctx, store.ChangesOptions{}) // learns of the index
	mustSet(t, s, `["r", 8]`, `2`, nil)
	measure("indexed", store.ChangesOptions{After: p.Next}, 1+1)
}

// TestVerIndexBesideReference: the reference's schema statements, writes
// and sweep run unchanged on a store with the index on ver, and a
// read-only store refuses to add it.
func TestVerIndexBesideReference(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		c := storetest.NewClock(storetest.T0)
		s := storetest.Open(t, url, store.Options{Clock: c.Now})
		ctx := storetest.Ctx(t)
		if _, err := s.AddVerIndex(ctx); err != nil {
			t.Fatal(err)
		}
		k := codec.MustEncode(storetest.Key(t, `["ref", 1]`))
		// The reference's statements, as it sends them.
		storetest.Exec(t, url,
			`CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER)`,
			`CREATE TABLE IF NOT EXISTS kv_meta (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, ok INTEGER NOT NULL)`,
			`INSERT OR IGNORE INTO kv_meta (id, seq, ok) VALUES (0, 0, 0)`,
			`UPDATE kv_meta SET seq = seq + 1, ok = 1 WHERE id = 0`,
			fmt.Sprintf(`INSERT INTO kv (k, v, ver, expires_at) SELECT X'%x', '{"holder":"h"}', seq, %d FROM kv_meta WHERE id = 0 AND ok = 1 ON CONFLICT (k) DO UPDATE SET v = excluded.v, ver = excluded.ver, expires_at = excluded.expires_at`, k, storetest.T0+1000),
		)
		mustSet(t, s, `["ref", 2]`, `2`, nil)
		got, _ := feed(t, s, store.ChangesOptions{})
		wantFeed(t, "beside the reference", got, `["ref", 1]={"holder":"h"}@1`, `["ref", 2]=2@2`)
		storetest.Exec(t, url, fmt.Sprintf(`DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= %d`, storetest.T0+5000))
		if e, found, err := s.GetRaw(ctx, k); err != nil || found {
			t.Errorf("the reference's sweep left %+v, %v", e, err)
		}
		ro, err := store.Open(ctx, url, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if _, err := ro.DropVerIndex(ctx); err == nil || !bytes.Contains([]byte(err.Error()), []byte("read-only")) {
			t.Errorf("a read-only drop: %v", err)
		}
	})
}

// TestChangesWithoutRowid: a kv made WITHOUT ROWID (not the reference's
// schema) has no rowids to walk: the feed says so and names the index,
// and with the index it reads through it.
func TestChangesWithoutRowid(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		storetest.Exec(t, url,
			`CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID`,
			`CREATE TABLE kv_meta (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, ok INTEGER NOT NULL)`,
			`INSERT INTO kv_meta (id, seq, ok) VALUES (0, 0, 0)`)
		s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
		mustSet(t, s, `["a"]`, `1`, nil)
		if _, err := s.Changes(storetest.Ctx(t), store.ChangesOptions{}); err == nil || !strings.Contains(err.Error(), "kvdeck index add") {
			t.Fatalf("without an index: %v", err)
		}
		if _, err := s.AddVerIndex(storetest.Ctx(t)); err != nil {
			t.Fatal(err)
		}
		got, last := feed(t, s, store.ChangesOptions{})
		wantFeed(t, "through the index", got, `["a"]=1@1`)
		if !last.Indexed {
			t.Error("not read through the index")
		}
	})
}

// TestChangesReadNonUTF8Values: the change feed and its recheck read a
// TEXT value that is not UTF-8 (another program's) as its bytes on every
// transport; over sqld one such row failed every page of the feed, since
// the feed scans the whole table.
func TestChangesReadNonUTF8Values(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Create: true})
		storetest.Exec(t, url, `INSERT INTO kv VALUES (x'026100', CAST(x'22ff22' AS TEXT), 1, NULL)`, `UPDATE kv_meta SET seq = 1 WHERE id = 0`)
		p, err := s.Changes(storetest.Ctx(t), store.ChangesOptions{Recheck: [][]byte{{0x02, 0x61, 0x00}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entries) != 1 || string(p.Entries[0].Value) != "\"\xff\"" {
			t.Fatalf("entries %+v; want the row with its exact bytes", p.Entries)
		}
		if len(p.Rechecked) != 1 || p.Rechecked[0] == nil || string(p.Rechecked[0].Value) != "\"\xff\"" {
			t.Errorf("recheck %+v; want the row with its exact bytes", p.Rechecked)
		}
	})
}
