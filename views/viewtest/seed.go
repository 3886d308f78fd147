package viewtest

import (
	"fmt"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// T is the fixed instant of the coordination goldens (the reference's).
const T = storetest.T0

// Fixed ids, so that goldens do not change from run to run (coord's own
// writers pick random holders and message ids).
const (
	IDCart1   = "0e580e53fa979546f8fe4c7ac68c99f9"
	IDCart2   = "acf595e529879b45adcc5da2d4402629"
	IDCart3   = "11c0ffee11c0ffee11c0ffee11c0ffee"
	IDCart4   = "deadbeefdeadbeefdeadbeefdeadbeef"
	IDCart5   = "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e"
	IDCart6   = "0ddba11000ddba11000ddba11000ddba"
	IDTicker1 = "234f594be1ed8ecc8c4d393b295c02f3"
	IDTicker2 = "feedfacefeedfacefeedfacefeedface"
)

// CoordStoreAt opens an empty file store on a clock fixed at T; url
// opens it again.
func CoordStoreAt(t *testing.T) (s *store.Store, clock *store.VirtualClock, url string) {
	t.Helper()
	clock = FixedClock()
	url = "file:" + t.TempDir() + "/coord.db"
	return Open(t, url, clock, false), clock, url
}

// Seeder writes rows at chosen instants of a fixed clock.
type Seeder struct {
	T     *testing.T
	S     *store.Store
	Clock *store.VirtualClock
}

// at sets the clock to T+offset for the next writes.
func (w Seeder) at(offset time.Duration) Seeder {
	w.Clock.Fix(T + offset.Milliseconds())
	return w
}

// Set writes one row, with a TTL when ttl > 0.
func (w Seeder) Set(k codec.Key, value string, ttl time.Duration) {
	w.T.Helper()
	var exp *time.Duration
	if ttl > 0 {
		exp = &ttl
	}
	if _, err := w.S.Set(Ctx, k, []byte(value), exp); err != nil {
		w.T.Fatal(err)
	}
}

func (w Seeder) must(err error) {
	w.T.Helper()
	if err != nil {
		w.T.Fatal(err)
	}
}

// Holder is a lease or tick value with a fixed holder.
func Holder(n int) string {
	return fmt.Sprintf(`{"holder":"a1b2c3d4-%04d-4e5f-8a9b-0c1d2e3f4a5b"}`, n)
}

// SeedCoordAnomalies fills s with every kind of row the inspection layer
// reports on, as seen at T, and leaves the clock at T.
func SeedCoordAnomalies(t *testing.T, s *store.Store, clock *store.VirtualClock) {
	t.Helper()
	w := Seeder{T: t, S: s, Clock: clock}
	seedLeasesAndCron(w)
	seedAlarms(w, s)
	seedQueues(w)
	clock.Fix(T)
}

// seedLeasesAndCron: SeedCoordAnomalies' leases and cron buckets.
func seedLeasesAndCron(w Seeder) {
	sec := time.Second

	// Leases: held, expiring, long-held, expired-unswept, no expiry,
	// a TTL longer than the default, malformed.
	w.at(-5*sec).Set(coord.LeaseKey("Cart", IDCart1), Holder(1), 30*sec)
	w.at(-27*sec).Set(coord.LeaseKey("Cart", IDCart2), Holder(2), 30*sec)
	w.at(-15*sec).Set(coord.LeaseKey("Ticker", IDTicker1), Holder(3), 30*sec)
	w.at(-40*sec).Set(coord.LeaseKey("Cart", IDCart3), Holder(4), 30*sec)
	w.at(0).Set(coord.LeaseKey("Cart", IDCart4), Holder(5), 0)
	w.at(0).Set(coord.LeaseKey("Report", IDCart5), Holder(6), 5*time.Minute)
	w.at(-1*sec).Set(coord.LeaseKey("Cart", IDCart6), `{"owner":"nobody"}`, 30*sec)

	// Cron: digest every minute with two buckets nobody won, report every
	// 10 s with a double win off its grid, a malformed bucket.
	for _, b := range []time.Duration{-240 * sec, -180 * sec, 0} {
		w.at(b+100*time.Millisecond).Set(coord.CronKey("digest", T+b.Milliseconds()), Holder(10), time.Minute)
	}
	w.at(-20*sec+50*time.Millisecond).Set(coord.CronKey("report", T-20000), Holder(11), 10*sec)
	w.at(-15*sec+50*time.Millisecond).Set(coord.CronKey("report", T-15000), Holder(12), 10*sec)
	w.at(-5*sec).Set(codec.Key{codec.String(coord.PrefixCron), codec.String("report"), codec.String("oops")}, Holder(13), 10*sec)
}

// seedAlarms: SeedCoordAnomalies' alarms.
func seedAlarms(w Seeder, s *store.Store) {
	// Alarms: scheduled, overdue (a little and a lot), retried, poison,
	// never-fires, orphan, duplicate due entries, malformed.
	w.at(-10 * time.Minute)
	w.must(coord.SetAlarm(Ctx, s, "Cart", IDCart1, T+15000))
	w.must(coord.SetAlarm(Ctx, s, "Cart", IDCart2, T-500))
	w.must(coord.SetAlarm(Ctx, s, "Cart", IDCart3, T-2*time.Minute.Milliseconds()))
	w.must(coord.ScheduleRetry(Ctx, s, "Ticker", IDTicker1, T+2000, 1))
	w.must(coord.ScheduleRetry(Ctx, s, "Ticker", IDTicker2, T+8000, coord.PoisonRetryCount))
	w.must(coord.SetAlarm(Ctx, s, "Cart", IDCart4, T+60000))
	w.must(s.Delete(Ctx, coord.AlarmDueKey("Cart", T+60000, IDCart4))) // never fires
	w.Set(coord.AlarmDueKey("Cart", T+30000, IDCart5), `{"epochMs":1767312030000,"retryCount":0}`, 0)
	w.must(coord.SetAlarm(Ctx, s, "Cart", IDCart6, T+40000))
	w.Set(coord.AlarmDueKey("Cart", T+50000, IDCart6), `{"epochMs":1767312050000,"retryCount":0}`, 0)
	w.Set(codec.Key{codec.String(coord.PrefixAlarmDue), codec.String("Cart"), codec.String("soon"), codec.String("x")}, `{}`, 0)
}

// seedQueues: SeedCoordAnomalies' queue messages.
func seedQueues(w Seeder) {
	// Queues: invoices with old ready messages, a redelivered one, one on
	// its final attempt, delayed ones and a malformed row; thumbnails with
	// one delayed message.
	w.at(0)
	msgs := []struct {
		queue, id string
		due       int64
		value     string
	}{
		{"invoices", "m-0001", T - 120000, `{"body":{"invoice":1001,"total":"12.50"},"attempts":0}`},
		{"invoices", "m-0002", T - 3000, `{"body":{"invoice":1002},"attempts":2}`},
		{"invoices", "m-0003", T - 1000, `{"body":{"invoice":1003,"note":"last chance"},"attempts":4}`},
		{"invoices", "m-0004", T + 5000, `{"body":"plain text body","attempts":0}`},
		{"invoices", "m-0005", T + 60000, `{"body":[1,2,3],"attempts":1}`},
		{"thumbnails", "t-0001", T + 2000, `{"body":{"image":"cat.png"},"attempts":0}`},
	}
	for _, m := range msgs {
		w.Set(coord.QueueKey(m.queue, m.due, m.id), m.value, 0)
	}
	w.Set(coord.QueueKey("invoices", T-60000, "m-bad"), `"not an object"`, 0)
}
