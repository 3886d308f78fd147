package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestJournalDeletes: Delete and DeleteRaw are journaled with the row
// their DELETE removed (expired or not; none when there was none, or when
// DeleteRaw's stamp no longer matches).
func TestJournalDeletes(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		c := storetest.NewClock(storetest.T0)
		s := storetest.Open(t, url, store.Options{Clock: c.Now})
		ctx := storetest.Ctx(t)
		live := stampVer(t, mustSet(t, s, `["live"]`, `"l"`, nil))
		dead := stampVer(t, mustSet(t, s, `["dead"]`, `"d"`, dur(time.Millisecond)))
		c.Add(time.Second)
		storetest.Exec(t, url, `INSERT INTO kv (k, v, ver, expires_at) VALUES (x'ff01', 'not json', 3, NULL)`)
		r := record(t, s)
		for _, tc := range []struct {
			key  string
			want []store.RawRow
		}{
			{`["live"]`, []store.RawRow{{Key: enc(t, `["live"]`), Value: []byte(`"l"`), Ver: live}}},
			{`["dead"]`, []store.RawRow{{Key: enc(t, `["dead"]`), Value: []byte(`"d"`), Ver: dead, ExpiresAt: i64(storetest.T0 + 1)}}},
			{`["absent"]`, nil},
		} {
			if err := s.Delete(store.WithWriteOp(ctx, "delete"), storetest.Key(t, tc.key)); err != nil {
				t.Fatal(err)
			}
			w, out := r.only(t)
			if w.Kind != "delete" || w.Op != "delete" || len(w.Keys) != 1 || !bytes.Equal(w.Keys[0], enc(t, tc.key)) ||
				len(w.Mutations) != 1 || w.Mutations[0].Type != store.MutationDelete {
				t.Errorf("delete %s journaled as %+v", tc.key, w)
			}
			if out.Outcome != store.OutcomeApplied || out.Stamp != "" {
				t.Errorf("delete %s: %+v", tc.key, out)
			}
			sameRows(t, "delete "+tc.key, out.Before, tc.want)
		}
		for _, ver := range []int64{4, 3} {
			deleted, err := s.DeleteRaw(ctx, []byte{0xff, 0x01}, ver)
			if err != nil || deleted != (ver == 3) {
				t.Fatalf("DeleteRaw at ver %d: %v %v", ver, deleted, err)
			}
			w, out := r.only(t)
			if w.Kind != "delete-raw" || !slices.EqualFunc(w.Keys, [][]byte{{0xff, 0x01}}, bytes.Equal) || out.Outcome != store.OutcomeApplied {
				t.Errorf("DeleteRaw at ver %d: %+v %+v", ver, w, out)
			}
			var want []store.RawRow
			if ver == 3 {
				want = []store.RawRow{{Key: []byte{0xff, 0x01}, Value: []byte(`not json`), Ver: 3}}
			}
			sameRows(t, fmt.Sprint("DeleteRaw at ver ", ver), out.Before, want)
		}
	})
}

// TestJournalSetMany: a SetMany of more keys than one before-image
// statement names is journaled with exactly the rows it replaced (expired
// ones included), each key once.
func TestJournalSetMany(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.Ctx(t)
		key := func(i int) codec.Key { return codec.Key{codec.String("m"), codec.Number(float64(i))} }
		var old []store.Mutation
		for i := 0; i < 1200; i += 3 {
			m := store.Mutation{Type: store.MutationSet, Key: key(i), Value: []byte(fmt.Sprint(i))}
			if i%2 == 0 {
				m.ExpireIn = dur(time.Millisecond)
			}
			old = append(old, m)
		}
		res0, err := s.SetMany(ctx, old)
		if err != nil {
			t.Fatal(err)
		}
		c.Add(time.Second)
		var want []store.RawRow
		for _, m := range old {
			k, _ := codec.Encode(m.Key)
			row := store.RawRow{Key: k, Value: m.Value, Ver: stampVer(t, res0.Versionstamp)}
			if m.ExpireIn != nil {
				row.ExpiresAt = i64(storetest.T0 + 1)
			}
			want = append(want, row)
		}
		r := record(t, s)
		sets := make([]store.Mutation, 0, 1201)
		for i := 0; i < 1200; i++ {
			sets = append(sets, store.Mutation{Type: store.MutationSet, Key: key(i), Value: []byte(`"new"`)})
		}
		sets = append(sets, store.Mutation{Type: store.MutationSet, Key: key(0), Value: []byte(`"newest"`)})
		res, err := s.SetMany(ctx, sets)
		if err != nil {
			t.Fatal(err)
		}
		w, out := r.only(t)
		if w.Kind != "set-many" || len(w.Keys) != 1200 || len(w.Mutations) != 1201 {
			t.Errorf("journaled %s with %d keys, %d mutations", w.Kind, len(w.Keys), len(w.Mutations))
		}
		if out.Outcome != store.OutcomeApplied || out.Stamp != res.Versionstamp {
			t.Errorf("journaled result %+v", out)
		}
		sameRows(t, "set many", out.Before, want)
	})
}

