package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/store/coord"
)

// alarmsNote is said plainly under the alarms: what no look can show.
const alarmsNote = "An alarm dropped after its last failed retry leaves no trace: no view can show it."

// Layout: classes on the left; on the right the time line, the alarms,
// and the selected alarm (or the form, or the last fire).
func (m Alarms) leftWidth() int  { return min(max(m.width*2/9, 22), 30) }
func (m Alarms) rightWidth() int { return m.width - m.leftWidth() }
func (m Alarms) rightInner() int { return m.rightWidth() - m.styles.Pane.GetHorizontalFrameSize() }
func (m Alarms) innerHeight() int {
	return m.height - m.styles.Pane.GetVerticalFrameSize()
}
func (m Alarms) classRows() int { return max(m.innerHeight()-2, 1) }
func (m Alarms) detailRows() int {
	n := min(10, max(m.innerHeight()/3, 4))
	if m.form != nil {
		n = max(n, len(m.form.view(m.rightInner())))
	}
	return n
}

// entryRows: the right pane less the title, the time line (3), the
// header, the rule, the detail, the hint and the note.
func (m Alarms) entryRows() int { return max(m.innerHeight()-8-m.detailRows(), 1) }

// alarmColumns are the alarm list's columns; the id takes the spare room;
// the retry count and the due time give way on narrow screens (lateness
// stays; the detail shows both).
var alarmColumns = []tableColumn{
	{title: "", width: 2}, {title: "DUE AT (UTC)", width: 18, drop: 2}, {title: "", width: 10},
	{title: "ID", width: 0}, {title: "RETRY", width: 5, drop: 1}, {title: "FLAGS", width: 18},
}

// View renders the classes and the selected class.
func (m Alarms) View() string {
	if m.width < 50 || m.height < 14 {
		return "window too small"
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, m.classesView(), m.classView())
}

// classesView renders the left pane.
func (m Alarms) classesView() string {
	st := m.styles
	w := m.leftWidth() - st.Pane.GetHorizontalFrameSize()
	lines := []string{spread(st.PaneTitle.Render("CLASSES"), st.Muted.Render(fmt.Sprint(len(m.classes))), w)}
	switch {
	case m.err != nil:
		lines = append(lines, proseLines("✗ "+m.err.Error(), st.Error, w)...)
	case !m.loaded:
		lines = append(lines, st.Muted.Render("loading…"))
	case len(m.classes) == 0:
		lines = append(lines, proseLines("No alarms: no due entry and no by-id record.", st.Muted, w)...)
	}
	from, to := m.classList.window(len(m.classes), m.classRows())
	active := m.focused && !m.onEntries && m.form == nil
	for i := from; i < to; i++ {
		lines = append(lines, m.classLine(m.classes[i], i == m.classList.cur, active, w))
	}
	box := st.Pane
	if active {
		box = st.PaneFocused
	}
	return Pane(box, strings.Join(lines, "\n"), m.leftWidth(), m.height)
}

// classLine is one class: its name, due entries and findings.
func (m Alarms) classLine(c coord.AlarmClass, selected, active bool, w int) string {
	st := m.styles
	errs, warns := 0, 0
	for _, it := range classItems(c) {
		switch worstSeverity(m.finds[codec.Format(it.Key)]) {
		case coord.SeverityError:
			errs++
		case coord.SeverityWarning:
			warns++
		}
	}
	right := line{{fmt.Sprintf("%d due", len(c.Due)), st.Count}}
	if errs > 0 {
		right = append(right, span{fmt.Sprintf(" ✗%d", errs), st.Error})
	}
	if warns > 0 {
		right = append(right, span{fmt.Sprintf(" ⚠%d", warns), st.Warn})
	}
	name := gutter(selected) + " " + sanitize(c.Class)
	switch {
	case selected && active:
		return st.Selected.Render(spread(name, right.render(true), w))
	case selected:
		return st.Bold.Render(spread(name, right.render(true), w))
	}
	return spread(name, right.render(false), w)
}

// classView renders the right pane.
func (m Alarms) classView() string {
	st := m.styles
	w := m.rightInner()
	c, ok := m.class()
	if !ok {
		return Pane(st.Pane, st.Muted.Render("Select a class on the left."), m.rightWidth(), m.height)
	}
	now := m.deps.Now()
	items := classItems(c)
	lines := []string{spread(st.PaneTitle.Render(strings.ToUpper(sanitize(c.Class)))+"  "+m.classSummary(c, now), m.position(len(items)), w)}
	lines = append(lines, m.timelineLines(items, now, w)...)
	t := newColumnTable(alarmColumns, w)
	lines = append(lines, t.header(st))
	from, to := m.entryList.window(len(items), m.entryRows())
	active := m.focused && m.onEntries && m.form == nil
	for i := from; i < to; i++ {
		lines = append(lines, t.row(st, m.alarmCells(items[i], now, i == m.entryList.cur), i == m.entryList.cur, active))
	}
	for len(lines) < 5+m.entryRows() {
		lines = append(lines, "")
	}
	lines = append(lines, st.Muted.Render(strings.Repeat("─", w)))
	lines = append(lines, m.lowerLines(c, w)...)
	box := st.Pane
	if active || m.form != nil {
		box = st.PaneFocused
	}
	return Pane(box, strings.Join(lines, "\n"), m.rightWidth(), m.height)
}

