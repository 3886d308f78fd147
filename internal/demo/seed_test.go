package demo_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/demo"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// Right after seeding, the doctor finds every weak spot the seed plants,
// and nothing that would mean the seed wrote a malformed row.
func TestSeedPlantsTheAnomalies(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		rep, err := demo.Seed(storetest.Ctx(t), s, 1, storetest.T0)
		must(t, err)
		if rep.Reused || rep.Rows < 100 || rep.Leases == 0 || rep.Alarms == 0 || rep.Messages == 0 || rep.CronRows == 0 || rep.Expired == 0 {
			t.Fatalf("seed report %+v", rep)
		}
		fs, err := coord.Doctor(storetest.Ctx(t), s, storetest.T0)
		must(t, err)
		got := map[string]bool{}
		for _, f := range fs {
			got[string(f.Severity)+" "+f.Code+" "+codec.Format(f.Key)] = true
			got[f.Code] = true
			t.Log(f)
		}
		cart, checkout, inv, ticker := "Cart", "Checkout", "Inventory", "Ticker"
		for _, want := range []string{
			"warning meta.probe-leftover",
			"error alarm.never-fires " + codec.Format(coord.AlarmByIDKey(cart, demo.ID("cart:heidi"))),
			"warning alarm.poison " + codec.Format(coord.AlarmDueKey(checkout, storetest.T0+3000, demo.ID("order-1004"))),
			"warning alarm.poison " + codec.Format(coord.AlarmDueKey(inv, storetest.T0+2000, demo.ID("sku-lamp"))),
			"warning alarm.orphan " + codec.Format(coord.AlarmDueKey(ticker, storetest.T0-2000, demo.ID("ticker:GBPJPY"))),
			"store.expired-unswept", "alarm.overdue", "alarm.retried", "queue.ready", "queue.final-attempt",
			"queue.redelivered", "lease.long-held",
		} {
			if !got[want] && !hasPrefix(got, want) {
				t.Errorf("no finding %q", want)
			}
		}
		for _, code := range []string{"meta.mode", "cron.missing-buckets", "cron.double-win", "cron.skew", "cron.no-expiry",
			"lease.no-expiry", "lease.malformed", "alarm.malformed", "alarm.duplicate-due", "queue.malformed",
			"store.undecodable", "store.invalid-json"} {
			if got[code] {
				t.Errorf("unexpected finding %s", code)
			}
		}
		mode, _, found, err := coord.Mode(storetest.Ctx(t), s)
		if err != nil || !found || mode != coord.ModeCentral {
			t.Errorf("mode %q found=%v err=%v", mode, found, err)
		}
	})
}

func hasPrefix(set map[string]bool, prefix string) bool {
	for k := range set {
		if strings.HasPrefix(k, prefix+" ") {
			return true
		}
	}
	return false
}

// A second Seed finds the marker and writes nothing, whatever its seed.
func TestSeedReusesADemoStore(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		first, err := demo.Seed(storetest.Ctx(t), s, 7, storetest.T0)
		must(t, err)
		before := dump(t, s)
		again, err := demo.Seed(storetest.Ctx(t), s, 8, storetest.T0+5000)
		must(t, err)
		want := demo.SeedReport{Reused: true, Seed: 7, SeededAt: storetest.T0}
		if again != want {
			t.Fatalf("second seed %+v, want %+v (first %+v)", again, want, first)
		}
		if after := dump(t, s); !reflect.DeepEqual(after, before) {
			t.Fatalf("reuse changed the store: %d rows before, %d after", len(before), len(after))
		}
		if first.Rows != len(before) {
			t.Errorf("report says %d rows written, the store holds %d", first.Rows, len(before))
		}
	})
}

// The same seed writes the same keys, values and expiries; another seed
// writes other ones.
func TestSeedIsReproducible(t *testing.T) {
	seeded := func(seed int64) []string {
		s := storetest.Open(t, "file:"+filepath.Join(t.TempDir(), "demo.db"), store.Options{Clock: storetest.NewClock(storetest.T0).Now})
		_, err := demo.Seed(storetest.Ctx(t), s, seed, storetest.T0)
		must(t, err)
		return dump(t, s)
	}
	a, b, c := seeded(3), seeded(3), seeded(4)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("seed 3 wrote different stores")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("seeds 3 and 4 wrote the same store")
	}
}

// A store with rows but no marker is somebody's real state: refused,
// untouched.
func TestSeedRefusesAForeignStore(t *testing.T) {
	s := storetest.Open(t, "file:"+filepath.Join(t.TempDir(), "real.db"), store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	_, err := s.Set(storetest.Ctx(t), codec.Key{codec.String("users"), codec.String("zoe")}, []byte(`{}`), nil)
	must(t, err)
	_, err = demo.Seed(storetest.Ctx(t), s, 1, storetest.T0)
	if !errors.Is(err, demo.ErrNotDemoStore) {
		t.Fatalf("seed on a foreign store: %v", err)
	}
	if rows := dump(t, s); len(rows) != 1 {
		t.Fatalf("the store changed: %v", rows)
	}
}
