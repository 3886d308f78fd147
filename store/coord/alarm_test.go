package coord_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

func TestAlarmGetSetReplaceDelete(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		if _, found, err := coord.GetAlarm(storetest.Ctx(t), s, "Pod", "abc"); found || err != nil {
			t.Fatalf("before set: found=%v err=%v", found, err)
		}
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "abc", 1000))
		if rec, found, err := coord.GetAlarm(storetest.Ctx(t), s, "Pod", "abc"); !found || err != nil || rec != (coord.AlarmRecord{EpochMs: 1000}) {
			t.Fatalf("get: %+v %v %v", rec, found, err)
		}
		must(t, coord.ScheduleRetry(storetest.Ctx(t), s, "Pod", "abc", 1500, 3))
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "abc", 2000))
		want := []string{
			`["dwk_alarm_by_id", "Pod", "abc"] = {"epochMs":2000,"retryCount":0}`,
			`["dwk_alarm_due", "Pod", 2000, "abc"] = {"epochMs":2000,"retryCount":0}`,
		}
		if got := append(rows(t, s, `["dwk_alarm_by_id"]`), rows(t, s, `["dwk_alarm_due"]`)...); !reflect.DeepEqual(got, want) {
			t.Fatalf("rows after replace:\n%q\nwant\n%q", got, want)
		}
		due := get(t, s, coord.AlarmDueKey("Pod", 2000, "abc"))
		if byID := get(t, s, coord.AlarmByIDKey("Pod", "abc")); byID.Versionstamp() != due.Versionstamp() {
			t.Fatal("due entry and by-id were not written by one commit")
		}
		deleted, err := coord.DeleteAlarm(storetest.Ctx(t), s, "Pod", "abc")
		if !deleted || err != nil {
			t.Fatalf("delete: %v %v", deleted, err)
		}
		if got := append(rows(t, s, `["dwk_alarm_by_id"]`), rows(t, s, `["dwk_alarm_due"]`)...); len(got) != 0 {
			t.Fatalf("rows after delete: %q", got)
		}
		if deleted, err := coord.DeleteAlarm(storetest.Ctx(t), s, "Pod", "abc"); deleted || err != nil {
			t.Fatalf("delete of nothing: %v %v", deleted, err)
		}
	})
}

func TestAlarmDueScan(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "b", 2000))
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "a", 1000))
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "c", 3000))
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Podcast", "z", 10))
		ids := func(now int64, limit int) []string {
			due, err := coord.DueAlarms(storetest.Ctx(t), s, "Pod", now, limit)
			must(t, err)
			var out []string
			for _, d := range due {
				out = append(out, d.ID)
			}
			return out
		}
		if got := ids(2000, 10); !reflect.DeepEqual(got, []string{"a", "b"}) {
			t.Fatalf("due at 2000: %v", got)
		}
		if got := ids(1999, 10); !reflect.DeepEqual(got, []string{"a"}) {
			t.Fatalf("due at 1999: %v", got)
		}
		if got := ids(5000, 1); !reflect.DeepEqual(got, []string{"a"}) {
			t.Fatalf("limit 1: %v", got)
		}
		due, err := coord.DueAlarms(storetest.Ctx(t), s, "Pod", 1000, 0)
		must(t, err)
		if len(due) != 1 || due[0].EpochMs != 1000 || due[0].RetryCount != 0 || due[0].Class != "Pod" || due[0].Versionstamp == "" {
			t.Fatalf("entry %+v", due)
		}
	})
}

func TestAlarmClaimOnce(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "abc", 1000))
		due, err := coord.DueAlarms(storetest.Ctx(t), s, "Pod", 1000, 10)
		must(t, err)
		if ok, err := coord.ClaimAlarm(storetest.Ctx(t), s, due[0]); !ok || err != nil {
			t.Fatalf("first claim: %v %v", ok, err)
		}
		if ok, err := coord.ClaimAlarm(storetest.Ctx(t), s, due[0]); ok || err != nil {
			t.Fatalf("second claim: %v %v", ok, err)
		}
		if again, _ := coord.DueAlarms(storetest.Ctx(t), s, "Pod", 1000, 10); len(again) != 0 {
			t.Fatalf("claimed entry still listed: %+v", again)
		}
	})
}

