package sweep

import (
	"fmt"
	"time"

	"kvdeck/store"
	"kvdeck/views/widgets"
)

// expiringSlices is the census's look at the next hour: the live rows
// expiring in each 2-minute slice, counted by SQL in the census's own
// statements (no request and no row of its own).
var expiringSlices = store.ExpiringOptions{Span: time.Hour.Milliseconds(), Buckets: 30}

// addSlices adds b's counts to a's (either may be nil).
func addSlices(a, b []int64) []int64 {
	if b == nil {
		return a
	}
	if a == nil {
		a = make([]int64, len(b))
	}
	for i, n := range b {
		a[i] += n
	}
	return a
}

// expiringLines chart the selected prefix's live rows expiring over the
// next hour, for the top of the preview pane: a title with the total, the
// chart (2-minute slices), its time axis, a blank line. On a narrow pane
// neighbouring slices are added together.
func (m Model) expiringLines(w int) []string {
	st := m.styles
	if m.census == nil || m.cursor >= len(m.census.scopes) {
		return nil
	}
	sc := m.census.scopes[m.cursor]
	slices := sc.expiring
	if slices == nil {
		slices = make([]int64, expiringSlices.Buckets)
	}
	per := 1
	for len(slices)/per > w && per < len(slices) {
		per *= 2
	}
	var vals []float64
	var total int64
	for i := 0; i < len(slices); i += per {
		var n int64
		for _, v := range slices[i:min(i+per, len(slices))] {
			n += v
		}
		total += n
		vals = append(vals, float64(n))
	}
	title := widgets.Line{
		{Text: "NEXT HOUR ", Style: st.PaneTitle},
		{Text: fmt.Sprintf("%d row(s) expire", total), Style: st.Muted},
	}
	if wide := w / len(vals); wide >= 2 {
		// Room for two cells a slice: the chart reads better wider.
		var twice []float64
		for _, v := range vals {
			twice = append(twice, v, v)
		}
		vals = twice
	}
	chart := widgets.SparkRows(vals, len(vals), 2, 0, st.Accent)
	axis := widgets.SparkAxis(len(vals), "now", "+30m", "+1h", st.Muted)
	return []string{
		widgets.FitWidth(title.Render(false), w),
		chart[0].Render(false),
		chart[1].Render(false),
		axis.Style.Render(axis.Text),
		"",
	}
}
