package sweep

import (
	"context"
	"errors"
	"fmt"
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
	cells := make([][]widgets.Line, len(shown))
	for j, i := range shown {
		cells[j] = m.scopeCells(i, c.scopes[i], c.now)
	}
	t := widgets.FitTable(scopeColumns, w, cells)
	out = append(out, m.filter.View(), t.Header(st))
	for j, i := range shown {
		out = append(out, m.scopeLine(t, i, c.scopes[i], cells[j]))
	}
	if len(shown) == 0 {
		out = append(out, st.Muted.Render(m.filter.Nothing()))
	}
	out = append(out, "")
	out = append(out, m.clockNote(w)...)
	out = append(out, "")
	if m.run != nil {
		return append(out, m.progressLines(w)...)
	}
	out = append(out, m.receiptLines(w)...)
	if m.readOnly {
		out = append(out, "", st.Warn.Render(views.Hint("read-only: sweeping is disabled; %s still dry-runs", m.keys.DryRun)))
	}
	return out
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
