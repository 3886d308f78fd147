package store_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestCensusExpiringSlices: the census counts the live rows expiring in
// each slice of the next hour in SQL, matching a count of every row in
// Go, across window boundaries and per prefix, on every transport; the
// slice bounds are exclusive below and inclusive above; bad slicing is
// refused by name.
func TestCensusExpiringSlices(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, clock *storetest.Clock) {
		ctx := storetest.Ctx(t)
		const span, slices = int64(time.Hour / time.Millisecond), 12
		width := span / slices
		// TTLs on both sides of slice bounds, past the hour, expired, and none.
		ttls := []int64{1, width - 1, width, width + 1, 5*width + 7, span - 1, span, span + 1, 3 * span}
		for i, ttl := range ttls {
			d := time.Duration(ttl) * time.Millisecond
			k := codec.Key{codec.String(fmt.Sprintf("p%d", i%3)), codec.Number(float64(i))}
			if _, err := s.Set(ctx, k, []byte(`1`), &d); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Set(ctx, codec.Key{codec.String("forever")}, []byte(`1`), nil); err != nil {
			t.Fatal(err)
		}
		gone := time.Millisecond
		if _, err := s.Set(ctx, codec.Key{codec.String("p0"), codec.String("dead")}, []byte(`1`), &gone); err != nil {
			t.Fatal(err)
		}
		clock.Add(time.Millisecond) // "dead" expires now (expires_at <= now); ttl 1 then expires in 0 ms: dead too
		now := clock.Now()
		want := map[string][]int64{}
		total := make([]int64, slices)
		for i, ttl := range ttls {
			left := ttl - 1 // written 1 ms before now
			if left <= 0 || left > span {
				continue
			}
			b := int((left - 1) / width) // (i*w, (i+1)*w]
			g := fmt.Sprintf("p%d", i%3)
			if want[g] == nil {
				want[g] = make([]int64, slices)
			}
			want[g][b]++
			total[b]++
		}
		for _, window := range []int{0, 1, 3} {
			store.SetCensusWindow(s, window)
			st, err := s.Census(ctx, store.CensusOptions{Now: now, Expiring: store.ExpiringOptions{Span: span, Buckets: slices}})
			store.SetCensusWindow(s, 0)
			if err != nil {
				t.Fatal(err)
			}
			sum := make([]int64, slices)
			for _, p := range st.ByPrefix {
				name := p.Part.StringValue()
				w := want[name]
				if w == nil {
					w = make([]int64, slices)
				}
				if fmt.Sprint(p.Expiring) != fmt.Sprint(w) {
					t.Errorf("window %d, %s: %v, want %v", window, name, p.Expiring, w)
				}
				for i, n := range p.Expiring {
					sum[i] += n
				}
			}
			if fmt.Sprint(sum) != fmt.Sprint(total) {
				t.Errorf("window %d: all prefixes %v, want %v", window, sum, total)
			}
		}
		st, err := s.Census(ctx, store.CensusOptions{Now: now})
		if err != nil || st.ByPrefix[0].Expiring != nil {
			t.Errorf("not asked for: %v %v", st.ByPrefix[0].Expiring, err)
		}
		for _, bad := range []store.ExpiringOptions{{Span: span, Buckets: 61}, {Span: 3, Buckets: 4}, {Span: span, Buckets: -1}} {
			if _, err := s.Census(ctx, store.CensusOptions{Now: now, Expiring: bad}); !errors.Is(err, store.ErrInvalidArgument) {
				t.Errorf("%+v: %v, want ErrInvalidArgument", bad, err)
			}
		}
	})
}
