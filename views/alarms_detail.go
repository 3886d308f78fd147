package views

import (
	"fmt"

	"kvdeck/codec"
	"kvdeck/store/coord"
)

// lowerLines is the bottom of the right pane: the form, the last fire or
// the selected alarm, then the hint and the note, detailRows()+2 lines.
func (m Alarms) lowerLines(c coord.AlarmClass, w int) []string {
	st := m.styles
	var body []string
	switch {
	case m.form != nil:
		body = m.form.view(w)
	case m.fired != nil && m.fired.class == c.Class:
		body = m.fireLines(w)
	default:
		if it, ok := m.item(); ok && m.onEntries {
			body = m.alarmDetail(c, it, w)
		} else {
			body = proseLines("→ or enter moves to the class's alarms; the detail of the selected one shows here.", st.Muted, w)
		}
	}
	hint := st.Muted.Render(FitWidth("s set · e reschedule / re-post · d delete · f fire due now · ←/→ classes / alarms", w))
	if m.readOnly {
		hint = st.Warn.Render(FitWidth(readOnlyNote, w))
	}
	if m.form != nil {
		hint = ""
	}
	body = append(fitTo(body, m.detailRows()), hint)
	return append(body, st.Muted.Render(FitWidth(alarmsNote, w)))
}

// alarmDetail describes the selected alarm: its row, what by-id says and
// its findings.
func (m Alarms) alarmDetail(c coord.AlarmClass, it alarmItem, w int) []string {
	st := m.styles
	out := fieldLine(st, "key", keySpans(st, it.Key), w)
	out = append(out, fieldLine(st, "stamp", line{{it.Versionstamp, st.Text}}, w)...)
	rec := fmt.Sprintf("due %s · retry %d of %d", rfcTime(it.EpochMs), it.RetryCount, coord.MaxAlarmRetries)
	out = append(out, fieldLine(st, "record", line{{rec, st.Text}}, w)...)
	if !it.byID && it.Problem == "" {
		out = append(out, fieldLine(st, "by-id", m.byIDLine(c, it), w)...)
	}
	if it.Problem != "" {
		out = append(out, fieldLine(st, "problem", line{{sanitize(it.Problem), st.Warn}}, w)...)
	}
	return append(out, findingLines(st, m.finds[codec.Format(it.Key)], w, false)...)
}

// byIDLine says whether the by-id record backs a due entry.
func (m Alarms) byIDLine(c coord.AlarmClass, it alarmItem) line {
	st := m.styles
	for _, b := range c.ByID {
		if b.ID != it.ID || b.Problem != "" {
			continue
		}
		if it.Matched {
			return line{{"✓ matches: this entry is the alarm's one slot", st.OK}}
		}
		return line{{fmt.Sprintf("says due %s, retry %d: this entry is stale", rfcTime(b.EpochMs), b.RetryCount), st.Warn}}
	}
	return line{{"none: this entry is an orphan (a poller claims it and drops it)", st.Warn}}
}

// fireLines reports the last fire of the class: one line per due entry.
func (m Alarms) fireLines(w int) []string {
	st := m.styles
	r := m.fired
	out := []string{st.PaneTitle.Render("FIRED AT "+rfcTime(r.at)) + st.Muted.Render(" · "+fireSummary(r.firings)+" · no handler ran")}
	for _, f := range r.firings {
		style := st.OK
		switch f.Outcome {
		case coord.AlarmFired:
		case coord.AlarmReposted, coord.AlarmLost, coord.AlarmSuperseded:
			style = st.Warn
		default:
			style = st.Error
		}
		text := fmt.Sprintf("%-17s %s  due %s  retry %d", f.Outcome, sanitize(f.ID), tableTime(f.EpochMs), f.RetryCount)
		out = append(out, style.Render(FitWidth(text, w)))
		if f.Outcome == coord.AlarmReposted {
			out = append(out, hangingLines(sanitize(fmt.Sprintf("  → re-posted at %s: %v", tableTime(f.Next), f.Err)), style, w, 4)...)
		}
	}
	if r.err != nil {
		out = append(out, proseLines("✗ stopped: "+r.err.Error(), st.Error, w)...)
	}
	return append(out, st.Muted.Render("(moving the cursor returns to the alarm's detail)"))
}
