package alarms

import (
	"fmt"

	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// lowerLines is the bottom of the right pane: the form, the last fire or
// the selected alarm, then the hint and the note, detailRows()+2 lines.
func (m Model) lowerLines(c coord.AlarmClass, w int) []string {
	st := m.Styles
	var body []string
	switch {
	case m.Form != nil:
		body = m.Form.View(w)
	case m.fired != nil && m.fired.class == c.Class:
		body = m.fireLines(w)
	default:
		if it, ok := m.item(); ok && m.lists.OnItems {
			body = m.alarmDetail(c, it, w)
		} else {
			body = widgets.ProseLines("→ or enter moves to the class's alarms; the detail of the selected one shows here.", st.Muted, w)
		}
	}
	hint := m.Hint("n set · e reschedule / re-post · d delete · f fire due now · ←/→ classes / alarms", w)
	if m.Form != nil {
		hint = ""
	}
	body = widgets.FitTo(body, m.detailRows())
	return append(body, m.folds().Footer(st, hint, alarmsNote, w)...)
}

// alarmDetail describes the selected alarm: its row, what by-id says and
// its findings.
func (m Model) alarmDetail(c coord.AlarmClass, it alarmItem, w int) []string {
	st := m.Styles
	out := widgets.FieldLine(st, "key", widgets.KeySpans(st, it.Key), w)
	out = append(out, widgets.FieldLine(st, "stamp", widgets.Line{{Text: it.Versionstamp, Style: st.Text}}, w)...)
	rec := fmt.Sprintf("due %s · retry %d of %d", usertext.FormatTime(it.EpochMs), it.RetryCount, coord.MaxAlarmRetries)
	out = append(out, widgets.FieldLine(st, "record", widgets.Line{{Text: rec, Style: st.Text}}, w)...)
	if !it.byID && it.Problem == "" {
		out = append(out, widgets.FieldLine(st, "by-id", m.byIDLine(c, it), w)...)
	}
	if it.Problem != "" {
		out = append(out, widgets.FieldLine(st, "problem", widgets.Line{{Text: widgets.Sanitize(it.Problem), Style: st.Warn}}, w)...)
	}
	return append(out, coordkit.FindingLines(st, m.finds.Of(it.Key), w, false)...)
}

// byIDLine says whether the by-id record backs a due entry.
func (m Model) byIDLine(c coord.AlarmClass, it alarmItem) widgets.Line {
	st := m.Styles
	for _, b := range c.ByID {
		if b.ID != it.ID || b.Problem != "" {
			continue
		}
		if it.Matched {
			return widgets.Line{{Text: "✓ matches: this entry is the alarm's one slot", Style: st.OK}}
		}
		return widgets.Line{{Text: fmt.Sprintf("says due %s, retry %d: this entry is stale", usertext.FormatTime(b.EpochMs), b.RetryCount), Style: st.Warn}}
	}
	return widgets.Line{{Text: "none: this entry is an orphan (a poller claims it and drops it)", Style: st.Warn}}
}

// fireLines reports the last fire of the class: one line per due entry.
func (m Model) fireLines(w int) []string {
	st := m.Styles
	r := m.fired
	out := coordkit.TitleAndSummary(st, "FIRED AT "+usertext.FormatTime(r.at), fireSummary(r.firings, r.asked)+" · no handler ran", w)
	for _, f := range r.firings {
		style := st.OK
		switch f.Outcome {
		case coord.AlarmFired:
		case coord.AlarmReposted, coord.AlarmLost, coord.AlarmSuperseded:
			style = st.Warn
		default:
			style = st.Error
		}
		text := fmt.Sprintf("%-17s %s  due %s  retry %d", f.Outcome, widgets.Sanitize(f.ID), widgets.TableTime(f.EpochMs), f.RetryCount)
		out = append(out, style.Render(widgets.FitWidth(text, w)))
		if f.Outcome == coord.AlarmReposted {
			out = append(out, widgets.HangingLines(widgets.Sanitize(fmt.Sprintf("  → re-posted at %s: %v", widgets.TableTime(f.Next), f.Err)), style, w, 4)...)
		}
	}
	if r.err != nil {
		out = append(out, widgets.ProseLines("✗ stopped: "+r.err.Error(), st.Error, w)...)
	}
	return append(out, st.Muted.Render("(moving the cursor returns to the alarm's detail)"))
}
