package views

import (
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

func seededAlarms(t *testing.T) *coordHarness[Alarms] {
	t.Helper()
	s, clock, _ := coordStoreAt(t)
	seedCoordAnomalies(t, s, clock)
	return newAlarmsHarness(t, s, clock, 120, 37)
}

// selectAlarm selects class and, in it, the row with key k.
func selectAlarm(t *testing.T, h *coordHarness[Alarms], class string, k codec.Key) {
	t.Helper()
	h.keys("h", "g")
	for c, ok := h.m.class(); !ok || c.Class != class; c, ok = h.m.class() {
		if h.m.classList.cur == len(h.m.classes)-1 {
			t.Fatalf("no class %s", class)
		}
		h.keys("j")
	}
	h.keys("l", "g")
	for range len(h.m.items()) {
		if it, ok := h.m.item(); ok && it.Key.Equal(k) {
			return
		}
		h.keys("j")
	}
	t.Fatalf("no alarm row %s:\n%s", codec.Format(k), h.m.View())
}

func getAlarm(t *testing.T, h *coordHarness[Alarms], class, id string) (coord.AlarmRecord, bool) {
	t.Helper()
	rec, found, err := coord.GetAlarm(ctx, h.s, class, id)
	if err != nil {
		t.Fatal(err)
	}
	return rec, found
}

func TestAlarmsSetAndReschedule(t *testing.T) {
	h := seededAlarms(t)
	const id = "abcdefabcdefabcdefabcdefabcdef01"
	h.keys("s")
	h.requireView("SET AN ALARM", "class Cart", "due 2026-01-02T00:00:30Z (in 30s)")
	h.typeText(id)
	h.keys("enter")
	h.requireFlash("set Cart/"+id, "due 2026-01-02T00:00:30Z")
	if rec, ok := getAlarm(t, h, "Cart", id); !ok || rec.EpochMs != T+30000 || rec.RetryCount != 0 {
		t.Fatalf("alarm = %+v %v", rec, ok)
	}
	if it, _ := h.m.item(); it.ID != id || !h.m.onEntries {
		t.Fatalf("the new alarm is not selected:\n%s", h.m.View())
	}

	h.keys("e")
	h.requireView("RESCHEDULE Cart/", "when  2026-01-02T00:00:30Z")
	h.clearInput()
	h.typeText("+1m")
	h.requireView("due 2026-01-02T00:01:00Z (in 1m)")
	h.keys("enter")
	if rec, _ := getAlarm(t, h, "Cart", id); rec.EpochMs != T+60000 {
		t.Fatalf("rescheduled to %d, want %d", rec.EpochMs, T+60000)
	}
	if _, found, _ := h.s.Get(ctx, coord.AlarmDueKey("Cart", T+30000, id)); found {
		t.Fatal("the old due entry is still there")
	}

	// Absolute times: RFC 3339 and epoch milliseconds; bad ones are refused live.
	h.keys("e")
	h.clearInput()
	h.typeText("tomorrow")
	h.requireView("✗ want +30s")
	h.keys("enter")
	h.requireView("✗ when: want +30s")
	h.clearInput()
	h.typeText("1767312090000")
	h.keys("enter")
	if rec, _ := getAlarm(t, h, "Cart", id); rec.EpochMs != T+90000 {
		t.Fatalf("epoch ms: due %d, want %d", rec.EpochMs, T+90000)
	}
}

func TestAlarmsRepostNeverFires(t *testing.T) {
	h := seededAlarms(t)
	selectAlarm(t, h, "Cart", coord.AlarmByIDKey("Cart", idCart4))
	h.requireView("never-fires")
	h.keys("e")
	h.requireView("RE-POST Cart/", "never fires")
	h.keys("enter")
	if _, found, _ := h.s.Get(ctx, coord.AlarmDueKey("Cart", T+60000, idCart4)); !found {
		t.Fatal("re-posting wrote no due entry")
	}
	if strings.Contains(h.m.View(), "never-fires") {
		t.Fatalf("still flagged after the re-post:\n%s", h.m.View())
	}
}

func TestAlarmsDelete(t *testing.T) {
	h := seededAlarms(t)
	selectAlarm(t, h, "Cart", coord.AlarmDueKey("Cart", T+15000, idCart1))
	h.keys("d")
	c := h.confirm()
	if text := strings.Join(c.Lines, " "); !strings.Contains(text, "Cart/"+idCart1) || !strings.Contains(text, "by-id") {
		t.Errorf("the dialog does not name the alarm and both rows: %s", text)
	}
	if _, ok := getAlarm(t, h, "Cart", idCart1); ok {
		t.Fatal("the alarm is still there")
	}
	if _, found, _ := h.s.Get(ctx, coord.AlarmDueKey("Cart", T+15000, idCart1)); found {
		t.Fatal("its due entry is still there")
	}

	// An orphan due entry: only that row goes, guarded by its stamp.
	orphan := coord.AlarmDueKey("Cart", T+30000, idCart5)
	selectAlarm(t, h, "Cart", orphan)
	h.keys("d")
	c = h.confirm()
	if !strings.Contains(strings.Join(c.Lines, " "), "Deletes only the row "+codec.Format(orphan)) {
		t.Errorf("dialog: %q", c.Lines)
	}
	if _, found, _ := h.s.Get(ctx, orphan); found {
		t.Fatal("the orphan is still there")
	}
	h.requireFlash("deleted the row")
}

// TestAlarmsFire: f claims the class's due alarms like a poller without a
// handler: one fires, one whose object lease is held is re-posted at now.
func TestAlarmsFire(t *testing.T) {
	h := seededAlarms(t)
	selectAlarm(t, h, "Cart", coord.AlarmDueKey("Cart", T-120000, idCart3))
	h.keys("f")
	c := h.confirm()
	if c.Title != "Fire 2 due alarm(s) of Cart now?" || !strings.Contains(strings.Join(c.Lines, " "), "No service handler runs") {
		t.Errorf("dialog %q %q", c.Title, c.Lines)
	}
	h.requireFlash("fired Cart", "1 fired", "1 reposted")
	h.requireView("FIRED AT 2026-01-02T00:00:00Z", "fired             "+idCart3, "reposted          "+idCart2, "re-posted at")
	if _, ok := getAlarm(t, h, "Cart", idCart3); ok {
		t.Fatal("the fired alarm is still there")
	}
	if rec, ok := getAlarm(t, h, "Cart", idCart2); !ok || rec.EpochMs != T {
		t.Fatalf("the alarm whose lease is held: %+v %v, want re-posted at now", rec, ok)
	}
	h.keys("j")
	if strings.Contains(h.m.View(), "FIRED AT") {
		t.Fatal("the fire report stays after the cursor moved")
	}
	// Nothing due under a clock set back: no dialog, a plain answer.
	h.clock.Fix(T - 10*60000)
	h.keys("f")
	h.requireFlash("nothing of Cart is due")
}

// TestAlarmsClockAndSelection: the time line and lateness follow the
// (virtual) clock without a load; a refresh keeps the selected alarm.
func TestAlarmsClockAndSelection(t *testing.T) {
	h := seededAlarms(t)
	k := coord.AlarmDueKey("Cart", T+15000, idCart1)
	selectAlarm(t, h, "Cart", k)
	h.requireView("in 15s")
	h.clock.Fix(T + 20000)
	h.requireView("late 5s")
	if err := coord.SetAlarm(ctx, h.s, "Cart", "00000000000000000000000000000001", T-5*60000); err != nil {
		t.Fatal(err)
	}
	h.refresh()
	if it, _ := h.m.item(); !it.Key.Equal(k) {
		t.Fatalf("selection moved to %s", codec.Format(it.Key))
	}
}

func TestAlarmsReadOnly(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	h := newAlarmsHarness(t, s, clock, 120, 37)
	h.keys("l")
	for _, k := range []string{"s", "e", "d", "f"} {
		h.keys(k)
		h.requireFlash("read-only")
	}
	if h.m.form != nil || len(h.confirms) > 0 {
		t.Fatal("a write action opened in read-only mode")
	}
	requireNoHelp(t, h.m.FullHelp(), "s", "e", "d", "f")
}
