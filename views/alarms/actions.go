package alarms

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// handleLists handles keys while the class list or the alarm list has
// them.
func (m Model) handleLists(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.keys
	// Closures, not method values: they must read m after the move.
	if m.lists.Nav(msg, k.NavKeys, m.classIDs(), m.alarmIDs(), func() { m.fired = nil }) ||
		m.lists.Side(msg, k.Classes, k.Entries, len(m.items()) > 0) {
		return m, nil
	}
	if m, cmd, ok := m.handleFilter(msg); ok {
		return m, cmd
	}
	switch {
	case key.Matches(msg, k.Reload):
		return m.Refresh()
	case key.Matches(msg, k.Browse):
		row, ok := m.Selected()
		return m, coordkit.ShowInBrowse(row, ok, "an alarm")
	case key.Matches(msg, k.Set):
		m.openForm(false)
	case key.Matches(msg, k.Reschedule):
		return m, m.startReschedule()
	case key.Matches(msg, k.Delete):
		return m, m.askDelete()
	case key.Matches(msg, k.Fire):
		return m, m.askFire()
	case key.Matches(msg, k.Mark, k.MarkAll, k.Bulk):
		return m.handleMark(msg)
	default:
		return m, m.keys.Writes().Refuse(m.ReadOnly, msg)
	}
	return m, nil
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

// startReschedule opens the form on the selected alarm.
func (m *Model) startReschedule() tea.Cmd {
	it, ok := m.item()
	switch {
	case !ok || !m.lists.OnItems:
		return views.Flash(views.FlashInfo, "select an alarm (→ moves to the class's alarms) to reschedule it; n sets a new one")
	case it.Problem != "":
		return views.Flash(views.FlashError, "this row has an unexpected shape; d deletes it, s sets the alarm afresh")
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
func (m Model) askDelete() tea.Cmd {
	it, ok := m.item()
	if !ok || !m.lists.OnItems {
		return views.Flash(views.FlashInfo, "select an alarm (→ moves to the class's alarms) to delete it")
	}
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

// askFire asks to fire the selected class's due alarms now.
func (m Model) askFire() tea.Cmd {
	c, ok := m.class()
	if !ok {
		return views.Flash(views.FlashInfo, "select a class to fire its due alarms")
	}
	now := m.Deps.Now()
	due := 0
	for _, d := range c.Due {
		if d.Problem == "" && d.EpochMs <= now {
			due++
		}
	}
	if due == 0 {
		return views.Flash(views.FlashInfo, "nothing of %s is due at %s", c.Class, usertext.FormatTime(now))
	}
	return views.Confirm(fmt.Sprintf("Fire %d due alarm(s) of %s now?", due, c.Class), "fire", fireAlarms(m.Store, m.Deps.Session, c.Class, now, due),
		"Polls "+widgets.Sanitize(c.Class)+" once as a replica would: claims each due entry (check its stamp + delete), takes the object's lease, and clears the alarm when by-id still matches.",
		"No service handler runs: each fired alarm is consumed. Stale entries are claimed and dropped; an alarm whose lease is held elsewhere is re-posted at now.")
}
