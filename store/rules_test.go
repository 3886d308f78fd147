package store_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

func TestGetSetDelete(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		if _, found, err := s.Get(storetest.Ctx(t), storetest.Key(t, `["a"]`)); err != nil || found {
			t.Fatalf("get absent: found=%v err=%v", found, err)
		}
		stamp := mustSet(t, s, `["a"]`, `{"b": 1, "a" : [1, 2.50]}`, nil)
		if stamp != "00000000000000000001" {
			t.Fatalf("first stamp = %s", stamp)
		}
		e, found, err := s.Get(storetest.Ctx(t), storetest.Key(t, `["a"]`))
		if err != nil || !found {
			t.Fatalf("get: found=%v err=%v", found, err)
		}
		if string(e.Value) != `{"b":1,"a":[1,2.5]}` {
			t.Fatalf("value stored as %s, want JSON.stringify form", e.Value)
		}
		if e.Versionstamp() != stamp || e.ExpiresAt != nil {
			t.Fatalf("entry %+v", e)
		}
		if err := s.Delete(storetest.Ctx(t), storetest.Key(t, `["a"]`)); err != nil {
			t.Fatal(err)
		}
		if _, found, _ := s.Get(storetest.Ctx(t), storetest.Key(t, `["a"]`)); found {
			t.Fatal("deleted key still found")
		}
		if seq, _ := s.Seq(storetest.Ctx(t)); seq != 1 {
			t.Fatalf("delete changed seq to %d", seq)
		}
	})
}

func TestListRules(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		for _, k := range []string{`["a"]`, `["a", 1]`, `["a", 2]`, `["a", 3]`, `["a", "x"]`, `["ab"]`, `["b"]`, `[]`} {
			mustSet(t, s, k, `1`, nil)
		}
		list := func(opts store.ListOptions) []string {
			t.Helper()
			p, err := s.List(storetest.Ctx(t), opts)
			if err != nil {
				t.Fatal(err)
			}
			return keysOf(p.Entries)
		}
		want := []string{`["a"]`, `["a", "x"]`, `["a", 1]`, `["a", 2]`, `["a", 3]`} // strings sort before numbers
		if got := list(store.ListOptions{Prefix: storetest.Key(t, `["a"]`)}); !reflect.DeepEqual(got, want) {
			t.Fatalf("prefix [a]: got %v want %v (the prefix-equal key is listed)", got, want)
		}
		if got := list(store.ListOptions{Prefix: storetest.Key(t, `["a"]`), Start: storetest.Key(t, `["a", 2]`), End: storetest.Key(t, `["a", 3]`)}); !reflect.DeepEqual(got, []string{`["a", 2]`}) {
			t.Fatalf("start inclusive, end exclusive: %v", got)
		}
		if got := list(store.ListOptions{Prefix: storetest.Key(t, `["a"]`), Reverse: true, Limit: 2}); !reflect.DeepEqual(got, []string{`["a", 3]`, `["a", 2]`}) {
			t.Fatalf("reverse limit 2: %v", got)
		}
		if got := list(store.ListOptions{}); len(got) != 8 || got[0] != `[]` {
			t.Fatalf("everything: %v", got)
		}
	})
}

func TestPagingForwardAndReverse(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		a := s.Atomic()
		var want []string
		for i := 0; i < 23; i++ {
			k := codec.Key{codec.String("p"), codec.Number(float64(i))}
			a.Set(k, []byte(`null`))
			want = append(want, codec.Format(k))
		}
		if _, err := a.Commit(storetest.Ctx(t)); err != nil {
			t.Fatal(err)
		}
		for _, reverse := range []bool{false, true} {
			var got []string
			opts := store.ListOptions{Prefix: storetest.Key(t, `["p"]`), Limit: 5, Reverse: reverse}
			pages := 0
			for {
				p, err := s.List(storetest.Ctx(t), opts)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				got = append(got, keysOf(p.Entries)...)
				if p.Cursor == "" {
					break
				}
				opts.Cursor = p.Cursor
			}
			exp := append([]string(nil), want...)
			if reverse {
				for i, j := 0, len(exp)-1; i < j; i, j = i+1, j-1 {
					exp[i], exp[j] = exp[j], exp[i]
				}
			}
			if !reflect.DeepEqual(got, exp) || pages != 5 {
				t.Fatalf("reverse=%v: %d pages, got %v", reverse, pages, got)
			}
		}
		var scanned []string
		if err := s.Scan(storetest.Ctx(t), store.ListOptions{Prefix: storetest.Key(t, `["p"]`), Limit: 7}, func(e store.Entry) error {
			scanned = append(scanned, codec.Format(e.Key))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(scanned, want[:7]) {
			t.Fatalf("scan with limit 7: %v", scanned)
		}
	})
}

