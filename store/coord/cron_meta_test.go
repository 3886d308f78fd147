package coord_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

func TestCronClaimTick(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		first, err := coord.ClaimTick(storetest.Ctx(t), s, "digest", time.Minute, storetest.T0+59999)
		must(t, err)
		if !first.Won || first.Bucket != storetest.T0 || !uuidV4.MatchString(first.Holder) {
			t.Fatalf("first claim %+v", first)
		}
		e := get(t, s, first.Key)
		if string(e.Value) != `{"holder":"`+first.Holder+`"}` || *e.ExpiresAt != storetest.T0+60000 || e.Versionstamp() != first.Versionstamp {
			t.Fatalf("row %s expires %d", e.Value, *e.ExpiresAt)
		}
		if again, err := coord.ClaimTick(storetest.Ctx(t), s, "digest", time.Minute, storetest.T0+1); again.Won || err != nil || again.Bucket != storetest.T0 {
			t.Fatalf("second claim of the bucket: %+v %v", again, err)
		}
		if next, _ := coord.ClaimTick(storetest.Ctx(t), s, "digest", time.Minute, storetest.T0+60000); !next.Won || next.Bucket != storetest.T0+60000 {
			t.Fatalf("next bucket: %+v", next)
		}
		c.Add(time.Minute) // the first row expires: its bucket can be won again (what a skewed clock does)
		if late, _ := coord.ClaimTick(storetest.Ctx(t), s, "digest", time.Minute, storetest.T0); !late.Won {
			t.Fatalf("expired bucket not claimable: %+v", late)
		}
		if _, err := coord.ClaimTick(storetest.Ctx(t), s, "digest", 0, storetest.T0); !errors.Is(err, coord.ErrInvalidArgument) {
			t.Fatalf("zero interval: %v", err)
		}
	})
}

func TestCronBucketFloors(t *testing.T) {
	for _, tc := range []struct{ now, interval, want int64 }{
		{0, 60, 0}, {59, 60, 0}, {60, 60, 60}, {-1, 60, -60}, {-60, 60, -60}, {storetest.T0 + 59999, 60000, storetest.T0},
	} {
		if got := coord.Bucket(tc.now, tc.interval); got != tc.want {
			t.Errorf("Bucket(%d, %d) = %d, want %d", tc.now, tc.interval, got, tc.want)
		}
	}
}

func TestMetaModeAndProbe(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		if _, _, found, err := coord.Mode(storetest.Ctx(t), s); found || err != nil {
			t.Fatalf("mode before set: %v %v", found, err)
		}
		must(t, coord.SetMode(storetest.Ctx(t), s, coord.ModeCentral))
		mode, raw, found, err := coord.Mode(storetest.Ctx(t), s)
		if mode != "central" || string(raw) != `"central"` || !found || err != nil {
			t.Fatalf("mode %q %s %v %v", mode, raw, found, err)
		}
		_, err = s.Set(storetest.Ctx(t), coord.ModeKey(), []byte(`{"mode":"central"}`), nil)
		must(t, err)
		if _, _, found, err := coord.Mode(storetest.Ctx(t), s); !found || !errors.Is(err, coord.ErrMalformed) {
			t.Fatalf("object marker: %v %v", found, err)
		}
		must(t, coord.Probe(storetest.Ctx(t), s))
		if left, err := coord.ProbeRows(storetest.Ctx(t), s); len(left) != 0 || err != nil {
			t.Fatalf("probe left %v %v", left, err)
		}
		_, err = s.Set(storetest.Ctx(t), coord.ProbeKey("crashed"), []byte(`true`), nil)
		must(t, err)
		left, err := coord.ProbeRows(storetest.Ctx(t), s)
		must(t, err)
		if len(left) != 1 || !reflect.DeepEqual(left[0].Key, coord.ProbeKey("crashed")) {
			t.Fatalf("leftovers %v", left)
		}
	})
}
