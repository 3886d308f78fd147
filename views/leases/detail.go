package leases

import (
	"github.com/charmbracelet/x/ansi"

	"fmt"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// detailView renders the selected row, or the acquire form.
func (m Model) detailView() string {
	st := m.Styles
	w, h := m.detailWidth(), m.bottomHeight()
	iw := m.detailInner()
	if m.Form != nil {
		return widgets.Pane(st.PaneFocused, strings.Join(m.Form.View(iw), "\n"), w, h)
	}
	// On a short screen the box's title folds away (the table's ❯ shows
	// which row it is): its rows go to the fields.
	var lines []string
	if !m.compact() {
		lines = []string{st.PaneTitle.Render("SELECTED")}
	}
	fields := 0
	if r, ok := m.selected(); ok {
		detail := m.rowDetail(r, iw)
		fields = len(detail)
		lines = append(lines, detail...)
	} else {
		lines = append(lines, st.Muted.Render("Select a row above."))
	}
	hint := widgets.ProseLines(views.Hint("%s acquire · %s release (kvdeck's) · %s break (asks, CAS on stamp)", m.keys.Acquire, m.keys.Release, m.keys.Break), st.Muted, iw)
	if m.ReadOnly {
		hint = widgets.ProseLines(widgets.ReadOnlyNote, st.Warn, iw)
	}
	room := m.bottomHeight() - st.Pane.GetVerticalFrameSize()
	// The hint gives way to the first fields (holder, stamp, expiry and
	// key): the status bar says read-only, and help names the keys.
	if m.compact() || len(lines)-fields+min(fields, detailFirst)+len(hint) > room {
		hint = nil
	}
	room -= len(hint)
	if len(lines) > room {
		lines = lines[:max(room, 1)]
	}
	for len(lines) < room {
		lines = append(lines, "")
	}
	return widgets.Pane(st.Pane, strings.Join(append(lines, hint...), "\n"), w, h)
}

// detailFirst is how many of rowDetail's lines come before the hint
// under them: holder, stamp, expiry and key.
const detailFirst = 4

// rowDetail describes one row, the fields a decision needs first (the
// box is cut at its bottom on a small screen): the holder ("who holds
// it" is the first question), the stamp (the fencing token that B
// checks), the expiry, then the key (its row above names it too), the
// TTL and age, and the findings. On a narrow box the expiry is its time
// of day, so that it keeps to one line.
func (m Model) rowDetail(r coord.LeaseRow, w int) []string {
	st := m.Styles
	now := m.Deps.Now()
	state := leaseStateAt(r, now)
	keyLine := widgets.KeySpans(st, r.Key)
	if state == coord.LeaseExpired {
		keyLine = keyLine.Restyle(st.Expired)
	}
	holder := widgets.Line{{Text: widgets.Sanitize(r.Holder), Style: st.Text}}
	if r.Holder == "" {
		holder = widgets.Line{{Text: "none readable", Style: st.Warn}}
	}
	l, mine := m.mine[codec.Format(r.Key)]
	mine = mine && l.Versionstamp == r.Versionstamp
	if mine {
		holder = append(holder, widgets.Span{Text: "  ★ kvdeck's", Style: st.Accent})
	}
	if m.compact() && ansi.StringWidth(holder.Render(true)) > w-widgets.LabelWidth {
		// A short box keeps the holder to one line, cut in its middle
		// (ids differ at both ends), so that the expiry shows too.
		holder = holder.CutMiddle(w - widgets.LabelWidth)
	}
	out := widgets.FieldLine(st, "holder", holder, w)
	stamp := widgets.Line{{Text: r.Versionstamp, Style: st.Text}}
	if note := views.Hint(" (fencing token; %s checks it)", m.keys.Break); widgets.LabelWidth+len(r.Versionstamp)+len(note) <= w {
		stamp = append(stamp, widgets.Span{Text: note, Style: st.Muted})
	}
	out = append(out, widgets.FieldLine(st, "stamp", stamp, w)...)
	expires := widgets.Line{{Text: "never: no TTL, the lease never lapses", Style: st.Error}}
	if r.ExpiresAt != nil {
		left := widgets.Span{Text: " · " + widgets.Countdown(widgets.MsUntil(*r.ExpiresAt, now)), Style: leaseStateStyle(m, state)}
		expires = widgets.Line{{Text: usertext.FormatTime(*r.ExpiresAt), Style: st.Text}, left}
		if widgets.LabelWidth+ansi.StringWidth(expires.Render(true)) > w {
			expires = widgets.Line{{Text: widgets.ShortTime(*r.ExpiresAt, now), Style: st.Text}, left}
		}
	}
	out = append(out, widgets.FieldLine(st, "expires", expires, w)...)
	out = append(out, widgets.FieldLine(st, "key", keyLine, w)...)
	out = append(out, widgets.FieldLine(st, "ttl", widgets.Line{{Text: ttlText(r, mine), Style: st.Text}}, w)...)
	if r.Problem != "" {
		out = append(out, widgets.FieldLine(st, "problem", widgets.Line{{Text: widgets.Sanitize(r.Problem), Style: st.Warn}}, w)...)
	}
	return append(out, coordkit.FindingLines(st, m.finds.Of(r.Key), w, false)...)
}

// ttlText explains the TTL and age of a row: the store records neither.
func ttlText(r coord.LeaseRow, mine bool) string {
	switch {
	case r.ExpiresAt == nil:
		return "none"
	case mine:
		return widgets.Human(widgets.MsDur(r.TTLMs)) + " (kvdeck acquired it with this TTL)"
	case r.TTLMs <= 0 && r.Kind == coord.KindCron:
		return "unknown (the schedule's interval could not be inferred); age unknown"
	case r.TTLMs <= 0:
		return fmt.Sprintf("unknown: more than the default %s was left when loaded; age unknown", widgets.Human(coord.DefaultLeaseTTL))
	case r.Kind == coord.KindCron:
		return widgets.Human(widgets.MsDur(r.TTLMs)) + " (the schedule's inferred interval)"
	}
	return widgets.Human(widgets.MsDur(r.TTLMs)) + " (the default; the store does not record a TTL)"
}

// cronView renders every schedule: interval, rows, missing buckets and
// double wins.
func (m Model) cronView() string {
	st := m.Styles
	w := m.Width - m.detailWidth()
	iw := w - st.Pane.GetHorizontalFrameSize()
	now := m.Deps.Now()
	lines := []string{st.PaneTitle.Render("CRON SCHEDULES")}
	if len(m.cron) == 0 && m.Loaded {
		lines = append(lines, st.Muted.Render("No cron tick rows."))
	}
	for _, s := range m.cron {
		every := "interval unknown"
		if s.IntervalMs > 0 {
			every = "every " + widgets.Human(widgets.MsDur(s.IntervalMs))
		}
		lines = append(lines, st.Bold.Render(widgets.Sanitize(s.Name))+st.Muted.Render(fmt.Sprintf("  %s · %d row(s)", every, len(s.Buckets))))
		if s.Missing > 0 {
			lines = append(lines, widgets.HangingLines(fmt.Sprintf("  ⚠ %d missing bucket(s): %s", s.Missing, bucketList(s.MissingSample, s.Missing, now)), st.Warn, iw, 4)...)
		}
		for _, dw := range s.DoubleWins {
			lines = append(lines, widgets.HangingLines(fmt.Sprintf("  ⚠ double win: %s and %s", widgets.ShortTime(dw[0], now), widgets.ShortTime(dw[1], now)), st.Warn, iw, 4)...)
		}
		if s.Missing == 0 && len(s.DoubleWins) == 0 {
			lines = append(lines, st.OK.Render("  ✓ no missing bucket, no double win"))
		}
	}
	if len(m.others) > 0 {
		lines = append(lines, st.Label.Render("rows with no line above:"))
		lines = append(lines, coordkit.FindingLines(st, m.others, iw, true)...)
	}
	return widgets.Pane(st.Pane, strings.Join(lines, "\n"), w, m.bottomHeight())
}

// bucketList lists the first missing buckets and says how many more.
func bucketList(sample []int64, total, now int64) string {
	parts := make([]string, len(sample))
	for i, b := range sample {
		parts[i] = widgets.ShortTime(b, now)
	}
	text := strings.Join(parts, ", ")
	if rest := total - int64(len(sample)); rest > 0 {
		text += fmt.Sprintf(" and %d more", rest)
	}
	return text
}
