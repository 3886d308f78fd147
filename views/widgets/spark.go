package widgets

import (
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// sparkLevels are the heights of a chart cell in eighths: a zero draws
// the lowest mark, so that "nothing happened" differs from "not measured
// yet" (a blank) without colour too; any positive value gets at least the
// second level, so a small one never reads as zero.
var sparkLevels = []string{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"}

// Series is a bounded history of samples over a session, oldest first:
// when each was taken (epoch ms of the caller's clock) and its value.
// Adding past its capacity drops the oldest. The zero Series keeps
// nothing; build one with NewSeries.
type Series struct {
	capacity int
	at       []int64
	vals     []float64
}

// NewSeries returns an empty series that keeps the newest capacity
// samples.
func NewSeries(capacity int) Series {
	return Series{capacity: max(capacity, 1)}
}

// Add appends a sample taken at at.
func (s *Series) Add(at int64, v float64) {
	if s.capacity == 0 {
		return
	}
	if len(s.vals) == s.capacity {
		// Shift in place: the capacity is a screen width or so.
		copy(s.at, s.at[1:])
		copy(s.vals, s.vals[1:])
		s.at, s.vals = s.at[:len(s.at)-1], s.vals[:len(s.vals)-1]
	}
	s.at = append(s.at, at)
	s.vals = append(s.vals, v)
}

// Len is the number of samples kept.
func (s Series) Len() int { return len(s.vals) }

// Values are the samples, oldest first (the series' own slice: do not
// change it).
func (s Series) Values() []float64 { return s.vals }

// Last is the newest sample and when it was taken.
func (s Series) Last() (at int64, v float64, ok bool) {
	if len(s.vals) == 0 {
		return 0, 0, false
	}
	return s.at[len(s.at)-1], s.vals[len(s.vals)-1], true
}

// Max is the largest sample (0 for none).
func (s Series) Max() float64 {
	top := 0.0
	for _, v := range s.vals {
		top = math.Max(top, v)
	}
	return top
}

// Sparkline draws the newest w of vals in w cells, one cell a value,
// newest at the right, scaled from 0 to the largest value shown; the cells
// before the first sample are blank. Negative values draw as zero. The
// characters carry the shape, so it reads the same without colour.
func Sparkline(vals []float64, w int, st lipgloss.Style) Span {
	lines := SparkRows(vals, w, 1, 0, st)
	if len(lines) == 0 {
		return Span{}
	}
	return lines[0][0]
}

// SparkRows draws vals as a chart h lines high (8 levels a line) and w
// cells wide, top line first, newest value at the right, scaled from 0 to
// top or to the largest value shown when that is larger. Each line is one
// span in st.
func SparkRows(vals []float64, w, h int, top float64, st lipgloss.Style) []Line {
	if w <= 0 || h <= 0 {
		return nil
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	for _, v := range vals {
		top = math.Max(top, v)
	}
	pad := w - len(vals)
	rows := make([]strings.Builder, h)
	for i := range rows {
		rows[i].WriteString(strings.Repeat(" ", pad))
	}
	steps := h * len(sparkLevels) // eighths from the bottom of the chart
	for _, v := range vals {
		n := 1 // the zero mark
		if v > 0 && top > 0 {
			n = max(int(math.Round(v/top*float64(steps))), 2)
		}
		for r := range h {
			// Line r from the top covers eighths (h-1-r)*8+1 .. (h-r)*8.
			below := (h - 1 - r) * len(sparkLevels)
			switch {
			case n >= below+len(sparkLevels):
				rows[r].WriteString("█")
			case n > below:
				rows[r].WriteString(sparkLevels[n-below-1])
			default:
				rows[r].WriteString(" ")
			}
		}
	}
	out := make([]Line, h)
	for r := range rows {
		out[r] = Line{{rows[r].String(), st}}
	}
	return out
}

// SparkAxis is the line under a chart w cells wide: left at the start,
// right at the end (say, "now" and "+1h"), middle centred when there is
// room.
func SparkAxis(w int, left, middle, right string, st lipgloss.Style) Span {
	cells := []rune(strings.Repeat(" ", max(w, 0)))
	put := func(at int, s string) {
		for i, r := range []rune(s) {
			if at+i >= 0 && at+i < len(cells) {
				cells[at+i] = r
			}
		}
	}
	lw, rw, mw := len([]rune(left)), len([]rune(right)), len([]rune(middle))
	if mid := (w - mw) / 2; middle != "" && mid > lw && mid+mw < w-rw {
		put(mid, middle)
	}
	put(w-rw, right)
	put(0, left)
	return Span{string(cells), st}
}
