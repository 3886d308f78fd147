package activity

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
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
	var prefix []byte
	if m.filter != nil {
		prefix = codec.MustEncode(m.filter)
	}
	word := strings.ToLower(strings.TrimSpace(m.filterTxt))
	for i := len(m.f.events) - 1; i >= 0; i-- {
		ev := m.f.events[i]
		if m.mark != nil && ev.n < m.mark.n {
			continue
		}
		if m.filter != nil && !bytes.HasPrefix(ev.raw, prefix) {
			continue
		}
		if m.filter == nil && word != "" && !strings.Contains(strings.ToLower(ev.text), word) {
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

// Layout: the feed on top, the selected event under it. The list keeps
// at least minRows rows: the note folds away first, then the detail
// shrinks to its essential fields (key, what, before and after).
const minRows = 5

func (m Model) inner() int { return m.width - m.styles.Pane.GetHorizontalFrameSize() }

// layout returns the detail pane's height, the list's rows and the note's
// lines (nil when folded away).
func (m Model) layout() (detail, rows int, note []string) {
	fixed := m.styles.Pane.GetVerticalFrameSize() + 2 + len(m.errLines(m.inner())) // title, header
	if m.filtering || m.filterTxt != "" {
		fixed++ // the filter line
	}
	if len(m.f.events) > 0 && m.f.dropped > 0 {
		fixed++ // the dropped line under the oldest kept
	}
	detail = min(max(m.height/3, 7), 12)
	rows = m.height - detail - fixed
	if rows < minRows {
		detail = max(m.height-fixed-minRows, 4)
		rows = m.height - detail - fixed
	}
	if note = m.noteLines(); rows-len(note) < minRows {
		note = nil
	}
	return detail, max(rows-len(note), 1), note
}

func (m Model) detailHeight() int { d, _, _ := m.layout(); return d }
func (m Model) listHeight() int   { return m.height - m.detailHeight() }

// listRows is the number of event rows the list shows.
func (m Model) listRows() int { _, r, _ := m.layout(); return r }

// noteLines is the note wrapped to the pane.
func (m Model) noteLines() []string {
	note := activityNote
	switch {
	case m.odd > 0:
		note += fmt.Sprintf(" %d row(s) with a malformed stamp (ver not a whole number) are never in this feed: kvdeck doctor counts them.", m.odd)
	case m.odd < 0:
		note += " Rows with a malformed stamp (ver not a whole number) are never in this feed; whether there are any is not known (kvdeck doctor counts them)."
	}
	return widgets.ProseLines(note, m.styles.Muted, m.inner())
}

// eventColumns: fixed widths, whatever the rows in view (Keep), so that
// the columns do not jump as rows scroll. STAMP is as wide as seq's
// digits, KEY as the widest key kept (up to keyMax cells, room for
// ["dwk_queue_due", "invoices", 17…46, "…d136"]: a long key is shortened
// part by part, widgets.KeyCell, so the queue and the due time that tell
// rows apart stay), and CHANGE takes the rest: at least changeMin cells,
// for which SEEN, then KIND, then KEY's width give way, but never below
// what the keys need to read (widgets.KeyCellMin): a CHANGE cut to a
// few cells tells less than the key, and the detail below shows it.
var eventColumns = []widgets.Column{
	{Title: "", Width: 2, Keep: true}, {Title: "STAMP", Width: 5, Right: true, Keep: true}, {Title: "WHAT", Width: 7, Keep: true},
	{Title: "KIND", Width: 6, Drop: 2, Keep: true}, {Title: "KEY", Width: 24, Keep: true, Middle: true},
	{Title: "CHANGE", Width: 0, Min: changeMin}, {Title: "SEEN", Width: 12, Drop: 1, Keep: true},
}

const (
	stampColumn  = 1
	keyColumn    = 4
	changeColumn = 5
	keyMax       = 48
	keyMin       = 16
	changeMin    = 16
)

// table lays the columns out in w cells (see eventColumns).
func (m Model) table(w int) widgets.Table {
	cols := append([]widgets.Column(nil), eventColumns...)
	cols[stampColumn].Width = max(len(strconv.FormatInt(m.f.c.Version().Seq, 10)), cols[stampColumn].Width)
	cols[keyColumn].Width = min(max(m.f.keyW, 3), keyMax)
	t := widgets.NewTable(cols, w)
	least := min(max(m.f.keyLeast, keyMin), cols[keyColumn].Width)
	if short := changeMin - t.FlexW; short > 0 && cols[keyColumn].Width > least {
		cols[keyColumn].Width = max(cols[keyColumn].Width-short, least)
		t = widgets.NewTable(cols, w)
	}
	return t
}

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
	info := fmt.Sprintf("  seq %d", m.f.c.Version().Seq)
	if m.f.c.Version().Rows >= 0 { // a file counts none (a count walks the table)
		info += fmt.Sprintf(" · %d rows", m.f.c.Version().Rows)
	}
	if m.f.dropped > 0 {
		info += fmt.Sprintf(" · newest %d of %d event(s) kept", len(m.f.events), len(m.f.events)+m.f.dropped)
	} else {
		info += fmt.Sprintf(" · %d event(s)", len(m.f.events))
	}
	if m.mark != nil {
		info += fmt.Sprintf(" · marked at seq %d, %s: %d since", m.mark.seq, usertext.FormatTime(m.mark.at), len(m.f.events)+m.f.dropped-m.mark.n)
	}
	if m.marks.Len() > 0 {
		info += " · " + m.marks.Indicator()
	}
	if m.behind {
		info += fmt.Sprintf(" · catching up: read to stamp %d", m.f.c.After())
	}
	if w := m.f.c.Walk(); w != nil {
		info += fmt.Sprintf(" · no index on ver: walking the table at a pace (%d rows read; kvdeck index add)", w.Windows()*store.ChangesWindowPaced)
	}
	switch {
	case m.pinned && m.list.Cur > 0:
		info += fmt.Sprintf(" · pinned, %d newer (g follows)", m.list.Cur)
	case m.pinned:
		info += " · pinned (g follows)"
	case len(m.f.events) > 0:
		info += " · following"
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
	t := m.table(w)
	for i := from; i < to; i++ {
		// Drawn shortened by part to the column; values to theirs.
		if k := evs[i].key; k != nil {
			cells[i-from][keyColumn] = widgets.KeyCell(st, k, t.Width(keyColumn))
		}
		cells[i-from][changeColumn] = m.changeCell(evs[i], t.Width(changeColumn))
	}
	lines = append(lines, t.Header(st))
	if len(evs) == 0 && m.f.started {
		text := "Nothing changed yet: writes show here as they happen (the tab reads the store when its seq or row count moves)."
		if m.mark != nil || m.filterTxt != "" {
			text = "Nothing under the mark and the filter yet."
		}
		lines = append(lines, widgets.ProseLines(text, st.Muted, w)...)
	}
	for i := from; i < to; i++ {
		lines = append(lines, t.Row(st, cells[i-from], i == m.list.Cur, m.focused))
	}
	_, rows, note := m.layout()
	lines = widgets.FitTo(lines, rows+2+len(m.errLines(w)))
	if len(m.f.events) > 0 && m.f.dropped > 0 {
		// Under the oldest event kept: G stops here, and says why.
		text := ""
		if to == len(evs) {
			text = fmt.Sprintf("%d older event(s) dropped: the tab keeps the newest %d", m.f.dropped, maxEvents)
		}
		lines = append(lines, widgets.FitWidth(st.Muted.Render(text), w))
	}
	if m.filtering || m.filterTxt != "" {
		lines = append(lines, m.filterLine(w))
	}
	lines = append(lines, note...)
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
	if m.list.Click(y-top, m.ids(), m.listRows()) {
		m.pinned, m.movedAt = true, time.Time{} // a row clicked is one being read
	}
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
		return widgets.FitWidth(st.Accent.Render("/"+widgets.Sanitize(m.filterTxt))+st.Muted.Render(views.Hint(" keys under this prefix (%s clears)", m.keys.Clear)), w)
	case m.filterTxt != "":
		return widgets.FitWidth(st.Accent.Render("/"+widgets.Sanitize(m.filterTxt))+st.Muted.Render(views.Hint(" keys holding this text (%s clears)", m.keys.Clear)), w)
	}
	return ""
}

// oneLine is a value on one line, cut to n cells (only its head is read:
// a 1 MB value costs no more than a short one).
func oneLine(v []byte, n int) string {
	if limit := 16*max(n, 1) + 64; len(v) > limit {
		v = v[:limit]
	}
	s := strings.Join(strings.Fields(string(v)), " ")
	return widgets.ClipText(widgets.Sanitize(s), n)
}

func (m Model) eventCells(ev event, selected bool) []widgets.Line {
	st := m.styles
	stamp, what, wst := strconv.FormatInt(ev.ver, 10), ev.kind.String(), st.OK
	change := widgets.Line{} // drawn to the column's width (changeCell)
	switch ev.kind {
	case evDeleted, evExpired:
		stamp, wst = "—", st.Warn
	default:
		if ev.before {
			what, wst = "earlier", st.Muted
		}
		if ev.odd != "" {
			stamp, wst = "—", st.Warn
		}
	}
	key := widgets.Line{{Text: "(undecodable) " + fmt.Sprintf("%x", ev.raw), Style: st.Warn}}
	if ev.key != nil {
		key = widgets.KeySpans(st, ev.key)
	}
	return []widgets.Line{
		{{Text: widgets.Gutter(selected), Style: st.Accent}, {Text: m.marks.Glyph(markID(ev)), Style: st.Accent}},
		{{Text: stamp, Style: st.Muted}},
		{{Text: what, Style: wst}},
		{{Text: ev.record, Style: st.Text}},
		key,
		change,
		{{Text: widgets.ShortTimeCell(ev.seenAt, m.deps.Now()), Style: st.Muted}},
	}
}

// changeCell is the CHANGE column's cell, cut to its width w: the value,
// old → new (the old value takes at most two fifths), or what a vanished
// row was.
func (m Model) changeCell(ev event, w int) widgets.Line {
	st := m.styles
	switch {
	case ev.kind != evSet:
		return widgets.Line{{Text: "was " + oneLine(ev.value, max(w-4, 1)), Style: st.Muted}}
	case ev.hadOld:
		old := oneLine(ev.old, max((w-3)*2/5, 1))
		return widgets.Line{{Text: old, Style: st.Muted}, {Text: " → ", Style: st.Muted}, {Text: oneLine(ev.value, max(w-3-ansi.StringWidth(old), 1)), Style: st.Text}}
	}
	return widgets.Line{{Text: oneLine(ev.value, max(w, 1)), Style: st.Text}}
}

// detailField is one field of the detail pane: line draws its value in
// about cells cells (wrapped), or block draws it in at most n lines of
// the value's column (the diff).
type detailField struct {
	label string
	line  func(cells int) widgets.Line
	block func(n int) []widgets.Line
}

// diffMemo keeps the diff of the last event the detail drew: a diff
// normalizes both values, so it is made once per event, not per frame.
type diffMemo struct {
	n  int
	ok bool
	d  widgets.ValueDiff
}

// valueDiff is the structural diff of ev's value before and after.
func (m Model) valueDiff(ev event) widgets.ValueDiff {
	if m.diffs == nil {
		return widgets.NewValueDiff(ev.old, ev.value)
	}
	if !m.diffs.ok || m.diffs.n != ev.n {
		*m.diffs = diffMemo{n: ev.n, ok: true, d: widgets.NewValueDiff(ev.old, ev.value)}
	}
	return m.diffs.d
}

// lines is how many lines f takes at most n lines, in w cells.
func (f detailField) lines(st themes.Styles, n, cells, w int) int {
	if f.block != nil {
		return len(f.block(n))
	}
	return min(n, len(widgets.FieldLine(st, f.label, f.line(4*cells), w)))
}

// draw is f in n lines of w cells.
func (f detailField) draw(st themes.Styles, n, cells, w int) []string {
	if f.block == nil {
		fl := widgets.FieldLine(st, f.label, f.line(n*cells), w)
		return fl[:min(n, len(fl))]
	}
	var out []string
	for i, l := range f.block(n) {
		label := ""
		if i == 0 {
			label = f.label
		}
		out = append(out, widgets.FieldLine(st, label, l, w)[0])
	}
	return out
}

// detailSteps share the detail pane's lines out, in turn: a step raises a
// field to that many lines (need: all it needs, a value up to four
// lines' worth) while lines are left. The essential fields come first
// (key, what, then the change by path, up to three lines, or the value
// after, or what a vanished row was), then before and seen; a field
// that got no line is left out.
var detailSteps = []struct {
	label string
	lines int
}{
	{"key", 1}, {"what", 1}, {"change", 3}, {"after", 1}, {"was", 1}, {"what", 2}, {"before", 1}, {"seen", 1},
	{"change", need}, {"after", need}, {"was", need}, {"key", need}, {"before", need}, {"what", need},
}

const need = 1 << 20

// detailView shows the selected event: at every size its key, what
// happened (kind, record, stamp) and the value after (or what a vanished
// row was), then the value before and when it was seen as room allows.
func (m Model) detailView() string {
	st := m.styles
	w := m.inner()
	n := m.detailHeight() - st.Pane.GetVerticalFrameSize()
	ev, ok := m.selected()
	var lines []string
	if !ok {
		lines = widgets.ProseLines("The selected change shows here: its key, stamp, the value before (when kvdeck had read it) and after. "+
			views.Hint("%s shows the key in Browse; %s marks a point to show changes since; %s filters by a word or a key prefix.", m.keys.Browse, m.keys.Mark, m.keys.Filter), st.Muted, w)
	} else {
		lines = m.detailLines(ev, w, n)
	}
	return widgets.Pane(st.Pane, strings.Join(widgets.FitTo(lines, n), "\n"), m.width, m.detailHeight())
}

// detailLines lays the fields of ev out on n lines of w cells.
func (m Model) detailLines(ev event, w, n int) []string {
	st := m.styles
	text := func(s string, style lipgloss.Style) func(int) widgets.Line {
		return func(int) widgets.Line { return widgets.Line{{Text: s, Style: style}} }
	}
	value := func(v []byte, style lipgloss.Style) func(int) widgets.Line {
		return func(cells int) widgets.Line { return widgets.Line{{Text: oneLine(v, cells), Style: style}} }
	}
	key := text(ev.text, st.Warn)
	if ev.key != nil {
		key = func(int) widgets.Line { return widgets.KeySpans(st, ev.key) }
	}
	what := ev.kind.String() + " · " + ev.record
	switch ev.kind {
	case evSet:
		if ev.odd == "" {
			what += " · stamp " + codec.FormatStamp(ev.ver)
		} else {
			what += " · no stamp: " + ev.odd + " (another program's write; the feed never carries it, a re-read found it)"
		}
		if ev.before {
			what = "earlier (written before the tab opened) · " + what
		}
	case evDeleted:
		what += " · last seen with stamp " + codec.FormatStamp(ev.ver) + " (a delete issues no stamp)"
	case evExpired:
		what += " · its expiry " + usertext.FormatTime(*ev.expiry) + " passed (stamp " + codec.FormatStamp(ev.ver) + ")"
	}
	fields := []detailField{{"key", key, nil}, {"what", text(what, st.Text), nil}, {"seen", text(usertext.FormatTime(ev.seenAt), st.Text), nil}}
	cells := max(w-widgets.LabelWidth, 1)
	switch {
	case ev.kind == evSet && ev.hadOld:
		// The change by path (before → after), then the whole value after.
		d := m.valueDiff(ev)
		diff := func(n int) []widgets.Line { return widgets.DiffLines(st, d, cells, n) }
		fields = append(fields, detailField{label: "change", block: diff}, detailField{"after", value(ev.value, st.Text), nil})
	case ev.kind == evSet:
		fields = append(fields, detailField{"before", text("not read by kvdeck before", st.Muted), nil}, detailField{"after", value(ev.value, st.Text), nil})
	default:
		fields = append(fields, detailField{"was", value(ev.value, st.Muted), nil})
	}
	alloc := make([]int, len(fields))
	spare := n
	for _, step := range detailSteps {
		for i, f := range fields {
			if f.label != step.label || spare == 0 {
				continue
			}
			want := min(step.lines, f.lines(st, step.lines, cells, w))
			more := min(max(want-alloc[i], 0), spare)
			alloc[i] += more
			spare -= more
		}
	}
	var lines []string
	for i, f := range fields {
		if alloc[i] > 0 { // else no line for it at this size
			lines = append(lines, f.draw(st, alloc[i], cells, w)...)
		}
	}
	return lines
}
