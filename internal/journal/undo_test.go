package journal

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// rowsOf is every physical row of s, but for the stamps (an undo renews
// them).
func rowsOf(t *testing.T, s *store.Store) string {
	t.Helper()
	return storetest.RowsText(t, s, false)
}

// TestUndoWholeAction: the writes of one action (2,600 sets in three
// SetMany commits, as a load makes them, some over rows that were there)
// are one action; undo takes all of them back in commits of UndoChunk
// keys, checked on every key, as one action of its own; redo makes them
// again; undo once more takes them back again. Each step restores the
// rows exactly (values and expiries).
func TestUndoWholeAction(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		j := openIn(t, t.TempDir(), "file:whole.db", 0)
		for i := range 50 {
			k := codec.Key{codec.String("n"), codec.Number(float64(i))}
			if _, err := s.Set(ctx, k, []byte(fmt.Sprintf(`{"old":%d}`, i)), nil); err != nil {
				t.Fatal(err)
			}
		}
		before := rowsOf(t, s)
		s.SetRecorder(j)
		actx := store.WithWriteOp(ctx, "load")
		hour := time.Hour
		const n = 2600
		for lo := 0; lo < n; lo += 1000 {
			var sets []store.Mutation
			for i := lo; i < min(lo+1000, n); i++ {
				k := codec.Key{codec.String("n"), codec.Number(float64(i))}
				m := store.Mutation{Type: store.MutationSet, Key: k, Value: []byte(fmt.Sprintf(`{"new":%d,"pad":"%s"}`, i, strings.Repeat("p", i%100)))}
				if i%3 == 0 {
					m.ExpireIn = &hour
				}
				sets = append(sets, m)
			}
			if _, err := s.SetMany(actx, sets); err != nil {
				t.Fatal(err)
			}
		}
		loaded := rowsOf(t, s)
		h, _, err := j.History()
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Actions) != 1 || len(h.Actions[0].Entries) != 3 || len(h.Actions[0].Keys()) != n {
			t.Fatalf("%d actions; want one of 3 writes and %d keys", len(h.Actions), n)
		}
		p, err := j.PlanUndo(ctx, s, "")
		if err != nil || len(p.Ops) != n || len(p.Conflicts) != 0 {
			t.Fatalf("plan: %d ops, %d conflicts, %v", len(p.Ops), len(p.Conflicts), err)
		}
		res, err := j.Undo(ctx, s, p)
		if err != nil || !res.OK || res.Restored != n || res.Commits != 3 || res.Action == "" {
			t.Fatalf("undo: %+v %v", res, err)
		}
		if got := rowsOf(t, s); got != before {
			t.Fatal("the undo did not give the rows back")
		}
		h, _, _ = j.History()
		if len(h.Actions) != 2 || h.Actions[1].ID != res.Action || len(h.Actions[1].Entries) != 3 || !h.Undone(h.Actions[0]) {
			t.Fatalf("after the undo: %d actions", len(h.Actions))
		}
		if _, err := j.PlanUndo(ctx, s, ""); err == nil {
			t.Fatal("a second undo found something to undo")
		}
		p, err = j.PlanRedo(ctx, s, "")
		if err != nil || p.Action.ID != h.Actions[0].ID || p.Target.ID != res.Action {
			t.Fatalf("redo plan: %+v %v", p.Action.ID, err)
		}
		if res, err := j.Undo(ctx, s, p); err != nil || !res.OK {
			t.Fatalf("redo: %+v %v", res, err)
		}
		if got := rowsOf(t, s); got != loaded {
			t.Fatal("the redo did not make the load again")
		}
		p, err = j.PlanUndo(ctx, s, h.Actions[0].ID[:4])
		if err != nil {
			t.Fatal(err)
		}
		if res, err := j.Undo(ctx, s, p); err != nil || !res.OK {
			t.Fatalf("undo after the redo: %+v %v", res, err)
		}
		if got := rowsOf(t, s); got != before {
			t.Fatal("undo after the redo did not give the rows back")
		}
	})
}