func TestTTLBoundaryAndSweep(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, clock *storetest.Clock) {
		mustSet(t, s, `["tmp", "doa"]`, `1`, dur(0))
		mustSet(t, s, `["tmp", "ten"]`, `1`, dur(10*time.Millisecond))
		mustSet(t, s, `["keep"]`, `1`, nil)
		if _, found, _ := s.Get(storetest.Ctx(t), storetest.Key(t, `["tmp", "doa"]`)); found {
			t.Fatal("expireIn 0 must be dead at once (expires_at == now is dead)")
		}
		clock.Set(storetest.T0 + 9)
		if _, found, _ := s.Get(storetest.Ctx(t), storetest.Key(t, `["tmp", "ten"]`)); !found {
			t.Fatal("row dead before its expiry")
		}
		clock.Set(storetest.T0 + 10)
		if _, found, _ := s.Get(storetest.Ctx(t), storetest.Key(t, `["tmp", "ten"]`)); found {
			t.Fatal("row live at expires_at == now")
		}
		p, _ := s.List(storetest.Ctx(t), store.ListOptions{Prefix: storetest.Key(t, `["tmp"]`)})
		if len(p.Entries) != 0 {
			t.Fatalf("list shows expired rows: %v", keysOf(p.Entries))
		}
		p, _ = s.List(storetest.Ctx(t), store.ListOptions{Prefix: storetest.Key(t, `["tmp"]`), IncludeExpired: true})
		if len(p.Entries) != 2 {
			t.Fatalf("expired rows are still physically there: %v", keysOf(p.Entries))
		}
		dry, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{DryRun: true})
		if err != nil || dry.Swept != 2 {
			t.Fatalf("dry run: %+v %v", dry, err)
		}
		res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Batch: 1})
		if err != nil || res.Swept != 2 || res.Batches != 2 || res.Remaining != 0 {
			t.Fatalf("sweep: %+v %v", res, err)
		}
		st, err := s.Stats(storetest.Ctx(t), clock.Now())
		if err != nil || st.Rows != 1 || st.Seq != 3 {
			t.Fatalf("after sweep: %+v %v (sweeps never touch seq)", st, err)
		}
	})
}

