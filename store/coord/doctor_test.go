package coord_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// rawInsert writes a row with SQL, bypassing the engine's checks, the way
// a foreign or buggy writer could.
func rawInsert(t *testing.T, url string, k []byte, v string, exp *int64) {
	t.Helper()
	dbh, err := sql.Open("libsql", url)
	must(t, err)
	defer dbh.Close()
	_, err = dbh.ExecContext(storetest.Ctx(t), "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, ?, 999, ?)", k, v, exp)
	must(t, err)
}

func set(t *testing.T, s *store.Store, k, v string, ttl time.Duration) {
	t.Helper()
	var exp *time.Duration
	if ttl != 0 {
		exp = &ttl
	}
	_, err := s.Set(storetest.Ctx(t), storetest.Key(t, k), []byte(v), exp)
	must(t, err)
}

// healthy writes what a running service leaves behind at storetest.T0.
func healthy(t *testing.T, s *store.Store, c *storetest.Clock) {
	t.Helper()
	must(t, coord.SetMode(storetest.Ctx(t), s, coord.ModeCentral))
	must(t, coord.Probe(storetest.Ctx(t), s))
	_, err := coord.Acquire(storetest.Ctx(t), s, "Pod", "fresh", coord.LeaseOptions{})
	must(t, err)
	must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "later", storetest.T0+60000))
	_, err = coord.Send(storetest.Ctx(t), s, "jobs", []byte(`{"a":1}`), time.Minute)
	must(t, err)
	for _, at := range []int64{storetest.T0 - 60000, storetest.T0} { // two consecutive ticks, each won on time
		c.Set(at)
		_, err = coord.ClaimTick(storetest.Ctx(t), s, "digest", time.Minute, at)
		must(t, err)
	}
	c.Set(storetest.T0)
	_, err = s.Sweep(storetest.Ctx(t), store.SweepOptions{}) // the tick row of storetest.T0-60000 expires at storetest.T0
	must(t, err)
}

func TestDoctorHealthyStoreHasNoFindings(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		healthy(t, s, c)
		fs, err := coord.Doctor(storetest.Ctx(t), s, storetest.T0)
		must(t, err)
		if len(fs) != 0 {
			t.Fatalf("findings on a healthy store:\n%s", join(brief(fs)))
		}
	})
}

// A store seeded with each anomaly yields exactly the expected findings.
func TestDoctorSeededAnomalies(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c := storetest.NewClock(storetest.T0)
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Clock: c.Now})
		healthy(t, s, c)
		seedAnomalies(t, s, c, url)
		c.Set(storetest.T0)
		fs, err := coord.Doctor(storetest.Ctx(t), s, storetest.T0)
		must(t, err)
		want := []string{
			`error alarm.never-fires ["dwk_alarm_by_id", "Cart", "claimed"]`,
			`error lease.no-expiry ["dwk_lease", "Pod", "stuck"]`,
			// seedAnomalies' foreign rows carry ver 999, above seq.
			`error store.stamps-above-seq -`,
			`warning alarm.duplicate-due ["dwk_alarm_by_id", "Cart", "dup"]`,
			`warning alarm.malformed ["dwk_alarm_by_id", "Cart", "bad"]`,
			`warning alarm.orphan ["dwk_alarm_due", "Cart", 1767312004000, "dup"]`,
			`warning alarm.orphan ["dwk_alarm_due", "Cart", 1767312005000, "lonely"]`,
			`warning alarm.overdue ["dwk_alarm_due", "Cart", 1767311940000, "late"]`,
			`warning alarm.poison ["dwk_alarm_due", "Cart", 1767312009000, "poison"]`,
			`warning cron.double-win ["dwk_cron", "report", 1767312045000]`,
			`warning cron.missing-buckets ["dwk_cron", "hourly", 1767312000000]`,
			`warning cron.no-expiry ["dwk_cron", "forever", 1767312000000]`,
			`warning cron.skew ["dwk_cron", "skewed", 1767312000000]`,
			`warning lease.long-held ["dwk_lease", "Pod", "hung"]`,
			`warning lease.malformed ["dwk_lease", "Pod", "json"]`,
			`warning lease.malformed ["dwk_lease", "Pod", "shape"]`,
			`warning meta.mode ["dwk_meta", "mode"]`,
			`warning meta.probe-leftover ["dwk_meta", "probe", "crashed"]`,
			`warning queue.final-attempt ["dwk_queue_due", "mail", 1767312600000, "m4"]`,
			`warning queue.malformed ["dwk_queue_due", "mail", "soon", "m9"]`,
			`warning queue.ready ["dwk_queue_due", "mail", 1767311940000, "m0"]`,
			`warning store.expired-unswept ["dwk_cron", "hourly", 1767304800000]`,
			`warning store.invalid-json ["dwk_lease", "Pod", "json"]`,
			`warning store.undecodable -`,
			`info alarm.retried ["dwk_alarm_due", "Cart", 1767312002000, "retry"]`,
			`info queue.redelivered ["dwk_queue_due", "mail", 1767311940000, "m0"]`,
		}
		if got := brief(fs); !reflect.DeepEqual(got, want) {
			t.Fatalf("findings\n%s\nwant\n%s", join(got), join(want))
		}
		for _, f := range fs {
			if f.Message == "" || strings.Contains(f.Message, "%!") {
				t.Errorf("bad message: %s", f)
			}
		}
		if !coord.HasErrors(fs) {
			t.Fatal("HasErrors is false")
		}
	})
}

