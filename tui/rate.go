package tui

import (
	"fmt"
	"strconv"
	"time"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/store"
	"kvdeck/views/widgets"
)

// rateCells is how many refresh reads the status bar's commit-rate chart
// shows (the narrow bar shows the newest half).
const rateCells = 16

// commitRate is the commit rate of the session: every version read the
// refresh already makes (no request of its own) adds the seq delta since
// the previous read divided by the wall time between them. seq moves once
// per commit with a set, so this counts commits (deletes issue no stamp).
type commitRate struct {
	series widgets.Series
	prev   int64     // seq at the previous read
	prevAt time.Time // when it arrived; zero before the first read
}

func newCommitRate() commitRate { return commitRate{series: widgets.NewSeries(rateCells)} }

// note takes a version read that arrived at at.
func (c *commitRate) note(v store.Version, at time.Time) {
	if c.prevAt.IsZero() || v.Seq < c.prev {
		// The first read, or another store (:open): a baseline only.
		c.prev, c.prevAt = v.Seq, at
		return
	}
	secs := at.Sub(c.prevAt).Seconds()
	if secs <= 0 {
		return
	}
	c.series.Add(at.UnixMilli(), float64(v.Seq-c.prev)/secs)
	c.prev, c.prevAt = v.Seq, at
}

// reset forgets the store's history (:open of another store).
func (c *commitRate) reset() { *c = newCommitRate() }

// text is the chart and the newest rate for the status bar, or "" while
// the reads it keeps saw no commit (a quiet store keeps its status bar).
func (c commitRate) text(narrow bool, st lipgloss.Style) string {
	_, last, ok := c.series.Last()
	if !ok || c.series.Max() == 0 {
		return ""
	}
	w := rateCells
	if narrow {
		w = rateCells / 2
	}
	chart := widgets.Sparkline(c.series.Values(), w, st)
	label := " " + rateNumber(last) + "/s"
	if !narrow {
		label = " " + rateNumber(last) + " commits/s"
	}
	return chart.Style.Render(chart.Text) + label
}

// rateNumber writes a rate with one decimal below 10, whole above.
func rateNumber(r float64) string {
	if r < 10 {
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
	return fmt.Sprintf("%.0f", r)
}
