package browse

import (
	"fmt"

	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// "What changed since I looked". Browse remembers, per
// key, the row the user last looked at: its stamp, and its value when it
// is at most seenValueCap bytes, for the last seenKeys keys (least
// recently looked at forgotten first). A row is looked at when the cursor
// leaves it, or, while it stays, when a re-read finds it changed and
// nothing of it was remembered yet. When the entry's stamp has moved from
// the one remembered, the entry pane says "changed since you looked
// (stamp A → B)", and = shows the change path by path with the diff
// widget (again, or a move, hides it).

// Bounds of what Browse remembers of the rows looked at.
const (
	seenValueCap = 64 << 10
	seenKeys     = 256
)

// seenRow is what is remembered of a row looked at.
type seenRow struct {
	stamp string
	value []byte // nil when the value was over seenValueCap
	big   int    // the value's size when it was not kept
}

// seenState is the memory of rows looked at (a small LRU by raw key) and
// the diff = shows.
type seenState struct {
	rows  map[string]seenRow
	order []string // raw keys, least recently looked at first
	// showing: = shows the diff of the entry against its remembered row.
	showing bool
	diff    widgets.ValueDiff
	of      string // the stamps the diff is between, "A B"
}

func newSeen() *seenState { return &seenState{rows: map[string]seenRow{}} }

// remember records e, whose value is size bytes (e.Value holds only its
// head when it is cut: entry.HeadCap), as looked at; only if nothing of it
// is remembered when onlyNew.
func (s *seenState) remember(e store.Entry, size int64, onlyNew bool) {
	raw := string(e.Raw)
	if _, ok := s.rows[raw]; ok && onlyNew {
		return
	}
	r := seenRow{stamp: e.Versionstamp()}
	if size <= seenValueCap && int64(len(e.Value)) == size {
		r.value = append([]byte{}, e.Value...)
	} else {
		r.big = int(size)
	}
	for i, k := range s.order {
		if k == raw {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.order = append(s.order, raw)
	s.rows[raw] = r
	if len(s.order) > seenKeys {
		delete(s.rows, s.order[0])
		s.order = s.order[1:]
	}
}

// changed returns the remembered row of e when e's stamp moved from it.
func (s *seenState) changed(e store.Entry) (seenRow, bool) {
	r, ok := s.rows[string(e.Raw)]
	if !ok || r.stamp == e.Versionstamp() {
		return seenRow{}, false
	}
	return r, true
}

// lookedAway records the entry shown as looked at, before the selection
// leaves it; the diff closes.
func (m *Model) lookedAway() {
	if m.entry.loaded && m.entry.found {
		m.pane.seen.remember(m.entry.e, m.entry.size, false)
	}
	m.pane.seen.showing = false
}

// reread records the entry shown before a re-read of the same row
// replaces it, when nothing of it was remembered: a change seen while
// the row stays selected is a change since the user looked too.
func (m *Model) reread(found bool, e store.Entry) {
	if m.entry.loaded && m.entry.found && found && string(e.Raw) == string(m.entry.e.Raw) {
		m.pane.seen.remember(m.entry.e, m.entry.size, true)
	}
}

// toggleSeenDiff is =: show (or hide) what changed since the user looked.
func (m *Model) toggleSeenDiff() {
	if m.pane.seen.showing {
		m.pane.seen.showing = false
		return
	}
	if !m.entry.loaded || !m.entry.found {
		return
	}
	if _, ok := m.pane.seen.changed(m.entry.e); ok {
		m.pane.seen.showing = true
		m.pane.off = 0
	}
}

// seenDiff returns the diff of the entry against the row remembered,
// computed once per pair of stamps.
func (m Model) seenDiff(r seenRow) widgets.ValueDiff {
	of := r.stamp + " " + m.entry.e.Versionstamp()
	if m.pane.seen.of != of {
		m.pane.seen.diff, m.pane.seen.of = widgets.NewValueDiff(r.value, m.entry.e.Value), of
	}
	return m.pane.seen.diff
}

// changedLines is the entry's "changed since you looked" line (none when
// its stamp is the one remembered).
func (m Model) changedLines(e store.Entry, w int) []string {
	r, ok := m.pane.seen.changed(e)
	if !ok {
		return nil
	}
	text := fmt.Sprintf("since you looked (stamp %s → %s) · = shows what changed", r.stamp, e.Versionstamp())
	return m.field("changed", widgets.Line{{Text: text, Style: m.styles.Warn}}, w)
}

// seenDiffLines is the entry pane while = shows the diff.
func (m Model) seenDiffLines(w, rows int) []string {
	st := m.styles
	e := m.entry.e
	r, ok := m.pane.seen.changed(e)
	if !ok {
		return m.wrapText("unchanged since you looked", st.Muted, w)
	}
	out := m.field("key", widgets.KeySpans(st, e.Key), w)
	out = append(out, m.field("stamp", widgets.Line{{Text: r.stamp + " → " + e.Versionstamp(), Style: st.Text}}, w)...)
	out = append(out, "", st.Label.Render("then → now"))
	if r.value == nil {
		text := fmt.Sprintf("The value you looked at was %s, over the %s Browse keeps of a value: only its stamp was remembered.", widgets.BytesText(int64(r.big)), widgets.BytesText(seenValueCap))
		return append(out, m.wrapText(text, st.Warn, w)...)
	}
	if m.entry.cut { // only its head was read: never diff against a cut value
		text := fmt.Sprintf("The value is %s now, over the %s Browse reads of a value: only its stamp is compared.", widgets.BytesText(m.entry.size), widgets.BytesText(widgets.ValueCap))
		return append(out, m.wrapText(text, st.Warn, w)...)
	}
	for _, l := range widgets.DiffLines(st, m.seenDiff(r), w, max(rows-len(out)-2, 1)) {
		out = append(out, l.Render(false))
	}
	return append(append(out, ""), m.wrapText(views.Hint("%s or a move returns to the value", m.keys.Diff), st.Muted, w)...)
}