func TestAlarmClearClaimed(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "abc", 1000))
		if ok, err := coord.ClearClaimedAlarm(storetest.Ctx(t), s, "Pod", "abc", 1000, 0); !ok || err != nil {
			t.Fatalf("matching: %v %v", ok, err)
		}
		if _, found, _ := coord.GetAlarm(storetest.Ctx(t), s, "Pod", "abc"); found {
			t.Fatal("cleared alarm still set")
		}
		if ok, err := coord.ClearClaimedAlarm(storetest.Ctx(t), s, "Pod", "abc", 1000, 0); ok || err != nil {
			t.Fatalf("nothing set: %v %v", ok, err)
		}
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "abc", 1000))
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "abc", 5000))
		if ok, _ := coord.ClearClaimedAlarm(storetest.Ctx(t), s, "Pod", "abc", 1000, 0); ok {
			t.Fatal("cleared a rescheduled alarm")
		}
		if rec, _, _ := coord.GetAlarm(storetest.Ctx(t), s, "Pod", "abc"); rec.EpochMs != 5000 {
			t.Fatalf("rescheduled alarm touched: %+v", rec)
		}
		must(t, coord.ScheduleRetry(storetest.Ctx(t), s, "Pod", "abc", 1000, 0))
		must(t, coord.ScheduleRetry(storetest.Ctx(t), s, "Pod", "abc", 1000, 1))
		if ok, _ := coord.ClearClaimedAlarm(storetest.Ctx(t), s, "Pod", "abc", 1000, 0); ok {
			t.Fatal("cleared an alarm whose retry count changed")
		}
		if rec, _, _ := coord.GetAlarm(storetest.Ctx(t), s, "Pod", "abc"); rec != (coord.AlarmRecord{EpochMs: 1000, RetryCount: 1}) {
			t.Fatalf("retried alarm touched: %+v", rec)
		}
	})
}

// poller returns a poller of class Pod whose lease attempts give up at once.
func poller(s *store.Store, h coord.AlarmHandler) *coord.AlarmPoller {
	return &coord.AlarmPoller{Store: s, Class: "Pod", Handler: h, Lease: coord.LeaseOptions{Timeout: -1}}
}

func TestAlarmPollerFiresAndRetries(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "ok", 1000))
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "bad", 1000))
		var calls []coord.AlarmInvocation
		p := poller(s, func(_ context.Context, a coord.AlarmInvocation) error {
			calls = append(calls, a)
			if a.ID == "bad" {
				return errors.New("boom")
			}
			return nil
		})
		fired, err := p.Poll(storetest.Ctx(t), 1500)
		must(t, err)
		if len(fired) != 2 || fired[0].Outcome != coord.AlarmRetrying || fired[1].Outcome != coord.AlarmFired || fired[0].Next != 3500 {
			t.Fatalf("poll: %+v", fired)
		}
		if rec, found, _ := coord.GetAlarm(storetest.Ctx(t), s, "Pod", "bad"); !found || rec != (coord.AlarmRecord{EpochMs: 3500, RetryCount: 1}) {
			t.Fatalf("retry of bad: %+v", rec)
		}
		if _, found, _ := coord.GetAlarm(storetest.Ctx(t), s, "Pod", "ok"); found {
			t.Fatal("fired alarm still set")
		}
		if got := rows(t, s, `["dwk_lease"]`); len(got) != 0 {
			t.Fatalf("leases left behind: %q", got)
		}
		calls = nil
		if fired, _ := p.Poll(storetest.Ctx(t), 3499); len(fired) != 0 {
			t.Fatalf("retry fired early: %+v", fired)
		}
		fired, err = p.Poll(storetest.Ctx(t), 3500)
		must(t, err)
		if len(calls) != 1 || !calls[0].IsRetry || calls[0].RetryCount != 1 || fired[0].Next != 3500+4000 {
			t.Fatalf("second failure: calls %+v fired %+v", calls, fired)
		}
	})
}