// classSummary counts due entries, late ones and by-id records at now.
func (m Alarms) classSummary(c coord.AlarmClass, now int64) string {
	late := 0
	for _, d := range c.Due {
		if d.EpochMs <= now {
			late++
		}
	}
	st := m.styles
	text := st.Muted.Render(fmt.Sprintf("%d due entr%s · ", len(c.Due), plural(len(c.Due), "y", "ies")))
	lateStyle := st.Muted
	if late > 0 {
		lateStyle = st.Warn
	}
	return text + lateStyle.Render(fmt.Sprintf("%d overdue", late)) + st.Muted.Render(fmt.Sprintf(" · %d by-id record(s)", len(c.ByID)))
}

// position is "3/7" for the alarm list.
func (m Alarms) position(n int) string {
	if n == 0 {
		return ""
	}
	return m.styles.Muted.Render(fmt.Sprintf("%d/%d", m.entryList.cur+1, n))
}

// timelineLines draws the class's alarms on a time line with now.
func (m Alarms) timelineLines(items []alarmItem, now int64, w int) []string {
	marks := make([]timelineMark, 0, len(items))
	for i, it := range items {
		if it.Problem != "" {
			continue // its time cannot be read
		}
		glyph, style, rank := m.alarmGlyph(it, now)
		marks = append(marks, timelineMark{at: it.EpochMs, glyph: glyph, style: style, rank: rank, selected: m.onEntries && i == m.entryList.cur})
	}
	return timeline(m.styles, now, marks, w)
}

// alarmGlyph is how an alarm shows on the time line: ✗ never fires,
// ◆ poison, ○ stale or malformed, ● due (late ones in warning colour).
func (m Alarms) alarmGlyph(it alarmItem, now int64) (string, lipgloss.Style, int) {
	st := m.styles
	switch {
	case it.byID && it.Problem == "":
		return "✗", st.Error, 4
	case it.Poison:
		return "◆", st.Error, 3
	case it.Problem != "" || !it.Matched || it.dupes > 1:
		return "○", st.Warn, 2
	case it.EpochMs <= now:
		return "●", st.Warn, 1
	}
	return "●", st.Accent, 0
}

// alarmCells are one alarm's cells at now.
func (m Alarms) alarmCells(it alarmItem, now int64, selected bool) []line {
	st := m.styles
	glyph, gstyle, _ := m.alarmGlyph(it, now)
	retry := fmt.Sprint(it.RetryCount)
	if it.Poison {
		retry = fmt.Sprintf("%d/%d", it.RetryCount, coord.MaxAlarmRetries)
	}
	at, rel := tableTime(it.EpochMs), relativeTo(it.EpochMs, now, "late")
	relStyle := st.Muted
	switch {
	case it.Problem != "":
		at, rel = "?", ""
	case it.byID:
		rel = ""
	case it.EpochMs <= now && msDur(now-it.EpochMs) > coord.PollerGrace:
		relStyle = st.Warn
	}
	return []line{
		{{gutter(selected) + glyph, gstyle}},
		{{at, st.Text}},
		{{rel, relStyle}},
		{{sanitize(it.ID), st.Text}},
		{{retry, st.Text}},
		m.alarmFlags(it, now),
	}
}

// alarmFlags names what is wrong with an alarm, worst first.
func (m Alarms) alarmFlags(it alarmItem, now int64) line {
	st := m.styles
	var out line
	add := func(text string, style lipgloss.Style) {
		if len(out) > 0 {
			out = append(out, span{" ", st.Text})
		}
		out = append(out, span{text, style})
	}
	switch {
	case it.Problem != "":
		add("malformed", st.Warn)
	case it.byID:
		add("never-fires", st.Error)
	case !it.Matched:
		add("orphan", st.Warn)
	}
	if it.dupes > 1 {
		add(fmt.Sprintf("duplicate×%d", it.dupes), st.Warn)
	}
	if it.Poison {
		add("poison", st.Error)
	}
	if !it.byID && it.Problem == "" && it.EpochMs <= now {
		add("overdue", st.Warn)
	}
	return out
}

// plural picks the singular or plural ending for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
