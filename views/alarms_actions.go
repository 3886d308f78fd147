package views

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
)

// handleLists handles keys while the class list or the alarm list has
// them.
func (m Alarms) handleLists(msg tea.KeyMsg) (Alarms, tea.Cmd) {
	k := m.keys
	if m.onEntries {
		if m.entryList.handle(msg, k.NavKeys, m.itemIDs(), m.entryRows()) {
			m.fired = nil
			return m, nil
		}
	} else if m.classList.handle(msg, k.NavKeys, m.classNames(), m.classRows()) {
		m.fired = nil
		m.entryList = listCursor{}
		m.entryList.follow(m.itemIDs(), m.entryRows())
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Classes):
		m.onEntries = false
	case key.Matches(msg, k.Entries):
		m.onEntries = len(m.items()) > 0
	case key.Matches(msg, k.Reload):
		return m.Refresh()
	case key.Matches(msg, k.Set):
		m.openForm(false)
	case key.Matches(msg, k.Reschedule):
		return m, m.startReschedule()
	case key.Matches(msg, k.Delete):
		return m, m.askDelete()
	case key.Matches(msg, k.Fire):
		return m, m.askFire()
	default:
		d := DefaultAlarmsKeys()
		return m, refuseReadOnly(m.readOnly, msg, d.Set, d.Reschedule, d.Delete, d.Fire)
	}
	return m, nil
}

// handleForm handles keys while the set / reschedule form is open.
func (m Alarms) handleForm(msg tea.KeyMsg) (Alarms, tea.Cmd) {
	act, cmd := m.form.handle(msg)
	switch act {
	case formCancel:
		m.form = nil
	case formSubmit:
		return m.submitForm()
	}
	return m, cmd
}

// submitForm validates the form and sets the alarm.
func (m Alarms) submitForm() (Alarms, tea.Cmd) {
	f := m.form
	vals, err := f.values()
	if err != nil {
		f.err = err.Error()
		return m, nil
	}
	at, _ := parseAlarmTime(vals[2], m.deps.Now())
	f.busy, f.err = true, ""
	m.acting = true
	return m, setAlarm(m.store, m.deps.Session, strings.TrimSpace(vals[0]), strings.TrimSpace(vals[1]), at)
}

// startReschedule opens the form on the selected alarm.
func (m *Alarms) startReschedule() tea.Cmd {
	it, ok := m.item()
	switch {
	case !ok || !m.onEntries:
		return Flash(FlashInfo, "select an alarm (→ moves to the class's alarms) to reschedule it; s sets a new one")
	case it.Problem != "":
		return Flash(FlashError, "this row has an unexpected shape; d deletes it, s sets the alarm afresh")
	}
	m.openForm(true)
	return nil
}

// openForm opens the set form, prefilled from the selected alarm when
// rescheduling.
func (m *Alarms) openForm(reschedule bool) {
	c, _ := m.class()
	title, note := "SET AN ALARM", "Replaces the one alarm of class/id (retry count 0) like a service's setAlarm: one commit deletes the old due entry and writes the new one and by-id."
	id, at := "", "+30s"
	if reschedule {
		it, _ := m.item()
		id, at = it.ID, rfcTime(it.EpochMs)
		title = "RESCHEDULE " + sanitize(c.Class) + "/" + clipText(it.ID, 12)
		if it.byID {
			title = "RE-POST " + sanitize(c.Class) + "/" + clipText(it.ID, 12)
			note = "This by-id record has no due entry, so it never fires; setting it again writes one. " + note
		}
	}
	now := m.deps.Now
	m.form = newMiniForm(title, note, m.styles).
		add("class", c.Class, "Cart", nonEmpty("a class name")).
		add("id", id, "0e580e53fa979546f8fe4c7ac68c99f9", checkAlarmID).
		add("when", at, "+30s, 2026-01-02T00:00:00Z or epoch ms", func(s string) (string, error) {
			t, err := parseAlarmTime(s, now())
			if err != nil {
				return "", err
			}
			return "due " + rfcTime(t) + " (" + relativeTo(t, now(), "overdue by") + ")", nil
		})
	if reschedule {
		m.form.focusOn(2)
	} else if c.Class != "" {
		m.form.focusOn(1)
	}
	m.form.setWidth(m.rightInner())
}

