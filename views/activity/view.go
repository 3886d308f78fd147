package activity

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views/widgets"
)

// activityNote says plainly what the feed cannot show. It is wrapped
// under the list onto the lines it needs (noteLines), taken from the
// list's rows, so that it reads whole at every width.
const activityNote = "Deletes issue no stamp: only rows kvdeck had read show as deleted or expired. A row written twice between two reads shows its last value."

// shown are the events the list shows, newest first: after the mark,
// under the filter.
func (m Model) shown() []event {
	out := make([]event, 0, len(m.f.events))
	for i := len(m.f.events) - 1; i >= 0; i-- {
		ev := m.f.events[i]
		if m.mark != nil && ev.n < m.mark.n {
			continue
		}
		if m.filter != nil && !bytes.HasPrefix(ev.raw, codec.MustEncode(m.filter)) {
			continue
		}
		out = append(out, ev)
	}
	return out
}

func (m Model) ids() []string {
	return widgets.IDs(m.shown(), func(ev event) string { return strconv.Itoa(ev.n) })
}

func (m Model) selected() (event, bool) { return widgets.Selected(m.list, m.shown()) }

// Layout: the feed on top, the selected event under it.
func (m Model) detailHeight() int { return min(max(m.height/3, 7), 12) }
func (m Model) listHeight() int   { return max(m.height-m.detailHeight(), 6) }
func (m Model) inner() int        { return m.width - m.styles.Pane.GetHorizontalFrameSize() }

// listRows: the pane less its frame, the title, the header, the filter
// line and the note's lines.
func (m Model) listRows() int {
	return max(m.listHeight()-m.styles.Pane.GetVerticalFrameSize()-3-len(m.noteLines()), 1)
}

// noteLines is the note wrapped to the pane.
func (m Model) noteLines() []string {
	return widgets.ProseLines(activityNote, m.styles.Muted, m.inner())
}

// eventColumns: KEY (keyColumn) grows to 48 cells, room for
// ["dwk_queue_due", "invoices", 17…46, "…d136"]: a long key is shortened
// part by part (widgets.KeyCell), so the queue and the due time that tell
// rows apart stay.
var eventColumns = []widgets.Column{
	{Title: "", Width: 2}, {Title: "STAMP", Width: 8, Right: true}, {Title: "WHAT", Width: 7},
	{Title: "KIND", Width: 6, Drop: 2}, {Title: "KEY", Width: 24, Grow: true, Max: 48, Middle: true},
	{Title: "CHANGE", Width: 0}, {Title: "SEEN", Width: 12, Drop: 1},
}

const keyColumn = 4

// View renders the feed and the selected event.
func (m Model) View() string {
	if m.width < 50 || m.height < 14 {
		return widgets.TooSmall
	}
	return m.listView() + "\n" + m.detailView()
}

func (m Model) title() string {
	st := m.styles
	t := st.PaneTitle.Render("ACTIVITY")
	switch {
	case !m.f.started && m.err == nil:
		return t + st.Muted.Render("  reading where seq stands…")
	case !m.f.started:
		return t
	}
	info := fmt.Sprintf("  seq %d", m.f.version.Seq)
	if m.f.version.Rows >= 0 { // a file counts none (a count walks the table)
		info += fmt.Sprintf(" · %d rows", m.f.version.Rows)
	}
	info += fmt.Sprintf(" · %d event(s)", len(m.f.events)+m.f.dropped)
	if m.mark != nil {
		info += fmt.Sprintf(" · marked at seq %d, %s: %d since", m.mark.seq, usertext.FormatTime(m.mark.at), len(m.f.events)+m.f.dropped-m.mark.n)
	}
	if m.behind {
		info += " · more to read at the next refresh"
	}
	if w := m.f.walk; w != nil {
		info += fmt.Sprintf(" · no index on ver: walking the table at a pace (%d rows read; kvdeck index add)", w.Windows()*store.ChangesWindowPaced)
	}
	if m.loading {
		info += " · reading…"
	}
	return t + st.Muted.Render(info)
}

func (m Model) listView() string {
	st := m.styles
	w := m.inner()
	lines := append([]string{widgets.FitWidth(m.title(), w)}, m.errLines(w)...)
	evs := m.shown()
	from, to := m.list.Window(len(evs), m.listRows())
	cells := make([][]widgets.Line, 0, to-from)
	for i := from; i < to; i++ {
		cells = append(cells, m.eventCells(evs[i], i == m.list.Cur))
	}
	t := widgets.FitTable(eventColumns, w, cells)
	for i := from; i < to; i++ {
		// Measured whole, drawn shortened by part to the column.
		if k := evs[i].key; k != nil {
			cells[i-from][keyColumn] = widgets.KeyCell(st, k, t.Width(keyColumn))
		}
	}
	lines = append(lines, t.Header(st))
	if len(evs) == 0 && m.f.started {
		text := "Nothing changed yet: writes show here as they happen (the tab reads the store when its seq or row count moves)."
		if m.mark != nil || m.filter != nil {
			text = "Nothing under the mark and the filter yet."
		}
		lines = append(lines, widgets.ProseLines(text, st.Muted, w)...)
	}
	for i := from; i < to; i++ {
		lines = append(lines, t.Row(st, cells[i-from], i == m.list.Cur, m.focused))
	}
	lines = widgets.FitTo(lines, m.listRows()+2)
	lines = append(append(lines, m.filterLine(w)), m.noteLines()...)
	return widgets.Pane(widgets.PaneBox(st, m.focused), strings.Join(lines, "\n"), m.width, m.listHeight())
}