func TestAtomicRules(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, clock *storetest.Clock) {
		// null check passes on an expired row
		mustSet(t, s, `["lock"]`, `"old"`, dur(0))
		res, err := s.Atomic().Check(storetest.Key(t, `["lock"]`), "").SetExpiring(storetest.Key(t, `["lock"]`), []byte(`"new"`), 45*time.Second).Commit(storetest.Ctx(t))
		if err != nil || !res.OK || res.Versionstamp != codec.FormatStamp(2) {
			t.Fatalf("null check on expired row: %+v %v", res, err)
		}
		// all sets in one commit share one stamp
		res, err = s.Atomic().Set(storetest.Key(t, `["m", 1]`), []byte(`1`)).Set(storetest.Key(t, `["m", 2]`), []byte(`2`)).Commit(storetest.Ctx(t))
		if err != nil || !res.OK {
			t.Fatal(res, err)
		}
		for _, k := range []string{`["m", 1]`, `["m", 2]`} {
			if e, _, _ := s.Get(storetest.Ctx(t), storetest.Key(t, k)); e.Versionstamp() != res.Versionstamp {
				t.Fatalf("%s has %s, commit stamp %s", k, e.Versionstamp(), res.Versionstamp)
			}
		}
		// a delete-only commit has no stamp and leaves seq alone
		before, _ := s.Seq(storetest.Ctx(t))
		res, err = s.Atomic().Delete(storetest.Key(t, `["m", 1]`)).Commit(storetest.Ctx(t))
		if err != nil || !res.OK || res.Versionstamp != "" {
			t.Fatalf("delete-only: %+v %v", res, err)
		}
		if after, _ := s.Seq(storetest.Ctx(t)); after != before {
			t.Fatalf("delete-only commit moved seq %d -> %d", before, after)
		}
		// a failed commit applies nothing and explains each check
		m2, _, _ := s.Get(storetest.Ctx(t), storetest.Key(t, `["m", 2]`))
		res, err = s.Atomic().
			Check(storetest.Key(t, `["newco"]`), "").
			Check(storetest.Key(t, `["m", 2]`), codec.FormatStamp(1)).
			Set(storetest.Key(t, `["newco"]`), []byte(`true`)).
			Delete(storetest.Key(t, `["m", 2]`)).
			Commit(storetest.Ctx(t))
		if err != nil || res.OK {
			t.Fatalf("stale check passed: %+v %v", res, err)
		}
		want := []store.CheckFailure{{Index: 1, Key: storetest.Key(t, `["m", 2]`), Expected: codec.FormatStamp(1), Actual: m2.Versionstamp()}}
		if !reflect.DeepEqual(res.Failed, want) {
			t.Fatalf("failures %+v, want %+v", res.Failed, want)
		}
		if _, found, _ := s.Get(storetest.Ctx(t), storetest.Key(t, `["newco"]`)); found {
			t.Fatal("failed commit applied a set")
		}
		if _, found, _ := s.Get(storetest.Ctx(t), storetest.Key(t, `["m", 2]`)); !found {
			t.Fatal("failed commit applied a delete")
		}
		if after, _ := s.Seq(storetest.Ctx(t)); after != before {
			t.Fatalf("failed commit moved seq to %d", after)
		}
	})
}

func TestStampNeverReissued(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, clock *storetest.Clock) {
		first := mustSet(t, s, `["k"]`, `1`, dur(time.Second))
		clock.Add(2 * time.Second)
		if res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{}); err != nil || res.Swept != 1 {
			t.Fatalf("sweep %+v %v", res, err)
		}
		second := mustSet(t, s, `["k"]`, `2`, nil)
		if second <= first {
			t.Fatalf("stamp reissued or went back: %s then %s", first, second)
		}
		res, err := s.Atomic().Check(storetest.Key(t, `["k"]`), first).Set(storetest.Key(t, `["k"]`), []byte(`3`)).Commit(storetest.Ctx(t))
		if err != nil || res.OK {
			t.Fatalf("a check on the stamp of the swept row passed: %+v %v", res, err)
		}
	})
}

func TestGetMany(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		mustSet(t, s, `["x"]`, `1`, nil)
		mustSet(t, s, `["z"]`, `3`, nil)
		got, err := s.GetMany(storetest.Ctx(t), []codec.Key{storetest.Key(t, `["z"]`), storetest.Key(t, `["y"]`), storetest.Key(t, `["x"]`)})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] == nil || string(got[0].Value) != "3" || got[1] != nil || got[2] == nil || string(got[2].Value) != "1" {
			t.Fatalf("GetMany = %v", got)
		}
	})
}