// checkAlarmID accepts any id, noting one that is not the 32 hex digits
// services use.
func checkAlarmID(s string) (string, error) {
	id := strings.TrimSpace(s)
	if id == "" {
		return "", errors.New("type the object's id")
	}
	if _, err := strconv.ParseUint(id[:min(len(id), 16)], 16, 64); err != nil || len(id) != 32 {
		return id + " (not 32 hex digits like the ids services use)", nil
	}
	return id, nil
}

// parseAlarmTime reads a due time: epoch milliseconds, an RFC 3339 time,
// "now", or a Go duration from now ("+30s", "-5m").
func parseAlarmTime(s string, now int64) (int64, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return 0, errors.New("type a time: +30s, 2026-01-02T00:00:00Z or epoch ms")
	case t == "now":
		return now, nil
	case t[0] == '+' || t[0] == '-':
		d, err := time.ParseDuration(t)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration like +30s or -5m", t)
		}
		return now + d.Milliseconds(), nil
	}
	if ms, err := strconv.ParseInt(t, 10, 64); err == nil {
		return ms, nil
	}
	tm, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return 0, errors.New("want +30s, an RFC 3339 time like 2026-01-02T15:04:05Z, or epoch ms")
	}
	return tm.UnixMilli(), nil
}

// askDelete asks to delete the selected alarm: both of its rows, or only
// the selected row when it is a stale or malformed due entry.
func (m Alarms) askDelete() tea.Cmd {
	it, ok := m.item()
	if !ok || !m.onEntries {
		return Flash(FlashInfo, "select an alarm (→ moves to the class's alarms) to delete it")
	}
	c, _ := m.class()
	name := sanitize(c.Class) + "/" + sanitize(it.ID)
	if !it.byID && (!it.Matched || it.Problem != "") {
		kt := codec.Format(it.Key)
		return Confirm("Delete this due entry?", "delete", deleteAlarmRow(m.store, m.deps.Session, c.Class, it.ID, it.Key, it.Versionstamp),
			"Deletes only the row "+kt+" (a stale or malformed due entry of "+name+"),",
			"only if it is still at stamp "+it.Versionstamp+". The alarm's by-id record, if any, stays.")
	}
	return Confirm("Delete this alarm?", "delete", deleteAlarm(m.store, m.deps.Session, c.Class, it.ID),
		"Deletes the alarm "+name+" (due "+rfcTime(it.EpochMs)+"):",
		"its due entry and its by-id record, in one commit. It will not fire.")
}

// askFire asks to fire the selected class's due alarms now.
func (m Alarms) askFire() tea.Cmd {
	c, ok := m.class()
	if !ok {
		return Flash(FlashInfo, "select a class to fire its due alarms")
	}
	now := m.deps.Now()
	due := 0
	for _, d := range c.Due {
		if d.Problem == "" && d.EpochMs <= now {
			due++
		}
	}
	if due == 0 {
		return Flash(FlashInfo, "nothing of %s is due at %s", c.Class, rfcTime(now))
	}
	return Confirm(fmt.Sprintf("Fire %d due alarm(s) of %s now?", due, c.Class), "fire", fireAlarms(m.store, m.deps.Session, c.Class, now),
		"Polls "+sanitize(c.Class)+" once as a replica would: claims each due entry (check its stamp + delete), takes the object's lease, and clears the alarm when by-id still matches.",
		"No service handler runs: each fired alarm is consumed. Stale entries are claimed and dropped; an alarm whose lease is held elsewhere is re-posted at now.")
}
