package views

import (
	"fmt"
	"strings"

	"kvdeck/codec"
	"kvdeck/store/coord"
)

// detailView renders the selected row, or the acquire form.
func (m Leases) detailView() string {
	st := m.styles
	w, h := m.detailWidth(), m.bottomHeight()
	iw := m.detailInner()
	if m.form != nil {
		return Pane(st.PaneFocused, strings.Join(m.form.view(iw), "\n"), w, h)
	}
	lines := []string{st.PaneTitle.Render("SELECTED")}
	if r, ok := m.selected(); ok {
		lines = append(lines, m.rowDetail(r, iw)...)
	} else {
		lines = append(lines, st.Muted.Render("Select a row above."))
	}
	hint := proseLines("a acquire · r release (kvdeck's) · b break (asks, CAS on stamp)", st.Muted, iw)
	if m.readOnly {
		hint = proseLines(readOnlyNote, st.Warn, iw)
	}
	room := m.bottomHeight() - st.Pane.GetVerticalFrameSize() - len(hint)
	if len(lines) > room {
		lines = lines[:max(room, 1)]
	}
	for len(lines) < room {
		lines = append(lines, "")
	}
	return Pane(st.Pane, strings.Join(append(lines, hint...), "\n"), w, h)
}

// rowDetail describes one row: key, holder, stamp, expiry, TTL, age and
// its findings.
func (m Leases) rowDetail(r coord.LeaseRow, w int) []string {
	st := m.styles
	now := m.deps.Now()
	state := leaseStateAt(r, now)
	keyLine := keySpans(st, r.Key)
	if state == coord.LeaseExpired {
		keyLine = keyLine.restyle(st.Expired)
	}
	out := fieldLine(st, "key", keyLine, w)
	holder := line{{sanitize(r.Holder), st.Text}}
	if r.Holder == "" {
		holder = line{{"none readable", st.Warn}}
	}
	l, mine := m.mine[codec.Format(r.Key)]
	mine = mine && l.Versionstamp == r.Versionstamp
	if mine {
		holder = append(holder, span{"  ★ kvdeck's", st.Accent})
	}
	out = append(out, fieldLine(st, "holder", holder, w)...)
	out = append(out, fieldLine(st, "stamp", line{{r.Versionstamp, st.Text}, {" (fencing token; break checks it)", st.Muted}}, w)...)
	expires := line{{"never: no TTL, the lease never lapses", st.Error}}
	if r.ExpiresAt != nil {
		expires = line{{rfcTime(*r.ExpiresAt), st.Text}, {" · " + countdown(msDur(*r.ExpiresAt-now)), leaseStateStyle(m, state)}}
	}
	out = append(out, fieldLine(st, "expires", expires, w)...)
	out = append(out, fieldLine(st, "ttl", line{{ttlText(r, mine), st.Text}}, w)...)
	if r.Problem != "" {
		out = append(out, fieldLine(st, "problem", line{{sanitize(r.Problem), st.Warn}}, w)...)
	}
	return append(out, findingLines(st, m.finds[codec.Format(r.Key)], w, false)...)
}

// ttlText explains the TTL and age of a row: the store records neither.
func ttlText(r coord.LeaseRow, mine bool) string {
	switch {
	case r.ExpiresAt == nil:
		return "none"
	case mine:
		return human(msDur(r.TTLMs)) + " (kvdeck acquired it with this TTL)"
	case r.TTLMs <= 0 && r.Kind == coord.KindCron:
		return "unknown (the schedule's interval could not be inferred); age unknown"
	case r.TTLMs <= 0:
		return fmt.Sprintf("unknown: more than the default %s was left when loaded; age unknown", human(coord.DefaultLeaseTTL))
	case r.Kind == coord.KindCron:
		return human(msDur(r.TTLMs)) + " (the schedule's inferred interval)"
	}
	return human(msDur(r.TTLMs)) + " (the default; the store does not record a TTL)"
}

// cronView renders every schedule: interval, rows, missing buckets and
// double wins.
func (m Leases) cronView() string {
	st := m.styles
	w := m.width - m.detailWidth()
	iw := w - st.Pane.GetHorizontalFrameSize()
	now := m.deps.Now()
	lines := []string{st.PaneTitle.Render("CRON SCHEDULES")}
	if len(m.cron) == 0 && m.loaded {
		lines = append(lines, st.Muted.Render("No cron tick rows."))
	}
	for _, s := range m.cron {
		every := "interval unknown"
		if s.IntervalMs > 0 {
			every = "every " + human(msDur(s.IntervalMs))
		}
		lines = append(lines, st.Bold.Render(sanitize(s.Name))+st.Muted.Render(fmt.Sprintf("  %s · %d row(s)", every, len(s.Buckets))))
		if s.Missing > 0 {
			lines = append(lines, hangingLines(fmt.Sprintf("  ⚠ %d missing bucket(s): %s", s.Missing, bucketList(s.MissingSample, s.Missing, now)), st.Warn, iw, 4)...)
		}
		for _, dw := range s.DoubleWins {
			lines = append(lines, hangingLines(fmt.Sprintf("  ⚠ double win: %s and %s", shortTime(dw[0], now), shortTime(dw[1], now)), st.Warn, iw, 4)...)
		}
		if s.Missing == 0 && len(s.DoubleWins) == 0 {
			lines = append(lines, st.OK.Render("  ✓ no missing bucket, no double win"))
		}
	}
	if len(m.others) > 0 {
		lines = append(lines, st.Label.Render("rows with no line above:"))
		lines = append(lines, findingLines(st, m.others, iw, true)...)
	}
	return Pane(st.Pane, strings.Join(lines, "\n"), w, m.bottomHeight())
}

// bucketList lists the first missing buckets and says how many more.
func bucketList(sample []int64, total, now int64) string {
	parts := make([]string, len(sample))
	for i, b := range sample {
		parts[i] = shortTime(b, now)
	}
	text := strings.Join(parts, ", ")
	if rest := total - int64(len(sample)); rest > 0 {
		text += fmt.Sprintf(" and %d more", rest)
	}
	return text
}