// errLines say why the last read failed, under the title.
func (m Model) errLines(w int) []string {
	if m.err == nil {
		return nil
	}
	return widgets.ProseLines("✗ "+m.err.Error(), m.styles.Error, w)
}

// onClick selects the event a left click on its row picked: the rows
// start under the frame, the title, any error and the table's header.
func (m Model) onClick(y int) Model {
	if m.filtering {
		return m
	}
	top := m.styles.Pane.GetBorderTopSize() + 1 + len(m.errLines(m.inner())) + 1
	m.list.Click(y-top, m.ids(), m.listRows())
	return m
}

func (m Model) filterLine(w int) string {
	st := m.styles
	switch {
	case m.filtering && m.filterErr != "":
		return widgets.FitWidth(m.filterIn.View()+st.Error.Render("  ✗ "+m.filterErr), w)
	case m.filtering:
		return widgets.FitWidth(m.filterIn.View(), w)
	case m.filter != nil:
		return widgets.FitWidth(st.Accent.Render("/"+widgets.Sanitize(m.filterTxt))+st.Muted.Render(" (esc clears)"), w)
	}
	return ""
}

// oneLine is a value on one line, cut to n cells.
func oneLine(v []byte, n int) string {
	s := strings.Join(strings.Fields(string(v)), " ")
	return widgets.ClipText(widgets.Sanitize(s), n)
}

func (m Model) eventCells(ev event, selected bool) []widgets.Line {
	st := m.styles
	stamp, what, wst := strconv.FormatInt(ev.ver, 10), ev.kind.String(), st.OK
	change := widgets.Line{{Text: oneLine(ev.value, 40), Style: st.Text}}
	switch ev.kind {
	case evDeleted, evExpired:
		stamp, wst = "—", st.Warn
		change = widgets.Line{{Text: "was " + oneLine(ev.value, 36), Style: st.Muted}}
	default:
		if ev.hadOld {
			change = widgets.Line{{Text: oneLine(ev.old, 24), Style: st.Muted}, {Text: " → ", Style: st.Muted}, {Text: oneLine(ev.value, 30), Style: st.Text}}
		}
		if ev.before {
			what, wst = "earlier", st.Muted
		}
	}
	key := widgets.Line{{Text: "(undecodable) " + fmt.Sprintf("%x", ev.raw), Style: st.Warn}}
	if ev.key != nil {
		key = widgets.KeySpans(st, ev.key)
	}
	return []widgets.Line{
		{{Text: widgets.Gutter(selected), Style: st.Accent}},
		{{Text: stamp, Style: st.Muted}},
		{{Text: what, Style: wst}},
		{{Text: ev.record, Style: st.Text}},
		key,
		change,
		{{Text: widgets.ShortTimeCell(ev.seenAt, m.deps.Now()), Style: st.Muted}},
	}
}

// detailView shows the selected event whole.
func (m Model) detailView() string {
	st := m.styles
	w := m.inner()
	ev, ok := m.selected()
	var lines []string
	if !ok {
		lines = widgets.ProseLines("The selected change shows here: its key, stamp, the value before (when kvdeck had read it) and after. enter shows the key in Browse; m marks a point; / filters by key prefix.", st.Muted, w)
	} else {
		if ev.key != nil {
			lines = append(lines, widgets.FieldLine(st, "key", widgets.KeySpans(st, ev.key), w)...)
		} else {
			lines = append(lines, widgets.FieldLine(st, "key", widgets.Line{{Text: fmt.Sprintf("(undecodable) %x", ev.raw), Style: st.Warn}}, w)...)
		}
		what := ev.kind.String() + " · " + ev.record
		switch ev.kind {
		case evSet:
			what += " · stamp " + codec.FormatStamp(ev.ver)
		case evDeleted:
			what += " · last seen with stamp " + codec.FormatStamp(ev.ver) + " (a delete issues no stamp)"
		case evExpired:
			what += " · its expiry " + usertext.FormatTime(*ev.expiry) + " passed (stamp " + codec.FormatStamp(ev.ver) + ")"
		}
		lines = append(lines, widgets.FieldLine(st, "what", widgets.Line{{Text: what, Style: st.Text}}, w)...)
		lines = append(lines, widgets.FieldLine(st, "seen", widgets.Line{{Text: usertext.FormatTime(ev.seenAt), Style: st.Text}}, w)...)
		if ev.kind == evSet {
			before := "not read by kvdeck before"
			if ev.hadOld {
				before = oneLine(ev.old, 4*w)
			}
			lines = append(lines, widgets.FieldLine(st, "before", widgets.Line{{Text: before, Style: st.Muted}}, w)...)
			lines = append(lines, widgets.FieldLine(st, "after", widgets.Line{{Text: oneLine(ev.value, 4*w), Style: st.Text}}, w)...)
		} else {
			lines = append(lines, widgets.FieldLine(st, "was", widgets.Line{{Text: oneLine(ev.value, 4*w), Style: st.Muted}}, w)...)
		}
	}
	return widgets.Pane(st.Pane, strings.Join(widgets.FitTo(lines, m.detailHeight()-2), "\n"), m.width, m.detailHeight())
}
