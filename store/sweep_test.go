package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestSweepCancelHalfway: a sweep cancelled between batches reports what it
// did, and what it left is exactly the rest.
func TestSweepCancelHalfway(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, clock *storetest.Clock) {
		const total = 6000
		for c := 0; c < total/1000; c++ {
			a := s.Atomic()
			for i := 0; i < 1000; i++ {
				a.SetExpiring(codec.Key{codec.String("exp"), codec.Number(float64(c*1000 + i))}, []byte(`0`), 0)
			}
			a.Set(codec.Key{codec.String("live"), codec.Number(float64(c))}, []byte(`1`))
			if _, err := a.Commit(storetest.Ctx(t)); err != nil {
				t.Fatal(err)
			}
		}
		mustSet(t, s, `["later"]`, `1`, dur(90_000_000_000)) // expires in 90 s
		sweepCtx, cancel := context.WithCancel(storetest.Ctx(t))
		defer cancel()
		var seen []int64
		res, err := s.Sweep(sweepCtx, store.SweepOptions{Batch: 500, Progress: func(p store.SweepProgress) {
			seen = append(seen, p.Swept)
			if p.Batches == 5 {
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled sweep returned %v", err)
		}
		if res.Swept != 2500 || res.Remaining != total-2500 || len(seen) != 5 {
			t.Fatalf("cancelled sweep: %+v, progress %v", res, seen)
		}
		if res.NextExpiry == nil || *res.NextExpiry != storetest.T0+90_000 {
			t.Fatalf("next expiry %v", res.NextExpiry)
		}
		res, err = s.Sweep(storetest.Ctx(t), store.SweepOptions{Prefix: storetest.Key(t, `["exp"]`)})
		if err != nil || res.Swept != total-2500 || res.Remaining != 0 {
			t.Fatalf("prefix sweep of the rest: %+v %v", res, err)
		}
		st, _ := s.Stats(storetest.Ctx(t), clock.Now())
		if st.Rows != total/1000+1 {
			t.Fatalf("%d rows left, want the live ones", st.Rows)
		}
	})
}

// TestSweepRowsStampedAboveSeq: rows another program wrote with stamps
// above kv_meta's seq (doctor's store.stamps-above-seq) were swept by
// nobody: every delete spared a row stamped above the seq its read saw,
// as if written since ("swept 0 rows; 142857 expired rows remain" on a
// 1M-row store). They go now; a row re-set live meanwhile still stays.
func TestSweepRowsStampedAboveSeq(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now, Create: true})
		for i, k := range []string{`["a"]`, `["b"]`, `["c"]`} {
			storetest.Exec(t, url, fmt.Sprintf(`INSERT INTO kv VALUES (x'%s', '1', %d, %d)`, keyHex(t, k), 50+i, storetest.T0-5))
		}
		store.SetSweepStepHook(s, func() { mustSet(t, s, `["b"]`, `2`, dur(time.Minute)) })
		res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{})
		if err != nil || res.Swept != 2 || res.Remaining != 1 {
			t.Fatalf("sweep: %+v %v; want 2 swept, the re-set row left", res, err)
		}
		if present(t, s, `["a"]`) || !present(t, s, `["b"]`) || present(t, s, `["c"]`) {
			t.Fatal(`want ["b"] alone left`)
		}
	})
}

// TestSweepRowsWithoutANumberStamp: expired rows another program wrote
// with a stamp that is not a number (TEXT, BLOB) among ordinary ones,
// under a prefix wholly expired (whose deletes walk its range): the
// sweep deletes them all.
func TestSweepRowsWithoutANumberStamp(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now, Create: true})
		for i, ver := range []string{"1", "'x'", "2", "x'00'", "3"} {
			k := keyHex(t, fmt.Sprintf(`["o", %d]`, i))
			storetest.Exec(t, url, fmt.Sprintf(`INSERT INTO kv VALUES (x'%s', '1', %s, %d)`, k, ver, storetest.T0-5))
		}
		res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Prefix: codec.Key{codec.String("o")}})
		if err != nil || res.Swept != 5 || res.Remaining != 0 {
			t.Fatalf("sweep: %+v %v; want all 5 swept", res, err)
		}
		for i := range 5 {
			if present(t, s, fmt.Sprintf(`["o", %d]`, i)) {
				t.Errorf(`["o", %d] is left`, i)
			}
		}
	})
}