func TestAlarmRetriesRunOut(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		must(t, coord.ScheduleRetry(storetest.Ctx(t), s, "Pod", "abc", 1000, coord.MaxAlarmRetries))
		p := poller(s, func(context.Context, coord.AlarmInvocation) error { return errors.New("boom") })
		fired, err := p.Poll(storetest.Ctx(t), 1000)
		must(t, err)
		if len(fired) != 1 || fired[0].Outcome != coord.AlarmDropped {
			t.Fatalf("poll: %+v", fired)
		}
		if got := append(rows(t, s, `["dwk_alarm_by_id"]`), rows(t, s, `["dwk_alarm_due"]`)...); len(got) != 0 {
			t.Fatalf("dropped alarm left %q", got)
		}
	})
}

func TestAlarmHandlerSettingItsOwnAlarmKeepsIt(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Pod", "abc", 1000))
		p := poller(s, func(cx context.Context, a coord.AlarmInvocation) error {
			if err := coord.SetAlarm(cx, s, a.Class, a.ID, 9000); err != nil {
				return err
			}
			return errors.New("boom")
		})
		fired, err := p.Poll(storetest.Ctx(t), 1000)
		must(t, err)
		if fired[0].Outcome != coord.AlarmKeptOwn {
			t.Fatalf("poll: %+v", fired)
		}
		if rec, _, _ := coord.GetAlarm(storetest.Ctx(t), s, "Pod", "abc"); rec != (coord.AlarmRecord{EpochMs: 9000}) {
			t.Fatalf("alarm is %+v, want the handler's own", rec)
		}
	})
}

func TestAlarmHeldLeaseRepostsWithoutARetry(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		must(t, coord.ScheduleRetry(storetest.Ctx(t), s, "Pod", "abc", 1000, 2))
		_, err := coord.Acquire(storetest.Ctx(t), s, "Pod", "abc", coord.LeaseOptions{})
		must(t, err)
		ran := false
		fired, err := poller(s, func(context.Context, coord.AlarmInvocation) error { ran = true; return nil }).Poll(storetest.Ctx(t), 1200)
		must(t, err)
		if ran || len(fired) != 1 || fired[0].Outcome != coord.AlarmReposted || !errors.Is(fired[0].Err, coord.ErrLeaseContended) {
			t.Fatalf("ran=%v fired=%+v", ran, fired)
		}
		if rec, _, _ := coord.GetAlarm(storetest.Ctx(t), s, "Pod", "abc"); rec != (coord.AlarmRecord{EpochMs: 1200, RetryCount: 2}) {
			t.Fatalf("re-posted as %+v, want at now with the same retry count", rec)
		}
	})
}

func TestAlarmTwoPollersFireOnce(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, db storetest.Backend) {
		c := storetest.NewClock(storetest.T0)
		url := db.URL(t)
		a, b := storetest.Open(t, url, store.Options{Clock: c.Now}), storetest.Open(t, url, store.Options{Clock: c.Now})
		const n = 12
		for i := range n {
			must(t, coord.SetAlarm(storetest.Ctx(t), a, "Pod", string(rune('a'+i)), 1000+int64(i)))
		}
		var mu sync.Mutex
		count := map[string]int{}
		var lost atomic.Int64
		handler := func(_ context.Context, inv coord.AlarmInvocation) error {
			mu.Lock()
			defer mu.Unlock()
			count[inv.ID]++
			return nil
		}
		var wg sync.WaitGroup
		for _, s := range []*store.Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := &coord.AlarmPoller{Store: s, Class: "Pod", Handler: handler, Lease: coord.LeaseOptions{Timeout: 2 * time.Second}}
				fired, err := p.Poll(context.Background(), 5000)
				if err != nil {
					t.Error(err)
				}
				for _, f := range fired {
					if f.Outcome == coord.AlarmLost {
						lost.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		if len(count) != n {
			t.Fatalf("fired %d alarms, want %d: %v", len(count), n, count)
		}
		for id, k := range count {
			if k != 1 {
				t.Fatalf("alarm %s fired %d times", id, k)
			}
		}
		t.Logf("claims lost to the other poller: %d", lost.Load())
	})
}
