package coord_test

import (
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// pulseOf is what ReadPulse must say, computed from Inspect's report (the
// rows read into Go and judged there).
func pulseOf(r coord.Report) coord.Pulse {
	p := coord.Pulse{Seq: r.Store.Seq, Rows: r.Store.Rows, Expired: r.Store.Expired, InvalidJSON: r.Store.InvalidJSON}
	for _, l := range r.Leases {
		if l.Kind != coord.KindLease {
			continue
		}
		switch l.State {
		case coord.LeaseExpired:
			p.LeasesExpired++
		case coord.LeaseExpiring:
			p.LeasesExpiring++
		default:
			p.LeasesHeld++
		}
		if l.ExpiresAt == nil {
			p.LeasesNoExpiry++
		}
	}
	for _, ac := range r.Alarms {
		for _, a := range ac.Due {
			if a.Overdue {
				p.AlarmsOverdue++
				p.WorstLatenessMs = max(p.WorstLatenessMs, a.LatenessMs)
			}
		}
	}
	for _, q := range r.Queues {
		p.QueueReady += q.Ready
		p.QueueDelayed += q.Delayed
		p.QueueFinal += q.Final
		if q.Ready > 0 {
			p.QueuesWithReady++
			p.OldestReadyMs = max(p.OldestReadyMs, q.OldestReadyAgeMs)
		}
	}
	p.Findings = len(r.Findings)
	for _, f := range r.Findings {
		if f.Severity == coord.SeverityError {
			p.FindingErrors++
		}
	}
	return p
}

// comparable drops what only ReadPulse has (the unexported counts behind
// Findings) by copying the exported fields.
func comparable(p coord.Pulse) coord.Pulse {
	return coord.Pulse{Seq: p.Seq, Rows: p.Rows, Estimated: p.Estimated, Expired: p.Expired, InvalidJSON: p.InvalidJSON,
		LeasesHeld: p.LeasesHeld, LeasesExpiring: p.LeasesExpiring, LeasesExpired: p.LeasesExpired, LeasesNoExpiry: p.LeasesNoExpiry,
		AlarmsOverdue: p.AlarmsOverdue, WorstLatenessMs: p.WorstLatenessMs,
		QueueReady: p.QueueReady, QueueDelayed: p.QueueDelayed, QueueFinal: p.QueueFinal, QueuesWithReady: p.QueuesWithReady,
		OldestReadyMs: p.OldestReadyMs, Findings: p.Findings, FindingErrors: p.FindingErrors}
}

func samePulse(t *testing.T, what string, got, want coord.Pulse) {
	t.Helper()
	g, w := comparable(got), comparable(want)
	if (g.Seq == nil) != (w.Seq == nil) || g.Seq != nil && *g.Seq != *w.Seq {
		t.Errorf("%s: seq %v, want %v", what, g.Seq, w.Seq)
	}
	g.Seq, w.Seq = nil, nil
	if g != w {
		t.Errorf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

// referenceAtT0 copies the reference's rows to a new store of b and opens
// it for writing at T0; it returns the store's URL and the store.
func referenceAtT0(t *testing.T, b storetest.Backend) (string, *store.Store) {
	t.Helper()
	url := b.URL(t)
	storetest.CopyReferenceRows(t, url)
	return url, storetest.Open(t, url, store.Options{Clock: func() int64 { return storetest.T0 }})
}

// TestPulseAgreesWithInspect: ReadPulse's one statement says what Inspect
// (the rows read and judged in Go) says, on the reference's rows plus a
// lease without expiry, a message on its final attempt and one
// redelivered, a poison alarm, a mode other than central and a value
// that is not JSON, at several nows, on a file and over HTTP; doctor's
// finding count included (the reference's codes are all ones the
// statement sees).
func TestPulseAgreesWithInspect(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url, w := referenceAtT0(t, b)
		ctx := storetest.Ctx(t)
		set := func(k codec.Key, v string) {
			t.Helper()
			if _, err := w.Set(ctx, k, []byte(v), nil); err != nil {
				t.Fatal(err)
			}
		}
		set(coord.LeaseKey("Forever", "ab"), `{"holder":"00000000-0000-4000-8000-000000000001"}`)
		set(coord.QueueKey("mail", storetest.T0-60_000, "m1"), `{"body":1,"attempts":4}`)
		set(coord.QueueKey("mail", storetest.T0+60_000, "m2"), `{"body":2,"attempts":1}`)
		set(coord.AlarmDueKey("Poison", storetest.T0-1000, "cd"), `{"epochMs":`+itoa(storetest.T0-1000)+`,"retryCount":5}`)
		set(coord.AlarmByIDKey("Poison", "cd"), `{"epochMs":`+itoa(storetest.T0-1000)+`,"retryCount":5}`)
		set(coord.ModeKey(), `"edge"`)
		storetest.Exec(t, url, `INSERT INTO kv (k, v, ver) VALUES (x'0262616400', 'not json', 1)`)
		w.Close()

		s := storetest.Open(t, url, store.Options{ReadOnly: true, Unchecked: true})
		for _, now := range []int64{storetest.T0, storetest.T0 + 9000, storetest.T0 + int64(time.Hour/time.Millisecond)} {
			got, err := coord.ReadPulse(ctx, s, now)
			must(t, err)
			r, err := coord.Inspect(ctx, s, now)
			must(t, err)
			samePulse(t, "at T0+"+itoa(now-storetest.T0), got, pulseOf(r))
			t.Logf("T0+%d: %+v", now-storetest.T0, comparable(got))
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestPulseIsTheSchemaCheck: opened unchecked, a database that is no
// store fails ReadPulse with ErrNotStore (an empty sqld, a file with other
// tables), and the read is one request over HTTP, open included.
func TestPulseIsTheSchemaCheck(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	var err error
	n := proxy.Count(func() {
		var s *store.Store
		if s, err = store.Open(storetest.Ctx(t), proxy.URL, store.Options{ReadOnly: true, Unchecked: true}); err == nil {
			_, err = coord.ReadPulse(storetest.Ctx(t), s, storetest.T0)
			s.Close()
		}
	})
	if !errors.Is(err, store.ErrNotStore) || n != 1 {
		t.Errorf("an empty sqld: %v in %d requests, want ErrNotStore in 1", err, n)
	}
	path := filepath.Join(t.TempDir(), "other.db")
	storetest.Exec(t, "file:"+path, `CREATE TABLE t (x)`)
	s, err := store.Open(storetest.Ctx(t), "file:"+path, store.Options{ReadOnly: true, Unchecked: true})
	must(t, err)
	defer s.Close()
	if _, err := coord.ReadPulse(storetest.Ctx(t), s, storetest.T0); !errors.Is(err, store.ErrNotStore) {
		t.Errorf("a file with other tables: %v, want ErrNotStore", err)
	}

	storetest.CopyReferenceRows(t, srv.URL)
	n = proxy.Count(func() {
		var s *store.Store
		if s, err = store.Open(storetest.Ctx(t), proxy.URL, store.Options{ReadOnly: true, Unchecked: true}); err == nil {
			_, err = coord.ReadPulse(storetest.Ctx(t), s, storetest.T0)
			s.Close()
		}
	})
	if err != nil || n != 1 {
		t.Errorf("a store: %v in %d requests, want one", err, n)
	}
}

// TestPulseSample: the store-wide figures are counted over windows of
// rowids; where the windows cover every rowid they are exact, else they
// are estimates that say so (Estimated, Sampled) and scale the sample's
// counts by the stride between windows.
func TestPulseSample(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	w := storetest.Open(t, "file:"+path, store.Options{Create: true, Clock: func() int64 { return storetest.T0 }})
	ctx := storetest.Ctx(t)
	ttl := time.Second
	for i := range 30 {
		var exp *time.Duration
		if i%2 == 0 {
			exp = &ttl
		}
		if _, err := w.Set(ctx, storetest.Key(t, `["k", `+strconv.Itoa(i)+`]`), []byte(`1`), exp); err != nil {
			t.Fatal(err)
		}
	}
	s := storetest.Open(t, "file:"+path, store.Options{ReadOnly: true, Unchecked: true})
	later := storetest.T0 + 5000
	// 4 windows of 2 rowids over rowids 1-30: a stride of 8, rowids 1-2,
	// 9-10, 17-18 and 25-26, half of them expired (i = rowid-1 even).
	p, err := coord.ReadPulseSampled(ctx, s, later, 4, 2)
	must(t, err)
	if !p.Estimated || p.Sampled != 8 || p.Rows != 32 || p.Expired != 16 {
		t.Errorf("4 windows of 2 over 30 rows: estimated %v, sampled %d, rows %d, expired %d; want true, 8, 32, 16",
			p.Estimated, p.Sampled, p.Rows, p.Expired)
	}
	p, err = coord.ReadPulseSampled(ctx, s, later, 16, 2)
	must(t, err)
	if p.Estimated || p.Sampled != 30 || p.Rows != 30 || p.Expired != 15 {
		t.Errorf("16 windows of 2 over 30 rows: estimated %v, sampled %d, rows %d, expired %d; want exact 30 rows, 15 expired",
			p.Estimated, p.Sampled, p.Rows, p.Expired)
	}
	emptyPath := filepath.Join(t.TempDir(), "e.db")
	storetest.Open(t, "file:"+emptyPath, store.Options{Create: true})
	p, err = coord.ReadPulse(ctx, storetest.Open(t, "file:"+emptyPath, store.Options{ReadOnly: true, Unchecked: true}), later)
	must(t, err)
	if p.Estimated || p.Rows != 0 || p.Sampled != 0 {
		t.Errorf("an empty store: %+v", p)
	}
}

// TestEstimateText: an exact figure as it is; an estimate with ~ and as
// many digits as its sampled rows bear.
func TestEstimateText(t *testing.T) {
	for _, c := range []struct {
		n, sampled int64
		estimated  bool
		want       string
	}{
		{50011, 50011, false, "50011"},
		{46884, 192, true, "~47k"},
		{1000192, 4096, true, "~1.0M"},
		{1950000, 4096, true, "~2.0M"},
		{12_500_000, 4096, true, "~13M"},
		{7200, 29, true, "~7.2k"},
		{244, 1, true, "~200"},
		{95, 40, true, "~95"},
		{0, 0, true, "~0"},
		{0, 0, false, "0"},
	} {
		if got := coord.EstimateText(c.n, c.sampled, c.estimated); got != c.want {
			t.Errorf("EstimateText(%d, %d, %v) = %q, want %q", c.n, c.sampled, c.estimated, got, c.want)
		}
	}
}

// TestPulseQueuesAgreeWithInspect: ReadPulseQueues's figures per queue
// (one statement) are Inspect's per queue, and its totals ReadPulse's, on
// the reference's rows plus messages of two more queues (ready, delayed,
// on their final attempt), on a file and over HTTP.
func TestPulseQueuesAgreeWithInspect(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url, w := referenceAtT0(t, b)
		ctx := storetest.Ctx(t)
		for i, m := range []struct {
			queue, v string
			due      int64
		}{{"mail", `{"body":1,"attempts":4}`, -60_000}, {"mail", `{"body":2,"attempts":0}`, 60_000}, {"sms", `{"body":3,"attempts":1}`, -1000}} {
			if _, err := w.Set(ctx, coord.QueueKey(m.queue, storetest.T0+m.due, "m"+itoa(int64(i))), []byte(m.v), nil); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		s := storetest.Open(t, url, store.Options{ReadOnly: true, Unchecked: true})
		p, queues, err := coord.ReadPulseQueues(ctx, s, storetest.T0)
		must(t, err)
		total, err := coord.ReadPulse(ctx, s, storetest.T0)
		must(t, err)
		samePulse(t, "totals", p, total)
		r, err := coord.Inspect(ctx, s, storetest.T0)
		must(t, err)
		var want []coord.QueuePulse
		for _, q := range r.Queues {
			want = append(want, coord.QueuePulse{Name: q.Name, Ready: q.Ready, Delayed: q.Delayed, Final: q.Final, OldestReadyMs: q.OldestReadyAgeMs})
		}
		if len(queues) != len(want) || len(want) < 2 {
			t.Fatalf("queues %+v, want %+v", queues, want)
		}
		for i := range want {
			if queues[i] != want[i] {
				t.Errorf("queue %d: %+v, want %+v", i, queues[i], want[i])
			}
		}
	})
}
