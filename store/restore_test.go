package store_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

func stampVer(t *testing.T, stamp string) int64 {
	t.Helper()
	n, err := codec.ParseStamp(stamp)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// dumpText is every physical row of the store, expired ones included, and
// seq: what "nothing was written" compares.
func dumpText(t *testing.T, s *store.Store) string {
	t.Helper()
	seq, err := s.Seq(storetest.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("seq %d\n", seq) + storetest.RowsText(t, s, true)
}

// TestRestoreApplies: a Restore checks each key's physical row (an
// expired row still counts as there), puts rows back with their value
// text as given and their expiry (an expired one comes back
// expired-but-present) under one new stamp, bumps seq once, deletes; it
// is journaled with the rows it replaced. A Restore that only deletes
// issues no stamp.
func TestRestoreApplies(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.Ctx(t)
		sa := stampVer(t, mustSet(t, s, `["a"]`, `"now-a"`, nil))
		sb := stampVer(t, mustSet(t, s, `["b"]`, `"expired"`, dur(time.Millisecond)))
		sd := stampVer(t, mustSet(t, s, `["d"]`, `"to-go"`, nil))
		c.Add(time.Second)
		seq0, _ := s.Seq(ctx)
		r := record(t, s)
		ops := []store.RestoreOp{
			{Key: enc(t, `["a"]`), ExpectVer: sa, Put: &store.RawRow{Value: []byte(`{ "x" : 1.0 }`), ExpiresAt: i64(storetest.T0 + 3_600_000)}},
			{Key: enc(t, `["b"]`), ExpectVer: sb, Put: &store.RawRow{Key: enc(t, `["b"]`), Value: []byte(`"b again"`)}},
			{Key: enc(t, `["c"]`), Put: &store.RawRow{Value: []byte(`"c"`), ExpiresAt: i64(storetest.T0 + 1)}},
			{Key: enc(t, `["d"]`), ExpectVer: sd},
			{Key: enc(t, `["e"]`)},
		}
		res, err := s.Restore(store.WithWriteOp(ctx, "undo"), ops)
		want := codec.FormatStamp(seq0 + 1)
		if err != nil || !res.OK || res.Versionstamp != want || len(res.Conflicts) != 0 {
			t.Fatalf("restore: %+v %v, want OK at %s", res, err, want)
		}
		if seq, _ := s.Seq(ctx); seq != seq0+1 {
			t.Errorf("seq %d after the restore, want %d (bumped once)", seq, seq0+1)
		}
		for key, row := range map[string]*store.RawRow{
			`["a"]`: {Value: []byte(`{ "x" : 1.0 }`), Ver: seq0 + 1, ExpiresAt: i64(storetest.T0 + 3_600_000)},
			`["b"]`: {Value: []byte(`"b again"`), Ver: seq0 + 1},
			`["c"]`: {Value: []byte(`"c"`), Ver: seq0 + 1, ExpiresAt: i64(storetest.T0 + 1)},
			`["d"]`: nil,
			`["e"]`: nil,
		} {
			var want []store.RawRow
			if row != nil {
				row.Key = enc(t, key)
				want = append(want, *row)
			}
			var got []store.RawRow
			if g := rawRow(t, s, enc(t, key)); g != nil {
				got = append(got, *g)
			}
			sameRows(t, "row "+key, got, want)
		}
		w, out := r.only(t)
		if w.Kind != "restore" || w.Op != "undo" || len(w.Restores) != len(ops) || len(w.Keys) != len(ops) {
			t.Errorf("journaled %+v", w)
		}
		if out.Outcome != store.OutcomeApplied || out.Stamp != want {
			t.Errorf("journaled result %+v", out)
		}
		sameRows(t, "restore", out.Before, []store.RawRow{
			{Key: enc(t, `["a"]`), Value: []byte(`"now-a"`), Ver: sa},
			{Key: enc(t, `["b"]`), Value: []byte(`"expired"`), Ver: sb, ExpiresAt: i64(storetest.T0 + 1)},
			{Key: enc(t, `["d"]`), Value: []byte(`"to-go"`), Ver: sd},
		})
		res, err = s.Restore(ctx, []store.RestoreOp{{Key: enc(t, `["c"]`), ExpectVer: seq0 + 1}})
		if err != nil || !res.OK || res.Versionstamp != "" {
			t.Fatalf("a restore that only deletes: %+v %v", res, err)
		}
		if seq, _ := s.Seq(ctx); seq != seq0+1 {
			t.Errorf("a restore that only deletes moved seq to %d", seq)
		}
		if rawRow(t, s, enc(t, `["c"]`)) != nil {
			t.Error("the restore that deletes c left it")
		}
	})
}