// seedAnomalies writes one instance of every weak spot next to the
// healthy rows.
func seedAnomalies(t *testing.T, s *store.Store, c *storetest.Clock, url string) {
	t.Helper()
	cx := storetest.Ctx(t)
	// Alarms. A claimer crashed after its claim: by-id without due entry.
	must(t, coord.SetAlarm(cx, s, "Cart", "claimed", storetest.T0-1000))
	due, err := coord.DueAlarms(cx, s, "Cart", storetest.T0, 0)
	must(t, err)
	if ok, err := coord.ClaimAlarm(cx, s, due[0]); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	// A due entry without by-id; a second, stale due entry of one alarm.
	set(t, s, `["dwk_alarm_due", "Cart", 1767312005000, "lonely"]`, `{"epochMs":1767312005000,"retryCount":0}`, 0)
	must(t, coord.SetAlarm(cx, s, "Cart", "dup", storetest.T0+3000))
	set(t, s, `["dwk_alarm_due", "Cart", 1767312004000, "dup"]`, `{"epochMs":1767312004000,"retryCount":0}`, 0)
	must(t, coord.SetAlarm(cx, s, "Cart", "late", storetest.T0-60000))
	must(t, coord.ScheduleRetry(cx, s, "Cart", "poison", storetest.T0+9000, 5))
	must(t, coord.ScheduleRetry(cx, s, "Cart", "retry", storetest.T0+2000, 1))
	set(t, s, `["dwk_alarm_by_id", "Cart", "bad"]`, `"oops"`, 0)

	// Queues: an old ready message redelivered twice, one on its final
	// attempt, one whose key is not a queue key.
	set(t, s, `["dwk_queue_due", "mail", 1767311940000, "m0"]`, `{"body":1,"attempts":2}`, 0)
	set(t, s, `["dwk_queue_due", "mail", 1767312600000, "m4"]`, `{"body":1,"attempts":4}`, 0)
	set(t, s, `["dwk_queue_due", "mail", "soon", "m9"]`, `{"body":1,"attempts":0}`, 0)

	// Leases: taken 15 s ago and never released; without expiry; odd values.
	c.Set(storetest.T0 - 15000)
	_, err = coord.Acquire(cx, s, "Pod", "hung", coord.LeaseOptions{})
	must(t, err)
	c.Set(storetest.T0)
	set(t, s, `["dwk_lease", "Pod", "stuck"]`, `{"holder":"x"}`, 0)
	set(t, s, `["dwk_lease", "Pod", "shape"]`, `{"owner":"x"}`, time.Minute)
	jsonKey, err := codec.Encode(storetest.Key(t, `["dwk_lease", "Pod", "json"]`))
	must(t, err)
	exp := storetest.T0 + 5000
	rawInsert(t, url, jsonKey, `{"holder":`, &exp)

	// Cron: an hourly schedule that missed a tick; a schedule run with two
	// intervals; a tick won by a replica whose clock is 70 s behind; a tick
	// row without expiry.
	tick := func(schedule string, interval time.Duration, clockAt, now int64) {
		c.Set(clockAt)
		_, err := coord.ClaimTick(cx, s, schedule, interval, now)
		must(t, err)
	}
	for _, at := range []int64{storetest.T0 - 2*3600000, storetest.T0} {
		tick("hourly", time.Hour, at, at)
	}
	tick("report", time.Minute, storetest.T0, storetest.T0)
	tick("report", 45*time.Second, storetest.T0+45000, storetest.T0+45000)
	for _, at := range []int64{storetest.T0 - 120000, storetest.T0 - 60000} {
		tick("skewed", time.Minute, at, at)
	}
	tick("skewed", time.Minute, storetest.T0+70000, storetest.T0)
	c.Set(storetest.T0)
	set(t, s, `["dwk_cron", "forever", 1767312000000]`, `{"holder":"x"}`, 0)

	// Meta and store.
	must(t, coord.SetMode(cx, s, "edge"))
	set(t, s, `["dwk_meta", "probe", "crashed"]`, `true`, 0)
	rawInsert(t, url, []byte{0x06, 0x01}, `1`, nil)
}

