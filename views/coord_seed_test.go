package views

import (
	"fmt"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// T is the fixed instant of the coordination goldens (the reference's).
const T = storetest.T0

// Fixed ids, so that goldens do not change from run to run (coord's own
// writers pick random holders and message ids).
const (
	idCart1   = "0e580e53fa979546f8fe4c7ac68c99f9"
	idCart2   = "acf595e529879b45adcc5da2d4402629"
	idCart3   = "11c0ffee11c0ffee11c0ffee11c0ffee"
	idCart4   = "deadbeefdeadbeefdeadbeefdeadbeef"
	idCart5   = "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e"
	idCart6   = "0ddba11000ddba11000ddba11000ddba"
	idTicker1 = "234f594be1ed8ecc8c4d393b295c02f3"
	idTicker2 = "feedfacefeedfacefeedfacefeedface"
)

// coordStoreAt opens an empty file store on a clock fixed at T; url
// opens it again.
func coordStoreAt(t *testing.T) (s *store.Store, clock *store.VirtualClock, url string) {
	t.Helper()
	clock = viewtest.FixedClock()
	url = "file:" + t.TempDir() + "/coord.db"
	return viewtest.Open(t, url, clock, false), clock, url
}

// seeder writes rows at chosen instants of a fixed clock.
type seeder struct {
	t     *testing.T
	s     *store.Store
	clock *store.VirtualClock
}

// at sets the clock to T+offset for the next writes.
func (w seeder) at(offset time.Duration) seeder {
	w.clock.Fix(T + offset.Milliseconds())
	return w
}

// set writes one row, with a TTL when ttl > 0.
func (w seeder) set(k codec.Key, value string, ttl time.Duration) {
	w.t.Helper()
	var exp *time.Duration
	if ttl > 0 {
		exp = &ttl
	}
	if _, err := w.s.Set(ctx, k, []byte(value), exp); err != nil {
		w.t.Fatal(err)
	}
}

func (w seeder) must(err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatal(err)
	}
}

// holder is a lease or tick value with a fixed holder.
func holder(n int) string {
	return fmt.Sprintf(`{"holder":"a1b2c3d4-%04d-4e5f-8a9b-0c1d2e3f4a5b"}`, n)
}

// seedCoordAnomalies fills s with every kind of row the inspection layer
// reports on, as seen at T, and leaves the clock at T.
func seedCoordAnomalies(t *testing.T, s *store.Store, clock *store.VirtualClock) {
	t.Helper()
	w := seeder{t: t, s: s, clock: clock}
	sec := time.Second

	// Leases: held, expiring, long-held, expired-unswept, no expiry,
	// a TTL longer than the default, malformed.
	w.at(-5*sec).set(coord.LeaseKey("Cart", idCart1), holder(1), 30*sec)
	w.at(-27*sec).set(coord.LeaseKey("Cart", idCart2), holder(2), 30*sec)
	w.at(-15*sec).set(coord.LeaseKey("Ticker", idTicker1), holder(3), 30*sec)
	w.at(-40*sec).set(coord.LeaseKey("Cart", idCart3), holder(4), 30*sec)
	w.at(0).set(coord.LeaseKey("Cart", idCart4), holder(5), 0)
	w.at(0).set(coord.LeaseKey("Report", idCart5), holder(6), 5*time.Minute)
	w.at(-1*sec).set(coord.LeaseKey("Cart", idCart6), `{"owner":"nobody"}`, 30*sec)

	// Cron: digest every minute with two buckets nobody won, report every
	// 10 s with a double win off its grid, a malformed bucket.
	for _, b := range []time.Duration{-240 * sec, -180 * sec, 0} {
		w.at(b+100*time.Millisecond).set(coord.CronKey("digest", T+b.Milliseconds()), holder(10), time.Minute)
	}
	w.at(-20*sec+50*time.Millisecond).set(coord.CronKey("report", T-20000), holder(11), 10*sec)
	w.at(-15*sec+50*time.Millisecond).set(coord.CronKey("report", T-15000), holder(12), 10*sec)
	w.at(-5*sec).set(codec.Key{codec.String(coord.PrefixCron), codec.String("report"), codec.String("oops")}, holder(13), 10*sec)

	// Alarms: scheduled, overdue (a little and a lot), retried, poison,
	// never-fires, orphan, duplicate due entries, malformed.
	w.at(-10 * time.Minute)
	w.must(coord.SetAlarm(ctx, s, "Cart", idCart1, T+15000))
	w.must(coord.SetAlarm(ctx, s, "Cart", idCart2, T-500))
	w.must(coord.SetAlarm(ctx, s, "Cart", idCart3, T-2*time.Minute.Milliseconds()))
	w.must(coord.ScheduleRetry(ctx, s, "Ticker", idTicker1, T+2000, 1))
	w.must(coord.ScheduleRetry(ctx, s, "Ticker", idTicker2, T+8000, coord.PoisonRetryCount))
	w.must(coord.SetAlarm(ctx, s, "Cart", idCart4, T+60000))
	w.must(s.Delete(ctx, coord.AlarmDueKey("Cart", T+60000, idCart4))) // never fires
	w.set(coord.AlarmDueKey("Cart", T+30000, idCart5), `{"epochMs":1767312030000,"retryCount":0}`, 0)
	w.must(coord.SetAlarm(ctx, s, "Cart", idCart6, T+40000))
	w.set(coord.AlarmDueKey("Cart", T+50000, idCart6), `{"epochMs":1767312050000,"retryCount":0}`, 0)
	w.set(codec.Key{codec.String(coord.PrefixAlarmDue), codec.String("Cart"), codec.String("soon"), codec.String("x")}, `{}`, 0)

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
		w.set(coord.QueueKey(m.queue, m.due, m.id), m.value, 0)
	}
	w.set(coord.QueueKey("invoices", T-60000, "m-bad"), `"not an object"`, 0)
	clock.Fix(T)
}