// TestRestoreRefuses: when one key's row is not the one expected (it
// changed, appeared, even expired, or vanished), a Restore writes nothing
// at all, names that key with the row found, and is journaled as not
// applied.
func TestRestoreRefuses(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.Ctx(t)
		sk := stampVer(t, mustSet(t, s, `["kept"]`, `1`, nil))
		sv := stampVer(t, mustSet(t, s, `["vanishing"]`, `1`, nil))
		sc := stampVer(t, mustSet(t, s, `["changing"]`, `1`, nil))
		sn := stampVer(t, mustSet(t, s, `["newcomer"]`, `"expired"`, dur(time.Millisecond)))
		c.Add(time.Second)
		if err := s.Delete(ctx, storetest.Key(t, `["vanishing"]`)); err != nil {
			t.Fatal(err)
		}
		sc2 := stampVer(t, mustSet(t, s, `["changing"]`, `2`, nil))
		good := []store.RestoreOp{
			{Key: enc(t, `["kept"]`), ExpectVer: sk, Put: &store.RawRow{Value: []byte(`"restored"`)}},
			{Key: enc(t, `["fresh"]`), Put: &store.RawRow{Value: []byte(`"restored"`)}},
		}
		for _, tc := range []struct {
			name string
			bad  store.RestoreOp
			// found is the row the conflict names (nil: none).
			found *store.RawRow
		}{
			{"changed", store.RestoreOp{Key: enc(t, `["changing"]`), ExpectVer: sc},
				&store.RawRow{Key: enc(t, `["changing"]`), Value: []byte(`2`), Ver: sc2}},
			{"appeared, expired", store.RestoreOp{Key: enc(t, `["newcomer"]`), Put: &store.RawRow{Value: []byte(`1`)}},
				&store.RawRow{Key: enc(t, `["newcomer"]`), Value: []byte(`"expired"`), Ver: sn, ExpiresAt: i64(storetest.T0 + 1)}},
			{"vanished", store.RestoreOp{Key: enc(t, `["vanishing"]`), ExpectVer: sv, Put: &store.RawRow{Value: []byte(`1`)}}, nil},
		} {
			before := dumpText(t, s)
			r := record(t, s)
			res, err := s.Restore(ctx, append(slices.Clone(good), tc.bad))
			s.SetRecorder(nil)
			if err != nil || res.OK || res.Versionstamp != "" {
				t.Fatalf("%s: %+v %v, want a refusal", tc.name, res, err)
			}
			if len(res.Conflicts) != 1 || string(res.Conflicts[0].Key) != string(tc.bad.Key) || res.Conflicts[0].ExpectVer != tc.bad.ExpectVer {
				t.Fatalf("%s: conflicts %+v, want the one key", tc.name, res.Conflicts)
			}
			var got, want []store.RawRow
			if f := res.Conflicts[0].Found; f != nil {
				got = append(got, *f)
			}
			if tc.found != nil {
				want = append(want, *tc.found)
			}
			sameRows(t, tc.name+": found", got, want)
			if after := dumpText(t, s); after != before {
				t.Errorf("%s: the refused restore wrote:\n%s\nthen\n%s", tc.name, before, after)
			}
			if _, out := r.only(t); out.Outcome != store.OutcomeNotApplied || len(out.Before) != 0 || out.Stamp != "" {
				t.Errorf("%s: journaled %+v", tc.name, out)
			}
		}
	})
}

// TestRestoreLarge: 2,000 operations (puts and deletes over rows at one
// stamp, puts over absent keys) are one Restore on every transport, under
// SQLite's expression depth and variable limits, and one key changed
// among them refuses it whole.
func TestRestoreLarge(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		key := func(i int) codec.Key { return codec.Key{codec.String("big"), codec.Number(float64(i))} }
		raw := func(i int) []byte {
			b, err := codec.Encode(key(i))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		sets := make([]store.Mutation, 1500)
		for i := range sets {
			sets[i] = store.Mutation{Type: store.MutationSet, Key: key(i), Value: []byte(`0`)}
		}
		res0, err := s.SetMany(ctx, sets)
		if err != nil {
			t.Fatal(err)
		}
		ver := stampVer(t, res0.Versionstamp)
		ops := make([]store.RestoreOp, 2000)
		for i := range ops {
			switch {
			case i < 1000:
				ops[i] = store.RestoreOp{Key: raw(i), ExpectVer: ver, Put: &store.RawRow{Value: []byte(fmt.Sprint(i))}}
			case i < 1500:
				ops[i] = store.RestoreOp{Key: raw(i), ExpectVer: ver}
			default:
				ops[i] = store.RestoreOp{Key: raw(i), Put: &store.RawRow{Value: []byte(fmt.Sprint(i))}}
			}
		}
		mustSet(t, s, `["big", 700]`, `"someone else"`, nil)
		before := dumpText(t, s)
		res, err := s.Restore(ctx, ops)
		if err != nil || res.OK || len(res.Conflicts) != 1 || string(res.Conflicts[0].Key) != string(raw(700)) {
			t.Fatalf("restore over a changed key: %+v %v", res, err)
		}
		if after := dumpText(t, s); after != before {
			t.Error("the refused restore of 2,000 keys wrote something")
		}
		ops[700].ExpectVer = res.Conflicts[0].Found.Ver
		res, err = s.Restore(ctx, ops)
		if err != nil || !res.OK {
			t.Fatalf("restore of 2,000 keys: %+v %v", res, err)
		}
		n := 0
		err = s.Dump(ctx, codec.Key{codec.String("big")}, func(e store.Entry) error {
			i := int(e.Key[1].NumberValue())
			if i >= 1000 && i < 1500 || string(e.Value) != fmt.Sprint(i) || e.Versionstamp() != res.Versionstamp {
				t.Errorf("row %d: %s at %s, want %d at %s", i, e.Value, e.Versionstamp(), i, res.Versionstamp)
			}
			n++
			return nil
		})
		if err != nil || n != 1500 {
			t.Fatalf("%d rows after the restore (%v), want 1500", n, err)
		}
	})
}

