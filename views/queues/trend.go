package queues

import (
	"fmt"

	"kvdeck/store/coord"
	"kvdeck/views/widgets"
)

// trendCells is how many loads the session charts of a queue keep.
const trendCells = 60

// queueTrend is one queue's depth (ready + delayed) and the age of its
// oldest ready message at each load of the session: the tab loads when
// it is shown and the store moved, so a quiet store adds no sample.
type queueTrend struct{ depth, oldest widgets.Series }

// trends are the session charts by queue name.
type trends map[string]*queueTrend

// note adds a load's figures; a queue charted before and absent now was
// emptied, and charts a zero.
func (t trends) note(qs []coord.QueueReport, now int64) trends {
	if t == nil {
		t = trends{}
	}
	seen := map[string]bool{}
	for _, q := range qs {
		seen[q.Name] = true
		tr := t[q.Name]
		if tr == nil {
			tr = &queueTrend{depth: widgets.NewSeries(trendCells), oldest: widgets.NewSeries(trendCells)}
			t[q.Name] = tr
		}
		tr.depth.Add(now, float64(q.Ready+q.Delayed))
		tr.oldest.Add(now, float64(q.OldestReadyAgeMs))
	}
	for name, tr := range t {
		if !seen[name] {
			tr.depth.Add(now, 0)
			tr.oldest.Add(now, 0)
		}
	}
	return t
}

// trendLine charts the selected queue over the session: its depth and
// its oldest ready age at each load, with the newest figures.
func (m Model) trendLine(q coord.QueueReport, w int) string {
	st := m.Styles
	tr := m.trends[q.Name]
	if tr == nil || tr.depth.Len() == 0 {
		return st.Muted.Render("session: charts start at the first load")
	}
	_, depth, _ := tr.depth.Last()
	_, oldest, _ := tr.oldest.Last()
	cells := min(max((w-44)/2, 4), trendCells)
	line := widgets.Line{
		{Text: "session ", Style: st.Label},
		{Text: "depth ", Style: st.Muted}, widgets.Sparkline(tr.depth.Values(), cells, st.Accent),
		{Text: fmt.Sprintf(" %d", int64(depth)), Style: st.Text},
		{Text: " · oldest ready ", Style: st.Muted}, widgets.Sparkline(tr.oldest.Values(), cells, st.Warn),
		{Text: " " + widgets.Human(widgets.MsDur(int64(oldest))), Style: st.Text},
	}
	return widgets.FitWidth(line.Render(false), w)
}
