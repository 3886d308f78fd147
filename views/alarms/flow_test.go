package alarms

import (
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

func seededAlarms(t *testing.T) *viewtest.Harness[Model] {
	t.Helper()
	return viewtest.Seeded(t, newAlarmsHarness)
}

// selectAlarm selects the class Cart (the seeded alarms' class) and, in
// it, the row with key k.
func selectAlarm(t *testing.T, h *viewtest.Harness[Model], k codec.Key) {
	t.Helper()
	const class = "Cart"
	h.Keys("h", "g")
	for c, ok := h.M.class(); !ok || c.Class != class; c, ok = h.M.class() {
		if h.M.lists.Groups.Cur == len(h.M.classes)-1 {
			t.Fatalf("no class %s", class)
		}
		h.Keys("j")
	}
	h.Keys("l", "g")
	for range len(h.M.items()) {
		if it, ok := h.M.item(); ok && it.Key.Equal(k) {
			return
		}
		h.Keys("j")
	}
	t.Fatalf("no alarm row %s:\n%s", codec.Format(k), h.M.View())
}

// getAlarm reads the alarm id of the class Cart.
func getAlarm(t *testing.T, h *viewtest.Harness[Model], id string) (coord.AlarmRecord, bool) {
	t.Helper()
	rec, found, err := coord.GetAlarm(viewtest.Ctx, h.S, "Cart", id)
	if err != nil {
		t.Fatal(err)
	}
	return rec, found
}

func TestAlarmsSetAndReschedule(t *testing.T) {
	h := seededAlarms(t)
	const id = "abcdefabcdefabcdefabcdefabcdef01"
	h.Keys("n")
	h.RequireView("SET AN ALARM", "class Cart", "due 2026-01-02T00:00:30Z (in 30s)")
	h.TypeText(id)
	h.Keys("enter")
	h.RequireFlash("set Cart/"+id, "due 2026-01-02T00:00:30Z")
	if rec, ok := getAlarm(t, h, id); !ok || rec.EpochMs != viewtest.T+30000 || rec.RetryCount != 0 {
		t.Fatalf("alarm = %+v %v", rec, ok)
	}
	if it, _ := h.M.item(); it.ID != id || !h.M.lists.OnItems {
		t.Fatalf("the new alarm is not selected:\n%s", h.M.View())
	}

	h.Keys("e")
	h.RequireView("RESCHEDULE Cart/", "❯ when  2026-01-02T00:00:30Z", "class Cart  (fixed)")
	// Reschedule keeps the class and id: tab never lands on them.
	h.Keys("tab", "tab")
	h.RequireView("❯ when  2026-01-02T00:00:30Z")
	h.ClearInput()
	h.TypeText("+1m")
	h.RequireView("due 2026-01-02T00:01:00Z (in 1m)")
	h.Keys("enter")
	if rec, _ := getAlarm(t, h, id); rec.EpochMs != viewtest.T+60000 {
		t.Fatalf("rescheduled to %d, want %d", rec.EpochMs, viewtest.T+60000)
	}
	if _, found, _ := h.S.Get(viewtest.Ctx, coord.AlarmDueKey("Cart", viewtest.T+30000, id)); found {
		t.Fatal("the old due entry is still there")
	}

	// Absolute times: RFC 3339 and epoch milliseconds; bad ones are refused
	// live.
	h.Keys("e")
	h.ClearInput()
	h.TypeText("tomorrow")
	h.RequireView("✗ want +30s")
	h.Keys("enter")
	h.RequireView("✗ when: want +30s")
	h.ClearInput()
	h.TypeText("1767312090000")
	h.Keys("enter")
	if rec, _ := getAlarm(t, h, id); rec.EpochMs != viewtest.T+90000 {
		t.Fatalf("epoch ms: due %d, want %d", rec.EpochMs, viewtest.T+90000)
	}
}

func TestAlarmsRepostNeverFires(t *testing.T) {
	h := seededAlarms(t)
	selectAlarm(t, h, coord.AlarmByIDKey("Cart", viewtest.IDCart4))
	h.RequireView("never-fires")
	h.Keys("e")
	h.RequireView("RE-POST Cart/", "never fires")
	h.Keys("enter")
	if _, found, _ := h.S.Get(viewtest.Ctx, coord.AlarmDueKey("Cart", viewtest.T+60000, viewtest.IDCart4)); !found {
		t.Fatal("re-posting wrote no due entry")
	}
	if strings.Contains(h.M.View(), "never-fires") {
		t.Fatalf("still flagged after the re-post:\n%s", h.M.View())
	}
}

func TestAlarmsDelete(t *testing.T) {
	h := seededAlarms(t)
	selectAlarm(t, h, coord.AlarmDueKey("Cart", viewtest.T+15000, viewtest.IDCart1))
	h.Keys("d")
	c := h.Confirm()
	if text := strings.Join(c.Lines, " "); !strings.Contains(text, "Cart/"+viewtest.IDCart1) || !strings.Contains(text, "by-id") {
		t.Errorf("the dialog does not name the alarm and both rows: %s", text)
	}
	if _, ok := getAlarm(t, h, viewtest.IDCart1); ok {
		t.Fatal("the alarm is still there")
	}
	if _, found, _ := h.S.Get(viewtest.Ctx, coord.AlarmDueKey("Cart", viewtest.T+15000, viewtest.IDCart1)); found {
		t.Fatal("its due entry is still there")
	}

	// An orphan due entry: only that row goes, guarded by its stamp.
	orphan := coord.AlarmDueKey("Cart", viewtest.T+30000, viewtest.IDCart5)
	selectAlarm(t, h, orphan)
	h.Keys("d")
	c = h.Confirm()
	if !strings.Contains(strings.Join(c.Lines, " "), "Deletes only the row "+codec.Format(orphan)) {
		t.Errorf("dialog: %q", c.Lines)
	}
	if _, found, _ := h.S.Get(viewtest.Ctx, orphan); found {
		t.Fatal("the orphan is still there")
	}
	h.RequireFlash("deleted the row")
}

// TestAlarmsFire: f claims the class's due alarms like a poller without a
// handler: one fires, one whose object lease is held is re-posted at now.
func TestAlarmsFire(t *testing.T) {
	h := seededAlarms(t)
	selectAlarm(t, h, coord.AlarmDueKey("Cart", viewtest.T-120000, viewtest.IDCart3))
	h.Keys("f")
	c := h.Confirm()
	if c.Title != "Fire 2 due alarm(s) of Cart now?" || !strings.Contains(strings.Join(c.Lines, " "), "No service handler runs") {
		t.Errorf("dialog %q %q", c.Title, c.Lines)
	}
	h.RequireFlash("fired Cart", "1 fired", "1 reposted")
	h.RequireView("FIRED AT 2026-01-02T00:00:00Z", "fired             "+viewtest.IDCart3, "reposted          "+viewtest.IDCart2, "re-posted at")
	if _, ok := getAlarm(t, h, viewtest.IDCart3); ok {
		t.Fatal("the fired alarm is still there")
	}
	if rec, ok := getAlarm(t, h, viewtest.IDCart2); !ok || rec.EpochMs != viewtest.T {
		t.Fatalf("the alarm whose lease is held: %+v %v, want re-posted at now", rec, ok)
	}
	h.Keys("j")
	if strings.Contains(h.M.View(), "FIRED AT") {
		t.Fatal("the fire report stays after the cursor moved")
	}
	// Nothing due under a clock set back: no dialog, a plain answer.
	h.Clock.Fix(viewtest.T - 10*60000)
	h.Keys("f")
	h.RequireFlash("nothing of Cart is due")
}

// TestAlarmsClockAndSelection: the time line and lateness follow the
// (virtual) clock without a load; a refresh keeps the selected alarm.
func TestAlarmsClockAndSelection(t *testing.T) {
	h := seededAlarms(t)
	k := coord.AlarmDueKey("Cart", viewtest.T+15000, viewtest.IDCart1)
	selectAlarm(t, h, k)
	h.RequireView("in 15s")
	h.Clock.Fix(viewtest.T + 20000)
	h.RequireView("late 5s")
	if err := coord.SetAlarm(viewtest.Ctx, h.S, "Cart", "00000000000000000000000000000001", viewtest.T-5*60000); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	if it, _ := h.M.item(); !it.Key.Equal(k) {
		t.Fatalf("selection moved to %s", codec.Format(it.Key))
	}
}

func TestAlarmsReadOnly(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	h := newAlarmsHarness(t, s, clock, 120, 37)
	h.Keys("l")
	for _, k := range []string{"n", "e", "d", "f"} {
		h.Keys(k)
		h.RequireFlash("read-only")
	}
	if h.M.Form != nil || len(h.Confirms) > 0 {
		t.Fatal("a write action opened in read-only mode")
	}
	viewtest.RequireNoHelp(t, h.M.FullHelp(), "n", "e", "d", "f")
}

// TestAlarmsSaysWhenTheSelectedAlarmIsGone: a live reload keeps the
// selection by key; when the selected alarm disappears (a poller fired
// it), the view says so instead of moving to a neighbour without a word;
// kvdeck's own delete is not reported as a surprise.
func TestAlarmsSaysWhenTheSelectedAlarmIsGone(t *testing.T) {
	h := seededAlarms(t)
	h.Keys("l")
	it, ok := h.M.item()
	if !ok {
		t.Fatalf("no alarm selected:\n%s", h.M.View())
	}
	if err := h.S.Delete(viewtest.Ctx, it.Key); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	h.RequireFlash("alarm "+codec.Format(it.Key)+" is gone", "the cursor moved")
	n := len(h.Flashes)
	h.Keys("d")
	h.Confirm() // kvdeck's own delete
	h.RequireNoFlashSince(n, "is gone")
}

// TestAlarmsFilter: / filters the classes and their alarms as it is typed
// (by class, alarm id or key); enter keeps it, esc clears it (/
// filters on every list tab).
func TestAlarmsFilter(t *testing.T) {
	h := seededAlarms(t)
	viewtest.CheckFilter(h, Model.classNames, "ticker", "Ticker")
	// An alarm id selects its class and, in it, only that alarm.
	h.Keys("l")
	it, _ := h.M.item()
	viewtest.Filter(h, it.ID)
	if items := h.M.items(); len(items) != 1 || items[0].ID != it.ID {
		t.Fatalf("alarms %+v after /%s", items, it.ID)
	}
	viewtest.CheckFilterMatchesNothing(h, Model.classNames, "no such thing")
}

// TestAlarmsFireSaysWhenAnotherPollerWon: f's dialog counted the due
// alarms; when another poller (the demo's replicas) fires them between
// the dialog and the yes, the answer says so instead of a bare "nothing
// was due".
func TestAlarmsFireSaysWhenAnotherPollerWon(t *testing.T) {
	h := seededAlarms(t)
	selectAlarm(t, h, coord.AlarmDueKey("Cart", viewtest.T-120000, viewtest.IDCart3))
	h.Keys("f")
	if len(h.Confirms) != 1 || h.Confirms[0].Title != "Fire 2 due alarm(s) of Cart now?" {
		t.Fatalf("dialogs %+v", h.Confirms)
	}
	for _, id := range []string{viewtest.IDCart3, viewtest.IDCart2} {
		rec, ok := getAlarm(t, h, id)
		if !ok {
			t.Fatalf("no alarm %s", id)
		}
		if err := h.S.Delete(viewtest.Ctx, coord.AlarmDueKey("Cart", rec.EpochMs, id)); err != nil {
			t.Fatal(err)
		}
	}
	h.Confirm()
	h.RequireFlash("fired Cart", "the 2 alarm(s) due when asked went to another poller meanwhile")
}