// TestRestoreRefusesBadInput: a Restore naming a key twice, or putting a
// row under another key, is refused before anything is sent or journaled;
// in read-only mode every Restore is.
func TestRestoreRefusesBadInput(t *testing.T) {
	storetest.Each(t, []storetest.Backend{storetest.File()}, func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		r := record(t, s)
		k := enc(t, `["k"]`)
		for name, ops := range map[string][]store.RestoreOp{
			"twice":       {{Key: k}, {Key: k, Put: &store.RawRow{Value: []byte(`1`)}}},
			"another key": {{Key: k, Put: &store.RawRow{Key: enc(t, `["other"]`), Value: []byte(`1`)}}},
		} {
			if _, err := s.Restore(storetest.Ctx(t), ops); !errors.Is(err, store.ErrInvalidArgument) {
				t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
			}
		}
		ro := storetest.Open(t, url, store.Options{ReadOnly: true})
		rr := record(t, ro)
		if _, err := ro.Restore(storetest.Ctx(t), []store.RestoreOp{{Key: k, Put: &store.RawRow{Value: []byte(`1`)}}}); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("read-only restore: %v, want ErrReadOnly", err)
		}
		for _, rec := range []*recording{r, rr} {
			if ws, _ := rec.take(t); len(ws) != 0 {
				t.Errorf("refused restores were journaled: %+v", ws)
			}
		}
	})
}

// TestRestoreAtItsLimit: the largest Restore accepted (8,000 keys with
// expected stamps, all put back: its head names 32,000 variables) is a
// statement a file and sqld both run (here refused, since none of the
// keys is there, with every key named); one past the bound (16,001
// absent keys put) is refused before anything is sent.
func TestRestoreAtItsLimit(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		key := func(i int) []byte {
			b, err := codec.Encode(codec.Key{codec.String("lim"), codec.Number(float64(i))})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		before := dumpText(t, s)
		ops := make([]store.RestoreOp, 8000)
		for i := range ops {
			ops[i] = store.RestoreOp{Key: key(i), ExpectVer: 1, Put: &store.RawRow{Value: []byte(`1`)}}
		}
		res, err := s.Restore(ctx, ops)
		if err != nil || res.OK || len(res.Conflicts) != len(ops) {
			t.Fatalf("restore of 8,000 keys none of which is there: OK %v, %d conflicts, %v", res.OK, len(res.Conflicts), err)
		}
		over := make([]store.RestoreOp, 16001)
		for i := range over {
			over[i] = store.RestoreOp{Key: key(i), Put: &store.RawRow{Value: []byte(`1`)}}
		}
		if _, err := s.Restore(ctx, over); !errors.Is(err, store.ErrInvalidArgument) {
			t.Errorf("restore of 16,001 keys: %v, want ErrInvalidArgument", err)
		}
		if dumpText(t, s) != before {
			t.Error("a refused restore wrote something")
		}
	})
}

// TestRestoreAtSeqFloor: RestoreAt refuses, writing nothing, when the
// store's seq is below its floor even though every key is at the
// expected ver (a recreated database issues the same stamps again), and
// says the seq it found; at the floor it applies.
func TestRestoreAtSeqFloor(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		v := stampVer(t, mustSet(t, s, `["life"]`, `"service"`, nil))
		ops := []store.RestoreOp{{Key: enc(t, `["life"]`), ExpectVer: v, Put: &store.RawRow{Value: []byte(`"mine"`)}}}
		before := dumpText(t, s)
		res, err := s.RestoreAt(ctx, v+5, ops)
		if err != nil || res.OK || len(res.Conflicts) != 0 || res.SeqBelow != v {
			t.Fatalf("below the floor: %+v %v; want refused, no conflicts, SeqBelow %d", res, err, v)
		}
		if after := dumpText(t, s); after != before {
			t.Fatalf("a refused RestoreAt wrote:\n%s", after)
		}
		if res, err := s.RestoreAt(ctx, v, ops); err != nil || !res.OK {
			t.Fatalf("at the floor: %+v %v", res, err)
		}
	})
}