// TestJournalSweep: each sweep batch is one journaled write (Kind
// "sweep") whose before-images are the rows it deleted, as the sweep's
// window read them before the delete; a live row is in none.
func TestJournalSweep(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.Ctx(t)
		var want []store.RawRow
		for i := 0; i < 10; i++ {
			k := fmt.Sprintf(`["s", %d]`, i)
			ver := stampVer(t, mustSet(t, s, k, fmt.Sprint(i), dur(time.Duration(i+1)*time.Millisecond)))
			want = append(want, store.RawRow{Key: enc(t, k), Value: []byte(fmt.Sprint(i)), Ver: ver, ExpiresAt: i64(storetest.T0 + int64(i) + 1)})
		}
		mustSet(t, s, `["s", 4.5]`, `"live"`, nil)
		mustSet(t, s, `["s", 5.5]`, `"later"`, dur(time.Hour))
		c.Add(time.Second)
		r := record(t, s)
		res, err := s.Sweep(store.WithWriteOp(ctx, "sweep"), store.SweepOptions{Batch: 4, Pause: -1})
		if err != nil || res.Swept != 10 {
			t.Fatalf("sweep: %+v %v", res, err)
		}
		ws, outs := r.take(t)
		if len(ws) != res.Batches || len(ws) < 3 {
			t.Fatalf("%d writes journaled for %d batches", len(ws), res.Batches)
		}
		var got []store.RawRow
		for i, w := range ws {
			if w.Kind != "sweep" || w.Op != "sweep" || outs[i].Outcome != store.OutcomeApplied || len(w.Mutations) != 0 {
				t.Errorf("batch %d: %+v %+v", i, w, outs[i])
			}
			for _, row := range outs[i].Before {
				if !slices.ContainsFunc(w.Keys, func(k []byte) bool { return bytes.Equal(k, row.Key) }) {
					t.Errorf("batch %d deleted %x, not among its keys", i, row.Key)
				}
			}
			got = append(got, outs[i].Before...)
		}
		sameRows(t, "sweep", got, want)
	})
}

// TestJournalCostsOneRequest: with a Recorder attached every write is one
// request more than without (over HTTP two): its before-images are read
// before it is sent, so that the journal holds them on the disk before
// the commit, and reading them inside the commit's request would put
// them there only after it. A Restore whose rows the caller read (an
// undo's check, RestoreOp.Found) costs none more: its images are known.
func TestJournalCostsOneRequest(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	for _, u := range []string{proxy.URL, proxy.WSURL} {
		s := storetest.Open(t, u, store.Options{})
		ctx := storetest.Ctx(t)
		k := storetest.Key(t, `["rt"]`)
		restore := func(found bool) func() error { return restoreMany(t, s, found) }
		many := make([]store.Mutation, 600)
		for i := range many {
			many[i] = store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("many"), codec.Number(float64(i))}, Value: []byte(`1`)}
		}
		// Each write's prep reads what it needs (not counted) and returns
		// the write to count.
		writes := []struct {
			name string
			prep func() func() error
		}{
			{"set", func() func() error {
				return func() error { _, err := s.Set(ctx, k, []byte(`1`), nil); return err }
			}},
			{"check+set+delete", func() func() error {
				e, _, _ := s.Get(ctx, k)
				return func() error {
					_, err := s.Atomic().Check(k, e.Versionstamp()).Set(k, []byte(`2`)).Delete(storetest.Key(t, `["x"]`)).Commit(ctx)
					return err
				}
			}},
			{"set many (600)", func() func() error {
				return func() error { _, err := s.SetMany(ctx, many); return err }
			}},
			{"set many (2500, its images read by one statement)", func() func() error {
				more := make([]store.Mutation, 2500)
				for i := range more {
					more[i] = store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("more"), codec.Number(float64(i % 1300))}, Value: []byte(`1`)}
				}
				return func() error { _, err := s.SetMany(ctx, more); return err }
			}},
			{"restore (600)", func() func() error { return restore(false) }},
			{"restore of rows read (600)", func() func() error { return restore(true) }},
			{"delete", func() func() error { return func() error { return s.Delete(ctx, k) } }},
		}
		// A first write over WebSocket dials (a hello more): not measured.
		if _, err := s.Set(ctx, k, []byte(`0`), nil); err != nil {
			t.Fatal(err)
		}
		counts := map[bool][]int64{}
		for _, journaled := range []bool{false, true} {
			s.SetRecorder(nil)
			if journaled {
				record(t, s)
			}
			for _, w := range writes {
				run := w.prep()
				var err error
				n := proxy.Count(func() { err = run() })
				if err != nil {
					t.Fatalf("%s: %v", w.name, err)
				}
				counts[journaled] = append(counts[journaled], n)
			}
		}
		for i, w := range writes {
			more := int64(1)
			if w.name == "restore of rows read (600)" {
				more = 0
			}
			if counts[true][i] != counts[false][i]+more || (u == proxy.URL && counts[true][i] != 1+more) {
				t.Errorf("%s over %s: %d requests journaled, %d not (want %d more; over HTTP %d)", w.name, u, counts[true][i], counts[false][i], more, 1+more)
			}
		}
	}
}

