package leases

import (
	"fmt"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/views/widgets"
)

// churnCells is how many loads the churn chart keeps.
const churnCells = 60

// churn is lease churn over the session: at each load, the lease and
// cron rows that are new (a key not seen at the previous load, or seen
// with another stamp: re-acquired) and those that ended (released,
// broken, swept, or replaced by a new acquisition). It compares what the
// tab reads anyway, so it costs no request; what happens between two
// loads and is undone before the second (a lease taken and released in
// between) is not seen.
type churn struct {
	prev     map[string]string // key text -> stamp at the previous load
	series   widgets.Series    // new + ended at each load after the first
	acquired int               // at the newest load
	ended    int
	total    int // every change counted this session
}

// note compares a load with the previous one. The first load is a
// baseline only.
func (c churn) note(rows []coord.LeaseRow, now int64) churn {
	cur := make(map[string]string, len(rows))
	for _, r := range rows {
		cur[codec.Format(r.Key)] = r.Versionstamp
	}
	if c.prev == nil {
		c.series = widgets.NewSeries(churnCells)
		c.prev = cur
		return c
	}
	c.acquired, c.ended = 0, 0
	for k, stamp := range cur {
		if old, ok := c.prev[k]; !ok || old != stamp {
			c.acquired++
		}
	}
	for k, stamp := range c.prev {
		if now, ok := cur[k]; !ok || now != stamp {
			c.ended++
		}
	}
	// Series shares its arrays with earlier copies of the model, which
	// bubbletea drops: adding in place is safe.
	c.series.Add(now, float64(c.acquired+c.ended))
	c.total += c.acquired + c.ended
	c.prev = cur
	return c
}

// churnLine is the chart and the newest figures, for the table's footer.
func (m Model) churnLine(w int) string {
	st := m.Styles
	c := m.churn
	if c.series.Len() == 0 {
		return st.Muted.Render(widgets.FitWidth("churn: charted from the next load on (when the store moves)", w))
	}
	cells := min(max(w/3, 8), churnCells)
	line := widgets.Line{
		{Text: "churn ", Style: st.Label},
		widgets.Sparkline(c.series.Values(), cells, st.Accent),
		{Text: fmt.Sprintf(" %d new · %d ended at the last load · %d this session", c.acquired, c.ended, c.total), Style: st.Muted},
	}
	return widgets.FitWidth(line.Render(false), w)
}