func TestInspectLeaseStates(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		for _, tc := range []struct {
			id string
			at int64
		}{{"new", storetest.T0}, {"old", storetest.T0 - 25000}, {"gone", storetest.T0 - 31000}} {
			c.Set(tc.at)
			_, err := coord.Acquire(storetest.Ctx(t), s, "Pod", tc.id, coord.LeaseOptions{})
			must(t, err)
		}
		c.Set(storetest.T0 - 1000)
		_, err := coord.Acquire(storetest.Ctx(t), s, "Pod", "long", coord.LeaseOptions{TTL: time.Hour})
		must(t, err)
		rows, fs, err := coord.InspectLeases(storetest.Ctx(t), s, storetest.T0)
		must(t, err)
		got := map[string]string{}
		for _, r := range rows {
			got[r.ID] = string(r.State) + " left " + span(r.TimeLeftMs) + " age " + span(r.AgeMs) + " ttl " + span(r.TTLMs)
		}
		want := map[string]string{
			"gone": "expired-unswept left -1s age 31s ttl 30s",
			"long": "held left 59m59s age -1ms ttl 0s",
			"new":  "held left 30s age 0s ttl 30s",
			"old":  "expiring left 5s age 25s ttl 30s",
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("leases %v", got)
		}
		if got := brief(fs); !reflect.DeepEqual(got, []string{`warning lease.long-held ["dwk_lease", "Pod", "old"]`}) {
			t.Fatalf("findings %v", got)
		}
	})
}

func span(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }

func TestInferInterval(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name    string
		buckets []int64
		exps    []*int64
		want    int64
	}{
		{"claimed at the bucket start", []int64{storetest.T0}, []*int64{p(storetest.T0 + 60000)}, 60000},
		{"claimed 700 ms late", []int64{storetest.T0}, []*int64{p(storetest.T0 + 60700)}, 60000},
		{"majority wins", []int64{storetest.T0, storetest.T0 + 45000, storetest.T0 + 60000}, []*int64{p(storetest.T0 + 60000), p(storetest.T0 + 90000), p(storetest.T0 + 120000)}, 60000},
		{"no expiry: spacing", []int64{0, 300000, 900000}, []*int64{nil, nil, nil}, 300000},
		{"one row without expiry", []int64{storetest.T0}, []*int64{nil}, 0},
		{"nothing", nil, nil, 0},
	} {
		if got := coord.InferInterval(tc.buckets, tc.exps); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestFindingFormats(t *testing.T) {
	f := coord.Finding{Severity: coord.SeverityError, Code: "alarm.never-fires", Key: storetest.Key(t, `["dwk_alarm_by_id", "Cart", "x"]`), Message: `a <b> "c"`}
	if got := f.String(); got != `error  alarm.never-fires  ["dwk_alarm_by_id", "Cart", "x"]  a <b> "c"` {
		t.Fatalf("text %s", got)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	must(t, enc.Encode(f))
	b := bytes.TrimSpace(buf.Bytes())
	want := `{"severity":"error","code":"alarm.never-fires","key":[{"type":"string","value":"dwk_alarm_by_id"},{"type":"string","value":"Cart"},{"type":"string","value":"x"}],"message":"a <b> \"c\""}`
	if string(b) != want {
		t.Fatalf("json %s", b)
	}
	b, _ = json.Marshal(coord.Finding{Severity: coord.SeverityInfo, Code: "store.x"})
	if string(b) != `{"severity":"info","code":"store.x","key":null,"message":""}` {
		t.Fatalf("json without key %s", b)
	}
	if (coord.Finding{Code: "x"}).String() != "  x  -  " {
		t.Fatal("text without key")
	}
}
