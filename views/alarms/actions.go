package alarms

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// showInBrowse shows the selected alarm's raw key in Browse.
func (m *Model) showInBrowse() tea.Cmd {
	row, ok := m.Selected()
	return coordkit.ShowInBrowse(row, ok, "an alarm")
}

// startSet opens the form to set an alarm.
func (m *Model) startSet() tea.Cmd {
	m.openForm(false)
	return nil
}

// handleForm handles keys while the set / reschedule form is open; a
// valid submission sets the alarm.
func (m Model) handleForm(msg tea.KeyMsg) (Model, tea.Cmd) {
	vals, ok, cmd := m.FormKey(msg)
	if !ok {
		return m, cmd
	}
	at, _ := parseAlarmTime(vals[2], m.Deps.Now())
	return m, setAlarm(m.Store, m.Deps.Session, strings.TrimSpace(vals[0]), strings.TrimSpace(vals[1]), at)
}

// noAlarm is the reason an action on the selected alarm cannot apply,
// to do what it says: no alarm is selected (or the keys are on the
// classes); "" when one is.
func (m Model) noAlarm(to string) string {
	if _, ok := m.item(); ok && m.lists.OnItems {
		return ""
	}
	return views.Hint("select an alarm (%s moves to the class's alarms) to ", m.keys.Entries) + to
}

// rescheduleOff says why e cannot reschedule (noAlarm).
func (m Model) rescheduleOff() string {
	return m.noAlarm(views.Hint("reschedule it; %s sets a new one", m.keys.Set))
}

// deleteOff says why d cannot delete (noAlarm).
func (m Model) deleteOff() string { return m.noAlarm("delete it") }

// startReschedule opens the form on the selected alarm.
func (m *Model) startReschedule() tea.Cmd {
	if it, _ := m.item(); it.Problem != "" {
		return views.Flash(views.FlashError, "%s", views.Hint("this row has an unexpected shape; %s deletes it, %s sets the alarm afresh", m.keys.Delete, m.keys.Set))
	}
	m.openForm(true)
	return nil
}

// openForm opens the set form, prefilled from the selected alarm when
// rescheduling.
func (m *Model) openForm(reschedule bool) {
	c, _ := m.class()
	title, note := "SET AN ALARM", "Replaces the one alarm of class/id (retry count 0) like a service's setAlarm: one commit deletes the old due entry and writes the new one and by-id."
	id, at := "", "+30s"
	if reschedule {
		it, _ := m.item()
		id, at = it.ID, usertext.FormatTime(it.EpochMs)
		title = "RESCHEDULE " + widgets.Sanitize(c.Class) + "/" + widgets.ClipText(it.ID, 12)
		if it.byID {
			title = "RE-POST " + widgets.Sanitize(c.Class) + "/" + widgets.ClipText(it.ID, 12)
			note = "This by-id record has no due entry, so it never fires; setting it again writes one. " + note
		}
	}
	now := m.Deps.Now
	m.Form = widgets.NewForm(title, note, m.Styles).
		Add("class", c.Class, "Cart", widgets.NonEmpty("a class name")).
		Add("id", id, "0e580e53fa979546f8fe4c7ac68c99f9", checkAlarmID).
		Add("when", at, "+30s, 2026-01-02T00:00:00Z or epoch ms", func(s string) (string, error) {
			t, err := parseAlarmTime(s, now())
			if err != nil {
				return "", err
			}
			return "due " + usertext.FormatTime(t) + " (" + widgets.RelativeTo(t, now(), "overdue by") + ")", nil
		})
	if reschedule {
		// The class and id name the alarm being moved: they stay.
		m.Form.Fix(0).Fix(1).FocusOn(2)
	} else if c.Class != "" {
		m.Form.FocusOn(1)
	}
	m.Form.SetWidth(m.rightInner())
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

// parseAlarmTime reads a due time (usertext.ParseTime): epoch
// milliseconds, an RFC 3339 time, "now", or a Go duration from now ("+30s",
// "-5m"), said in the form's words when it is none of them.
func parseAlarmTime(s string, now int64) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, errors.New("type a time: +30s, 2026-01-02T00:00:00Z or epoch ms")
	}
	ms, err := usertext.ParseTime(s, now)
	if errors.Is(err, usertext.ErrNotTime) {
		return 0, errors.New("want +30s, an RFC 3339 time like 2026-01-02T15:04:05Z, or epoch ms")
	}
	return ms, err
}

// askDelete asks to delete the selected alarm: both of its rows, or only
// the selected row when it is a stale or malformed due entry.
func (m *Model) askDelete() tea.Cmd {
	it, _ := m.item()
	c, _ := m.class()
	name := widgets.Sanitize(c.Class) + "/" + widgets.Sanitize(it.ID)
	if !it.byID && (!it.Matched || it.Problem != "") {
		kt := codec.Format(it.Key)
		return views.Confirm("Delete this due entry?", "delete", deleteAlarmRow(m.Store, m.Deps.Session, c.Class, it.ID, it.Key, it.Versionstamp),
			"Deletes only the row "+kt+" (a stale or malformed due entry of "+name+"),",
			"only if it is still at stamp "+it.Versionstamp+". The alarm's by-id record, if any, stays.")
	}
	return views.Confirm("Delete this alarm?", "delete", deleteAlarm(m.Store, m.Deps.Session, c.Class, it.ID),
		"Deletes the alarm "+name+" (due "+usertext.FormatTime(it.EpochMs)+"):",
		"its due entry and its by-id record, in one commit. It will not fire.")
}

// dueNow counts c's due entries that can fire at now.
func dueNow(c coord.AlarmClass, now int64) int {
	due := 0
	for _, d := range c.Due {
		if d.Problem == "" && d.EpochMs <= now {
			due++
		}
	}
	return due
}

// fireOff says why f cannot fire: no class selected, or nothing of it
// due now.
func (m Model) fireOff() string {
	c, ok := m.class()
	now := m.Deps.Now()
	switch {
	case !ok:
		return "select a class to fire its due alarms"
	case dueNow(c, now) == 0:
		return fmt.Sprintf("nothing of %s is due at %s", c.Class, usertext.FormatTime(now))
	}
	return ""
}

// askFire asks to fire the selected class's due alarms now.
func (m *Model) askFire() tea.Cmd {
	c, _ := m.class()
	now := m.Deps.Now()
	due := dueNow(c, now)
	return views.Confirm(fmt.Sprintf("Fire %d due alarm(s) of %s now?", due, c.Class), "fire", fireAlarms(m.Store, m.Deps.Session, c.Class, now, due),
		"Polls "+widgets.Sanitize(c.Class)+" once as a replica would: claims each due entry (check its stamp + delete), takes the object's lease, and clears the alarm when by-id still matches.",
		"No service handler runs: each fired alarm is consumed. Stale entries are claimed and dropped; an alarm whose lease is held elsewhere is re-posted at now.")
}
