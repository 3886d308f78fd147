package store_test

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// rollbackMix seeds a new rollback-journal file: rows ["bulk", i]
// (SeedRollbackJournal), then through kvdeck (which keeps the journal
// mode) a tree of ["tree", a, b] rows, a third of them expired at T0+1s
// and some holding "needle", and a run of expired rows ["gone", i]. It
// returns the file's path and a store on it at T0+2s.
func rollbackMix(t *testing.T, bulk int) (string, *store.Store) {
	t.Helper()
	path := storetest.NewRollbackJournal(t, bulk)
	clock := storetest.NewClock(storetest.T0)
	s := storetest.Open(t, "file:"+path, store.Options{Clock: clock.Now})
	ctx := storetest.Ctx(t)
	var muts []store.Mutation
	at := storetest.T0 + 1000
	for a := range 12 {
		for b := range 1 + a*3 {
			v := fmt.Sprintf(`{"a":%d,"b":%d}`, a, b)
			if (a+b)%5 == 0 {
				v = fmt.Sprintf(`{"a":%d,"b":%d,"tag":"needle"}`, a, b)
			}
			m := store.Mutation{Type: store.MutationSet, Key: storetest.Key(t, fmt.Sprintf(`["tree", %d, %d]`, a, b)), Value: []byte(v)}
			if (a*7+b)%3 == 0 {
				m.ExpiresAt = &at
			}
			muts = append(muts, m)
		}
		muts = append(muts, store.Mutation{Type: store.MutationSet, Key: storetest.Key(t, fmt.Sprintf(`["tree", %d]`, a)), Value: []byte(`"node"`)})
	}
	for i := range 200 {
		muts = append(muts, store.Mutation{Type: store.MutationSet, Key: storetest.Key(t, fmt.Sprintf(`["gone", %d]`, i)), Value: []byte(`1`), ExpiresAt: &at})
	}
	if _, err := s.SetMany(ctx, muts); err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := storetest.RawDB(t, "file:"+path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "delete" {
		t.Fatalf("journal mode %q, %v", mode, err)
	}
	clock.Set(storetest.T0 + 2000)
	return path, s
}

// withLocks opens the file at path at rollbackMix's time (T0+2s), reading
// with SQLite's locks in one statement: the answer the windows of the
// lock-free reads must agree with.
func withLocks(t *testing.T, path string) *store.Store {
	t.Helper()
	s := storetest.Open(t, "file:"+path, store.Options{Clock: func() int64 { return storetest.T0 + 2000 }})
	store.SetLockFreeOff(s, true)
	return s
}

// TestListWindowsAgreeWithOneStatement: on a rollback-journal file a
// filtered listing reads its range in windows (listwindow.go); every page
// (live rows only, expired ones, a value's bytes, reversed, bounded,
// sized in bytes, continued by cursor) is the one the single statement
// answers, whatever the window.
func TestListWindowsAgreeWithOneStatement(t *testing.T) {
	path, s := rollbackMix(t, 500)
	ctx := storetest.Ctx(t)
	plain := withLocks(t, path)
	k := func(text string) codec.Key { return storetest.Key(t, text) }
	cases := map[string]store.ListOptions{
		"live tree":          {Prefix: k(`["tree"]`), Limit: 7},
		"live tree reversed": {Prefix: k(`["tree"]`), Limit: 5, Reverse: true},
		"gone, all expired":  {Prefix: k(`["gone"]`)},
		"everything live":    {Limit: 100},
		"contains":           {ValueContains: []byte("needle"), Limit: 3},
		"contains reversed":  {ValueContains: []byte("needle"), Limit: 4, Reverse: true},
		"contains expired":   {ValueContains: []byte("needle"), IncludeExpired: true, Limit: 6},
		"between":            {Start: k(`["tree", 3]`), End: k(`["tree", 9]`), Limit: 9},
		"sized":              {Prefix: k(`["tree"]`), MaxBytes: 700, Limit: 50},
		"sized contains":     {ValueContains: []byte(`"a":1`), MaxBytes: 500},
	}
	for _, window := range []int{1, 2, 5, 64, 2048} {
		store.SetWindowRows(s, window)
		for name, opts := range cases {
			var got, want []string
			for _, side := range []struct {
				s   *store.Store
				out *[]string
			}{{s, &got}, {plain, &want}} {
				o := opts
				for page := 0; ; page++ {
					p, err := side.s.List(ctx, o)
					if err != nil {
						t.Fatalf("%s, window %d: %v", name, window, err)
					}
					var keys []string
					for _, e := range p.Entries {
						keys = append(keys, fmt.Sprintf("%x", e.Raw))
					}
					*side.out = append(*side.out, fmt.Sprintf("page %d: %s | %s", page, strings.Join(keys, " "), p.Cursor))
					if p.Cursor == "" || page > 400 {
						break
					}
					o.Cursor = p.Cursor
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, window %d: the windows listed\n%s\nthe statement\n%s", name, window, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	if n := s.LockedReads(); n != 0 {
		t.Errorf("%d reads with locks", n)
	}
}

// TestWindowedScanReadsEachRowOnce: a scan of a rollback-journal file
// (live rows only: its pages read in windows) examines each row about
// once, whatever the full window: a window examines no more than its
// page still needs. A full window for every page of DefaultPageSize rows
// examined each row four times.
func TestWindowedScanReadsEachRowOnce(t *testing.T) {
	const bulk = 3000
	_, s := rollbackMix(t, bulk)
	ctx := storetest.Ctx(t)
	before := s.Counters().RowsRead
	n := 0
	if err := s.Scan(ctx, store.ListOptions{Prefix: storetest.Key(t, `["bulk"]`)}, func(store.Entry) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	examined := s.Counters().RowsRead - before
	pages := int64(bulk/store.DefaultPageSize + 1)
	if n != bulk || examined > int64(bulk)+pages {
		t.Errorf("listed %d of %d rows, examining %d (at most %d)", n, bulk, examined, int64(bulk)+pages)
	}
	if c := s.LockFreeCounts(); c.Reads == 0 || s.LockedReads() != 0 {
		t.Errorf("lock-free reads %+v, %d with locks", c, s.LockedReads())
	}
}

// TestChildrenCountsApartAgree: on a rollback-journal file Children
// counts each child apart, in windows, and CountChildren walks a level in
// windows; the pages, counts, caps and level sizes are those of the one
// statement.
func TestChildrenCountsApartAgree(t *testing.T) {
	path, s := rollbackMix(t, 300)
	ctx := storetest.Ctx(t)
	plain := withLocks(t, path)
	describe := func(s *store.Store, prefix codec.Key, opts store.ChildrenOptions) string {
		var b strings.Builder
		for page := 0; page < 100; page++ {
			p, err := s.Children(ctx, prefix, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Children {
				fmt.Fprintf(&b, "%x:%d:%v:%v:%v ", c.Raw, c.Count, c.Capped, c.IsKey, c.Undecodable)
			}
			b.WriteString("| ")
			if p.Next == nil {
				break
			}
			opts.After = p.Next
		}
		return b.String()
	}
	for _, window := range []int{1, 3, 4096} {
		store.SetWindowRows(s, window)
		for _, prefix := range []string{`[]`, `["tree"]`, `["tree", 7]`, `["bulk"]`, `["none"]`} {
			for _, opts := range []store.ChildrenOptions{{Limit: 4, CountBound: 9}, {Limit: 100}, {Limit: 2, CountBound: 1}} {
				p := storetest.Key(t, prefix)
				if got, want := describe(s, p, opts), describe(plain, p, opts); got != want {
					t.Errorf("children of %s %+v, window %d:\n%s\nthe statement:\n%s", prefix, opts, window, got, want)
				}
			}
			for _, bound := range []int{1, 5, 11, 12, 13, 299, 300, 301, 10000} {
				p := storetest.Key(t, prefix)
				n, capped, err := s.CountChildren(ctx, p, bound)
				wn, wcapped, werr := plain.CountChildren(ctx, p, bound)
				if err != nil || werr != nil || n != wn || capped != wcapped {
					t.Errorf("level %s bound %d, window %d: %d %v %v; the statement %d %v %v", prefix, bound, window, n, capped, err, wn, wcapped, werr)
				}
			}
		}
	}
	if n := s.LockedReads(); n != 0 {
		t.Errorf("%d reads with locks", n)
	}
}

// TestEveryReadBesideReferenceWriter: on a rollback-journal file, a
// reference-shaped writer (no busy timeout) committing every 10 ms (300
// ms under -race) beside kvdeck's reads of every kind, over and over: the
// open's schema check, gets, listings (a sparse one: every row of
// ["gone"] expired), a dump, children and a level's count, the finder,
// a value search, the index list. No commit may fail. Read with SQLite's
// locks (before: every read but the census's and the feed's), they
// failed the commits that met them.
func TestEveryReadBesideReferenceWriter(t *testing.T) {
	bulk, period := 20_000, 10*time.Millisecond
	if raceOn {
		bulk, period = 2_000, 300*time.Millisecond
	}
	path, s := rollbackMix(t, bulk)
	s.Close()
	ctx := storetest.CtxTimeout(t, 5*time.Minute)
	w := storetest.StartRefWriter(t, path, period, storetest.RefMix(bulk))
	k := func(text string) codec.Key { return storetest.Key(t, text) }
	rounds, locked := 0, int64(0)
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end) || rounds < 2; rounds++ {
		s, err := store.Open(ctx, "file:"+path, store.Options{ReadOnly: rounds%2 == 1})
		if err != nil {
			t.Fatal(err)
		}
		steps := []func() error{
			func() error { _, _, err := s.Get(ctx, k(`["bulk", 7n]`)); return err },
			func() error {
				_, err := s.GetMany(ctx, []codec.Key{k(`["tree", 1, 1]`), k(`["bulk", 9n]`)})
				return err
			},
			func() error { _, err := s.List(ctx, store.ListOptions{Prefix: k(`["gone"]`)}); return err },
			func() error { _, err := s.List(ctx, store.ListOptions{Prefix: k(`["bulk"]`), Limit: 300}); return err },
			func() error { return s.Dump(ctx, k(`["tree"]`), func(store.Entry) error { return nil }) },
			func() error { _, err := s.Children(ctx, nil, store.ChildrenOptions{}); return err },
			func() error { _, _, err := s.CountChildren(ctx, k(`["bulk"]`), 0); return err },
			func() error { _, err := s.FindKeys(ctx, "tre", nil, 50); return err },
			func() error {
				return s.Scan(ctx, store.ListOptions{ValueContains: []byte("needle"), Limit: 20}, func(store.Entry) error { return nil })
			},
			func() error { _, err := s.VerIndexes(ctx); return err },
			func() error { _, err := s.Version(ctx); return err },
		}
		for i, step := range steps {
			if err := step(); err != nil {
				t.Fatalf("round %d, step %d: %v", rounds, i, err)
			}
		}
		locked += s.LockedReads()
		s.Close()
	}
	commits, lost := w.Stop()
	t.Logf("%d rounds of every read beside %d commits, %d lost; %d reads with locks", rounds, commits, len(lost), locked)
	if len(lost) > 0 {
		t.Errorf("%d of %d commits lost beside the reads: %v", len(lost), commits, lost[0])
	}
	if locked > 0 {
		t.Errorf("%d reads with locks", locked)
	}
}

// TestLockedReadIsSaidOnce: where a rollback-journal file cannot be read
// without locks (here a journal kvdeck takes as hot, always), the store
// reads it with them, and says so once, before the first: to
// Options.OnLockedRead and in LockedReadNote, naming the file and why.
func TestLockedReadIsSaidOnce(t *testing.T) {
	path := storetest.NewHotJournal(t, 100)
	var said []string
	ctx := storetest.Ctx(t)
	s, err := store.Open(ctx, "file:"+path, store.Options{OnLockedRead: func(text string) { said = append(said, text) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	store.SetLockFreePatience(s, -1)
	if len(said) != 1 {
		t.Fatalf("the open's schema check said %d notes, want 1 (it reads with locks)", len(said))
	}
	for range 3 {
		if _, found, err := s.Get(ctx, storetest.Key(t, `["bulk", 5n]`)); err != nil || !found {
			t.Fatalf("get: %v %v", found, err)
		}
	}
	if len(said) != 1 || s.LockedReadNote() != said[0] {
		t.Errorf("said %q; the note %q: want one note, kept", said, s.LockedReadNote())
	}
	for _, want := range []string{path, "rollback-journal file", "SQLite's locks", "written during every read", "busy timeout"} {
		if !strings.Contains(said[0], want) {
			t.Errorf("the note %q does not say %q", said[0], want)
		}
	}
	if n := s.LockedReads(); n < 4 {
		t.Errorf("%d reads with locks: want the open's and 3 gets", n)
	}
	if _, err := os.Stat(path + "-journal"); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix([]byte(said[0]), []byte("file:")) {
		t.Errorf("the note does not start with the store: %q", said[0])
	}
}