func TestChildren(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		a := s.Atomic()
		for _, k := range []string{`["u"]`, `["u", "a"]`, `["u", "a", 1]`, `["u", "a\u0000"]`, `["u", "b", 1]`, `["u", "b", 2]`, `["u", 42]`, `["u", 42n]`, `["v"]`} {
			a.Set(storetest.Key(t, k), []byte(`0`))
		}
		if _, err := a.Commit(storetest.Ctx(t)); err != nil {
			t.Fatal(err)
		}
		page, err := s.Children(storetest.Ctx(t), storetest.Key(t, `["u"]`), store.ChildrenOptions{Limit: 3, CountBound: 1})
		if err != nil {
			t.Fatal(err)
		}
		describe := func(cs []store.Child) string {
			var parts []string
			for _, c := range cs {
				parts = append(parts, fmt.Sprintf("%s:%d:%v:%v", c.Part, c.Count, c.Capped, c.IsKey))
			}
			return strings.Join(parts, " ")
		}
		if got := describe(page.Children); got != `"a":1:true:true "a\u0000":1:false:true "b":1:true:false` {
			t.Fatalf("page 1: %s", got)
		}
		page, err = s.Children(storetest.Ctx(t), storetest.Key(t, `["u"]`), store.ChildrenOptions{After: page.Next, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(page.Children); got != `42:1:false:true 42n:1:false:true` || page.Next != nil {
			t.Fatalf("page 2: %s next=%x", got, page.Next)
		}
		root, err := s.Children(storetest.Ctx(t), nil, store.ChildrenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(root.Children); got != `"u":8:false:true "v":1:false:true` {
			t.Fatalf("root: %s", got)
		}
	})
}

func TestRawRows(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, clock *storetest.Clock) {
		stamp := mustSet(t, s, `["x", 1]`, `1`, dur(0))
		raw := codec.MustEncode(storetest.Key(t, `["x", 1]`))
		e, found, err := s.GetRaw(storetest.Ctx(t), raw)
		if err != nil || !found || e.Versionstamp() != stamp || e.Live(clock.Now()) {
			t.Fatalf("GetRaw of an expired row: %+v %v %v", e, found, err)
		}
		page, err := s.Children(storetest.Ctx(t), storetest.Key(t, `["x"]`), store.ChildrenOptions{})
		if err != nil || len(page.Children) != 1 || page.Children[0].ExpiresAt == nil || *page.Children[0].ExpiresAt != storetest.T0 {
			t.Fatalf("children carry the leaf's expiry: %+v %v", page.Children, err)
		}
		if ok, err := s.DeleteRaw(storetest.Ctx(t), raw, e.Ver+1); err != nil || ok {
			t.Fatalf("DeleteRaw with a stale stamp: %v %v", ok, err)
		}
		if ok, err := s.DeleteRaw(storetest.Ctx(t), raw, e.Ver); err != nil || !ok {
			t.Fatalf("DeleteRaw: %v %v", ok, err)
		}
		if _, found, _ := s.GetRaw(storetest.Ctx(t), raw); found {
			t.Fatal("row still there")
		}
	})
}

// TestVersionSkipsTheCountWhileNothingChanged: on a file, Version answers
// from one pragma while no commit happened, and sees every kind of change:
// another process's store, this store's own pool, a delete without a stamp.
func TestVersionSkipsTheCountWhileNothingChanged(t *testing.T) {
	path := "file:" + filepath.Join(t.TempDir(), "kv.db")
	s := storetest.Open(t, path, store.Options{})
	other := storetest.Open(t, path, store.Options{})
	version := func() (store.Version, int64) {
		t.Helper()
		before := s.Counters().Statements
		v, err := s.Version(storetest.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		return v, s.Counters().Statements - before
	}
	if v, n := version(); v != (store.Version{}) || n != 2 {
		t.Fatalf("first: %+v in %d statements, want zeroes in 2", v, n)
	}
	if v, n := version(); v != (store.Version{}) || n != 1 {
		t.Fatalf("unchanged: %+v in %d statements, want 1 (the pragma)", v, n)
	}
	if _, err := other.Set(storetest.Ctx(t), storetest.Key(t, `["a"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	if v, _ := version(); v != (store.Version{Seq: 1, Rows: 1}) {
		t.Fatalf("after another store's set: %+v", v)
	}
	if _, err := s.Set(storetest.Ctx(t), storetest.Key(t, `["b"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	if v, _ := version(); v != (store.Version{Seq: 2, Rows: 2}) {
		t.Fatalf("after its own set: %+v", v)
	}
	if err := other.Delete(storetest.Ctx(t), storetest.Key(t, `["a"]`)); err != nil {
		t.Fatal(err)
	}
	if v, n := version(); v != (store.Version{Seq: 2, Rows: 1}) || n != 2 {
		t.Fatalf("after a delete: %+v in %d statements", v, n)
	}
}
