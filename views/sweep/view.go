package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/internal/usertext"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// View renders the census and the sweep (left) and the preview (right).
func (m Model) View() string {
	if m.width < 40 || m.height < 8 {
		return widgets.TooSmall
	}
	if m.guard != nil {
		return m.guardView()
	}
	lw := m.width * 2 / 3
	box := widgets.PaneBox(m.styles, m.focused)
	left := widgets.Pane(box, strings.Join(m.mainLines(lw-box.GetHorizontalFrameSize()), "\n"), lw, m.height)
	rw := m.width - lw - m.styles.Pane.GetHorizontalFrameSize()
	right := widgets.Pane(m.styles.Pane, strings.Join(append(m.expiringLines(rw), m.previewLines(rw)...), "\n"), m.width-lw, m.height)
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

// mainLines: the per-prefix table, then the sweep in flight or the last
// receipt.
func (m Model) mainLines(w int) []string {
	st := m.styles
	out := []string{st.PaneTitle.Render("SWEEP") + st.Muted.Render(" · expired rows still present")}
	switch {
	case m.census == nil && m.scanErr != nil:
		return append(out, widgets.ProseLines("✗ census failed: "+m.scanErr.Error(), st.Error, w)...)
	case m.census == nil:
		return append(out, st.Muted.Render("counting expired rows…"))
	}
	c := m.census
	when := "as of " + usertext.FormatTime(c.now)
	if m.scanning {
		when += " · rescanning…"
	}
	out = append(out, st.Muted.Render(when))
	if m.scanErr != nil {
		out = append(out, widgets.ProseLines("✗ the last census failed: "+m.scanErr.Error(), st.Error, w)...)
	}
	shown := m.shown()
	t := m.fitTable(w, shown)
	out = append(out, m.filter.View(), t.Header(st))
	from, to := m.rowWindow(len(out), shown)
	for _, i := range shown[from:to] {
		out = append(out, m.scopeLine(t, i, c.scopes[i], m.scopeCells(i, c.scopes[i], c.now)))
	}
	if to-from < len(shown) {
		out = append(out, st.Muted.Render(fmt.Sprintf("rows %d–%d of %d (j/k move)", from+1, to, len(shown))))
	}
	if len(shown) == 0 {
		out = append(out, st.Muted.Render(m.filter.Nothing()))
	}
	return append(out, m.tailLines(w)...)
}

// tailLines are the lines under the table: the clock note, then the
// sweep in flight or the last receipt.
func (m Model) tailLines(w int) []string {
	st := m.styles
	tail := []string{""}
	tail = append(tail, m.clockNote(w)...)
	tail = append(tail, "")
	if m.run != nil {
		return append(tail, m.progressLines(w)...)
	}
	tail = append(tail, m.receiptLines(w)...)
	if m.readOnly {
		tail = append(tail, "", st.Warn.Render(views.Hint("read-only: sweeping is disabled; %s still dry-runs", m.keys.DryRun)))
	}
	return tail
}

// rowWindow is the rows of shown the table renders under head lines:
// only those the pane has room for (a store may have thousands of
// prefixes, and the screen is redrawn every second), in a window that
// keeps the cursor in view. The lines under the table show when the
// rows leave room for them, as before.
func (m Model) rowWindow(head int, shown []int) (from, to int) {
	room := m.height - m.styles.Pane.GetVerticalFrameSize() - head
	return tableWindow(len(shown), slices.Index(shown, m.cursor), room)
}

// tableWindow is the rows [from, to) of n to render in room lines, the
// row at cursor (-1: none) among them: all when they fit, else room-1
// rows (a line says which) from the top, scrolled so the cursor's row is
// the last when it is further down. At least 3 rows show, however small
// the room.
func tableWindow(n, cursor, room int) (from, to int) {
	if n <= room {
		return 0, n
	}
	rows := max(room-1, 3)
	if rows >= n {
		return 0, n
	}
	from = max(0, cursor-rows+1)
	return from, from + rows
}

// fitTable lays the census table out for the shown rows at width w: the
// columns fit every row's figures, not only the visible ones (they stay
// put while the table scrolls). Measuring them all is most of a redraw
// of a large census, so the layout is kept with the census.
func (m Model) fitTable(w int, shown []int) widgets.Table {
	c := m.census
	if f := c.fit; f != nil && f.w == w && f.filter == m.filter.Text() {
		return f.t
	}
	cells := make([][]widgets.Line, len(shown))
	for j, i := range shown {
		cells[j] = m.scopeCells(i, c.scopes[i], c.now)
	}
	c.fit = &fittedTable{w: w, filter: m.filter.Text(), t: widgets.FitTable(scopeColumns, w, cells)}
	return c.fit.t
}

// scopeColumns are the census table's: the prefix takes the room the
// figures leave; the figures are never cut (the next expiry, then the
// "in 10m" count, give way first on a narrow screen).
var scopeColumns = []widgets.Column{
	{Title: "", Width: 1}, {Title: "prefix", Width: 0, Min: 22}, {Title: "rows", Width: 8, Right: true},
	{Title: "expired", Width: 8, Right: true}, {Title: "bytes", Width: 9, Right: true},
	{Title: "in 10m", Width: 7, Right: true, Drop: 2}, {Title: "next expiry", Width: 12, Drop: 1},
}

// scopeCells are one row's cells.
func (m Model) scopeCells(i int, sc sweepScope, now int64) []widgets.Line {
	st := m.styles
	next := "—"
	if sc.next != nil {
		next = widgets.Countdown(widgets.MsUntil(*sc.next, now))
	}
	return []widgets.Line{
		{{Text: widgets.Gutter(i == m.cursor), Style: st.Text}},
		{{Text: widgets.Sanitize(scopeName(sc)), Style: st.Text}},
		{{Text: fmt.Sprint(sc.rows), Style: st.Text}},
		{{Text: fmt.Sprint(sc.expired), Style: st.Text}},
		{{Text: widgets.BytesText(sc.bytes), Style: st.Text}},
		{{Text: fmt.Sprint(sc.soon), Style: st.Text}},
		{{Text: next, Style: st.Text}},
	}
}

// scopeLine is one row of the table.
func (m Model) scopeLine(t widgets.Table, i int, sc sweepScope, cells []widgets.Line) string {
	st := m.styles
	text := t.Row(st, cells, false, false)
	switch {
	case i == m.cursor && m.focused:
		return st.Selected.Render(text)
	case sc.expired > 0:
		return st.Warn.Render(text)
	}
	return st.Text.Render(text)
}

// clockNote says how the virtual clock bears on the figures.
func (m Model) clockNote(w int) []string {
	text := "Expired means expires_at <= the store's clock. \"in 10m\" counts live rows that a sweep 10 minutes from now " +
		"would also remove; :clock +10m moves the clock there, and the census, dry run and sweep follow it."
	return widgets.ProseLines(text, m.styles.Muted, w)
}

// progressLines show a sweep in flight: a bar, the counts, how to cancel.
func (m Model) progressLines(w int) []string {
	st := m.styles
	r := m.run
	swept := m.progress.swept
	pct := 100.0
	if r.total > 0 {
		pct = float64(min(swept, r.total)) * 100 / float64(r.total)
	}
	bar := widgets.ShareBar(swept, r.total, max(w-12, 10), st.Accent, st.Muted).Render(false)
	return []string{
		st.Label.Render("SWEEPING ") + st.Text.Render(r.scope),
		bar + st.Text.Render(fmt.Sprintf(" %5.1f%%", pct)),
		st.Text.Render(fmt.Sprintf("%d of %d row(s) removed · %d batch(es) · %s", swept, r.total, m.progress.batches, widgets.Human(time.Since(r.started)))),
		st.HelpKey.Render("x") + st.Muted.Render(" cancels after the current batch"),
	}
}

// receiptLines show the last sweep's or dry run's receipt.
func (m Model) receiptLines(w int) []string {
	st := m.styles
	d := m.receipt
	if m.dryBusy {
		return []string{st.Muted.Render("dry run: counting…")}
	}
	if d == nil {
		return widgets.ProseLines(views.Hint("%s counts what a sweep of the selected prefix would remove (a dry run); %s sweeps it: deletes them (after a confirmation).", m.keys.DryRun, m.keys.Sweep), st.Muted, w)
	}
	title := "RECEIPT "
	if d.dryRun {
		title = "DRY RUN "
	}
	out := []string{st.Label.Render(title) + st.Text.Render(d.scope)}
	r := d.res
	switch {
	case d.dryRun:
		out = append(out, st.Text.Render(fmt.Sprintf("would remove %d row(s); nothing was deleted (%s)", r.Swept, widgets.Human(r.Elapsed))))
	default:
		out = append(out, st.OK.Render(fmt.Sprintf("removed %d row(s)", r.Swept))+
			st.Text.Render(fmt.Sprintf(" in %s · %d batch(es) · %d expired left", widgets.Human(r.Elapsed), r.Batches, r.Remaining)))
	}
	switch {
	case r.LiveByReal == 0:
	case d.includeLive:
		out = append(out, widgets.ProseLines(fmt.Sprintf("%d of them were live by the real clock (you chose to sweep them)", r.LiveByReal), st.Warn, w)...)
	case d.dryRun:
		out = append(out, widgets.ProseLines(fmt.Sprintf("%d more row(s) are expired at the clock's time but live by the real clock: s asks before sweeping them", r.LiveByReal), st.Warn, w)...)
	default:
		out = append(out, widgets.ProseLines(fmt.Sprintf("kept %d row(s) that the real clock still sees live", r.LiveByReal), st.Warn, w)...)
	}
	next := "none: nothing else in range expires"
	if r.NextExpiry != nil {
		next = usertext.FormatTime(*r.NextExpiry)
	}
	out = append(out, st.Text.Render("next earliest expiry: "+next))
	switch {
	case errors.Is(d.err, context.Canceled):
		out = append(out, widgets.ProseLines("cancelled by you between batches: the rows removed so far stay removed", st.Warn, w)...)
	case errors.Is(d.err, context.DeadlineExceeded):
		out = append(out, widgets.ProseLines("stopped: the sweep ran out of time; the rows removed so far stay removed", st.Warn, w)...)
	case d.err != nil:
		out = append(out, widgets.ProseLines("stopped: "+d.err.Error(), st.Warn, w)...)
	}
	return out
}

// previewLines list the selected scope's expired rows (from the census).
func (m Model) previewLines(w int) []string {
	st := m.styles
	sc, ok := m.scope()
	if !ok {
		return []string{st.PaneTitle.Render("PREVIEW")}
	}
	out := []string{st.PaneTitle.Render("PREVIEW ") + st.Muted.Render(widgets.Sanitize(scopeName(sc)))}
	if m.swept {
		// The census was taken before the sweep: its rows may be gone.
		return append(out, widgets.ProseLines("A sweep ran since this list was read; it comes back with the next count.", st.Muted, w)...)
	}
	rows := m.height - m.styles.Pane.GetVerticalFrameSize() - 2
	shown := 0
	for _, r := range m.census.preview {
		if !sc.all && r.scope != m.cursor {
			continue
		}
		if shown == rows {
			break
		}
		shown++
		ago := st.Muted.Render(" " + widgets.Human(widgets.MsUntil(m.census.now, r.expiresAt)) + " ago")
		room := max(w-ansi.StringWidth(ago), 1)
		key := widgets.Line{{Text: "0x" + fmt.Sprintf("%x", r.raw), Style: st.Warn}}
		if r.key != nil {
			if room < widgets.KeyCellMin(r.key) {
				// The key tells more than how long ago it expired.
				room, ago = max(w, 1), ""
			}
			// Shortened by part: the ids of a prefix differ at their end.
			key = widgets.KeyCell(st, r.key, room).Restyle(st.Expired)
		}
		out = append(out, widgets.FitWidth(key.Render(false), room)+ago)
	}
	switch {
	case sc.expired == 0:
		out = append(out, st.Muted.Render("nothing expired here"))
	case int64(shown) < sc.expired:
		out = append(out, st.Muted.Render(fmt.Sprintf("… %d more expired row(s)", sc.expired-int64(shown))))
	}
	return out
}