// TestUndoAcrossLives: the journal's stamps come back in another life of
// the database (recreated, or copied back from an older file). An undo
// whose keys hold the stamps it left but other values is refused, naming
// the key; one where the store's seq is below the journal's newest stamp
// is refused before reading. Before, the undo put an old value over the
// new life's row.
func TestUndoAcrossLives(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		ctx := storetest.Ctx(t)
		j := openIn(t, t.TempDir(), "file:lives.db", 0)
		s.SetRecorder(j)
		flag := codec.Key{codec.String("cfg"), codec.String("flag")}
		for _, v := range []string{`"mine-yesterday"`, `"mine-2"`} {
			if _, err := s.Set(store.WithWriteOp(ctx, "set"), flag, []byte(v), nil); err != nil {
				t.Fatal(err)
			}
		}
		// The database starts again; the service writes twice.
		storetest.Exec(t, url, "DELETE FROM kv", "UPDATE kv_meta SET seq = 0")
		other := storetest.Open(t, url, store.Options{})
		if _, err := other.Set(ctx, flag, []byte(`"service-value-A"`), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Set(ctx, flag, []byte(`"service-value-B"`), nil); err != nil {
			t.Fatal(err)
		}
		p, err := j.PlanUndo(ctx, s, "")
		if err != nil || len(p.Conflicts) != 1 || !p.Conflicts[0].Other || !strings.Contains(p.Conflicts[0].Text(), "another life of the database") {
			t.Fatalf("plan: %+v %v; want the key refused as another life's", p.Conflicts, err)
		}
		if res, err := j.Undo(ctx, s, p); err != nil || res.OK || res.Restored != 0 {
			t.Fatalf("undo: %+v %v", res, err)
		}
		if e, _, _ := other.Get(ctx, flag); string(e.Value) != `"service-value-B"` {
			t.Fatalf("the flag is %s", e.Value)
		}
		// A copy back of an older file: seq below the journal's stamps.
		storetest.Exec(t, url, "DELETE FROM kv", "UPDATE kv_meta SET seq = 0")
		if _, err := other.Set(ctx, flag, []byte(`"restored"`), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := j.PlanUndo(ctx, s, ""); err == nil || !strings.Contains(err.Error(), "below stamp 2") {
			t.Fatalf("plan with seq below the journal's: %v", err)
		}
		// kvdeck writes in the new life: its first stamp is not above the
		// ones before, so the old actions are of an earlier life.
		if _, err := s.Set(store.WithWriteOp(ctx, "set"), codec.Key{codec.String("new")}, []byte(`1`), nil); err != nil {
			t.Fatal(err)
		}
		h, _, _ := j.History()
		if h.NewestLife != 1 || h.Actions[0].Life != 0 || h.Actions[2].Life != 1 {
			t.Fatalf("lives %d: %d %d", h.NewestLife, h.Actions[0].Life, h.Actions[2].Life)
		}
		if err := h.Undoable(h.Actions[1]); err == nil || !strings.Contains(err.Error(), "earlier life") {
			t.Fatalf("an action of an earlier life: %v", err)
		}
		if err := h.Undoable(h.Actions[2]); err != nil {
			t.Fatalf("the new life's action: %v", err)
		}
	})
}

// TestSweepUndoAcrossLives: a sweep issues no stamp; its journal bounds
// the database's life by the seq its windows read (here 4, above every
// swept row's stamp), so once the database starts again below it the
// sweep's undo is refused before reading, not put into the new life.
func TestSweepUndoAcrossLives(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		c := storetest.NewClock(storetest.T0)
		s := storetest.Open(t, url, store.Options{Clock: c.Now})
		ctx := storetest.Ctx(t)
		sec := time.Second
		for i := range 3 {
			if _, err := s.Set(ctx, codec.Key{codec.String("tmp"), codec.Number(float64(i))}, []byte(`1`), &sec); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Set(ctx, codec.Key{codec.String("keep")}, []byte(`1`), nil); err != nil {
			t.Fatal(err)
		}
		j := openIn(t, t.TempDir(), "file:sweeplives.db", 0)
		s.SetRecorder(j)
		c.Add(time.Hour)
		if res, err := s.Sweep(store.WithWriteOp(ctx, "sweep"), store.SweepOptions{}); err != nil || res.Swept != 3 {
			t.Fatalf("sweep: %+v %v", res, err)
		}
		storetest.Exec(t, url, "DELETE FROM kv", "UPDATE kv_meta SET seq = 3")
		if _, err := j.PlanUndo(ctx, s, ""); err == nil || !strings.Contains(err.Error(), "below stamp 4") {
			t.Fatalf("plan with seq below the one the sweep read: %v", err)
		}
	})
}

// TestUndoCompactJournal: an undo's intent names the rows it puts back by
// the write that recorded them, and a redo's outcome names the rows it
// found the same way: the sweep's values are in the file once, however
// often it is undone and redone; each step still restores them exactly.
func TestUndoCompactJournal(t *testing.T) {
	storetest.EachStore(t, []storetest.Backend{storetest.File()}, func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.Ctx(t)
		j := openIn(t, t.TempDir(), "file:compact.db", 0)
		marker := strings.Repeat("v", 50)
		sec := time.Second
		for i := range 30 {
			k := codec.Key{codec.String("tmp"), codec.Number(float64(i))}
			if _, err := s.Set(ctx, k, []byte(fmt.Sprintf(`"%s-%d"`, marker, i)), &sec); err != nil {
				t.Fatal(err)
			}
		}
		s.SetRecorder(j)
		before := rowsOf(t, s)
		c.Add(time.Hour)
		if _, err := s.Sweep(store.WithWriteOp(ctx, "sweep"), store.SweepOptions{Batch: 10}); err != nil {
			t.Fatal(err)
		}
		for i, redo := range []bool{false, true, false} {
			var p Plan
			var err error
			if redo {
				p, err = j.PlanRedo(ctx, s, "")
			} else {
				p, err = j.PlanUndo(ctx, s, "")
			}
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if res, err := j.Undo(ctx, s, p); err != nil || !res.OK || res.Restored != 30 {
				t.Fatalf("step %d: %+v %v", i, res, err)
			}
			want := before
			if redo {
				want = ""
			}
			if got := rowsOf(t, s); got != want {
				t.Fatalf("step %d: rows\n%s\nwant\n%s", i, got, want)
			}
		}
		lines, _, err := j.readLines()
		if err != nil {
			t.Fatal(err)
		}
		all := 0
		for _, l := range lines {
			all += strings.Count(string(l.raw), marker)
		}
		if all != 30 {
			t.Fatalf("the swept values are written %d times in the journal; want 30 (once each)", all)
		}
	})
}
