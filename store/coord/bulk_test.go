package coord_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// TestQueueBulkRetryAndDeadLetter: retry makes marked messages ready now
// (same id, body and attempts), dead-letter moves them to
// kvdeck_dead_letter, and a message a consumer claimed after it was
// marked is skipped, not written back.
func TestQueueBulkRetryAndDeadLetter(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		for i := range 4 {
			_, err := coord.Send(storetest.Ctx(t), s, "jobs", []byte(fmt.Sprintf(`{"n":%d}`, i)), time.Hour)
			must(t, err)
		}
		var msgs []store.Entry
		must(t, s.Dump(storetest.Ctx(t), storetest.Key(t, `["dwk_queue_due", "jobs"]`), func(e store.Entry) error {
			msgs = append(msgs, e)
			return nil
		}))
		must(t, s.Delete(storetest.Ctx(t), msgs[1].Key)) // a consumer claimed it
		now := c.Now()
		var retry, deads []store.BulkUnit
		for i, e := range msgs {
			mk := coord.QueueRetryUnit
			if i >= 2 {
				mk = coord.QueueDeadLetterUnit
			}
			u, err := mk(e.Key, e.Versionstamp(), e.Value, now)
			must(t, err)
			if i < 2 {
				retry = append(retry, u)
			} else {
				deads = append(deads, u)
			}
		}
		out, err := s.CommitBulk(storetest.Ctx(t), retry)
		if err != nil || out.Applied != 1 || len(out.Skipped) != 1 {
			t.Fatalf("retry: %+v %v; want 1 applied, the claimed one skipped", out, err)
		}
		if out, err := s.CommitBulk(storetest.Ctx(t), deads); err != nil || out.Applied != 2 {
			t.Fatalf("dead-letter: %+v %v", out, err)
		}
		got := strings.Join(rows(t, s, `[]`), "\n")
		// Sent with random ids: the listing's order is the ids', so each
		// row's expected rewrite comes from the row itself.
		dead := func(e store.Entry) string {
			return strings.TrimSuffix(string(e.Value), "}") + fmt.Sprintf(`,"droppedAt":%d}`, now)
		}
		for _, want := range []string{
			fmt.Sprintf(`["dwk_queue_due", "jobs", %d, `, now), "= " + string(msgs[0].Value),
			`["kvdeck_dead_letter", "jobs", `, "= " + dead(msgs[2]), "= " + dead(msgs[3]),
		} {
			if !strings.Contains(got, want) {
				t.Errorf("missing %s in\n%s", want, got)
			}
		}
		if n := strings.Count(got, "dwk_queue_due"); n != 1 {
			t.Errorf("%d queue rows left, want 1 (the retried one):\n%s", n, got)
		}
	})
}

// TestAlarmBulkFireNowAndDelete: fire-now moves an alarm's due entry to
// now keeping its retry count; delete removes both rows; a stale mark
// (the alarm rescheduled since) is skipped.
func TestAlarmBulkFireNowAndDelete(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		now := c.Now()
		must(t, coord.ScheduleRetry(storetest.Ctx(t), s, "mail", "aa", now+60_000, 2))
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "mail", "bb", now+60_000))
		seen := func(id string) coord.AlarmRows {
			var r coord.AlarmRows
			for _, k := range []string{fmt.Sprintf(`["dwk_alarm_due", "mail", %d, %q]`, now+60_000, id), fmt.Sprintf(`["dwk_alarm_by_id", "mail", %q]`, id)} {
				e := get(t, s, storetest.Key(t, k))
				r = append(r, store.Check{Key: e.Key, Versionstamp: e.Versionstamp()})
			}
			return r
		}
		a, b := seen("aa"), seen("bb")
		fire := coord.AlarmFireNowUnit(a[0].Key, "mail", "aa", 2, a, now)
		if out, err := s.CommitBulk(storetest.Ctx(t), []store.BulkUnit{fire}); err != nil || out.Applied != 1 {
			t.Fatalf("fire now: %+v %v", out, err)
		}
		rec, found, err := coord.GetAlarm(storetest.Ctx(t), s, "mail", "aa")
		if err != nil || !found || rec.EpochMs != now || rec.RetryCount != 2 {
			t.Fatalf("after fire now: %+v %v %v", rec, found, err)
		}
		stale := coord.AlarmDeleteUnit(a[0].Key, a)
		del := coord.AlarmDeleteUnit(b[0].Key, b)
		out, err := s.CommitBulk(storetest.Ctx(t), []store.BulkUnit{stale, del})
		if err != nil || out.Applied != 1 || len(out.Skipped) != 1 {
			t.Fatalf("delete: %+v %v; want bb deleted, aa (moved since) skipped", out, err)
		}
		got := rows(t, s, `[]`)
		if len(got) != 2 || strings.Contains(strings.Join(got, " "), `"bb"`) {
			t.Fatalf("rows left: %q", got)
		}
	})
}