// restoreMany returns a Restore of every row under ["many"] (read now,
// not counted) to the value 2; found: with the rows read as Found.
func restoreMany(t *testing.T, s *store.Store, found bool) func() error {
	t.Helper()
	ctx := storetest.Ctx(t)
	var ops []store.RestoreOp
	err := s.Dump(ctx, codec.Key{codec.String("many")}, func(e store.Entry) error {
		op := store.RestoreOp{Key: e.Raw, ExpectVer: e.Ver, Put: &store.RawRow{Value: []byte(`2`)}}
		if found {
			op.Found = &store.RawRow{Key: e.Raw, Value: e.Value, Ver: e.Ver, ExpiresAt: e.ExpiresAt}
		}
		ops = append(ops, op)
		return nil
	})
	if err != nil || len(ops) != 600 {
		t.Fatalf("reading the rows to restore: %d, %v", len(ops), err)
	}
	return func() error {
		res, err := s.Restore(ctx, ops)
		if err == nil && !res.OK {
			err = fmt.Errorf("refused: %+v", res.Conflicts)
		}
		return err
	}
}

// TestJournalUnknownOutcome: a commit whose answer never comes (a checked
// one, which reading cannot settle) is journaled as unknown, with its
// error and no before-images.
func TestJournalUnknownOutcome(t *testing.T) {
	const timeout = 500 * time.Millisecond
	srv := sqldtest.Start(t)
	p := sqldtest.StartProxy(t, srv.URL, 0)
	for _, u := range []string{p.URL, p.WSURL} {
		p.SetDelay(0)
		ctx := storetest.CtxTimeout(t, 30*time.Second)
		s := storetest.Open(t, u, store.Options{RequestTimeout: timeout})
		k := storetest.Key(t, `["u"]`)
		stamp := mustSet(t, s, `["u"]`, `0`, nil)
		// The delay starts once the write is journaled: its images were
		// read (one request before it) without one.
		r := &hooked{recording: &recording{t: t}, hook: func(store.PendingWrite) { p.SetDelay(8 * timeout) }}
		s.SetRecorder(r)
		_, err := s.Atomic().Check(k, stamp).Set(k, []byte(`1`)).Commit(ctx)
		if !errors.Is(err, store.ErrOutcomeUnknown) {
			t.Fatalf("commit over %s: %v, want ErrOutcomeUnknown", u, err)
		}
		_, out := r.only(t)
		if out.Outcome != store.OutcomeUnknown || !errors.Is(out.Err, store.ErrOutcomeUnknown) || len(out.Before) != 0 || out.BeforeUnknown {
			t.Errorf("over %s journaled %+v, want unknown", u, out)
		}
		p.SetDelay(0)
	}
}

// TestJournalReadsOnlyWhenRecording: without a Recorder a commit runs
// exactly the statements it ran before the journal existed; with one, two
// more: the read of its before-images before it is sent (one per 1,000
// keys), and the guard in its transaction that its keys are still as read
// (one per 4,000 keys).
func TestJournalReadsOnlyWhenRecording(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		statements := func(fn func() error) int64 {
			t.Helper()
			before := s.Counters().Statements
			if err := fn(); err != nil {
				t.Fatal(err)
			}
			return s.Counters().Statements - before
		}
		k := storetest.Key(t, `["k"]`)
		set := func() error { _, err := s.Set(ctx, k, []byte(`1`), nil); return err }
		del := func() error { return s.Delete(ctx, k) }
		// BEGIN, the head, the set, COMMIT; BEGIN, the delete, COMMIT.
		if n := statements(set); n != 4 {
			t.Errorf("a set without a Recorder ran %d statements, want 4", n)
		}
		if n := statements(del); n != 3 {
			t.Errorf("a delete without a Recorder ran %d statements, want 3", n)
		}
		record(t, s)
		if n := statements(set); n != 6 {
			t.Errorf("a journaled set ran %d statements, want 6", n)
		}
		if n := statements(del); n != 5 {
			t.Errorf("a journaled delete ran %d statements, want 5", n)
		}
	})
}
