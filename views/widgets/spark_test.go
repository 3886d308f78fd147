package widgets

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

func TestSparkline(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	for _, c := range []struct {
		vals []float64
		w    int
		want string
	}{
		{nil, 4, "    "},                               // nothing measured yet
		{[]float64{0, 0}, 4, "  ▁▁"},                   // measured: nothing happened
		{[]float64{0, 8, 4, 1}, 4, "▁█▄▂"},             // a small value is never a zero
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8}, 4, "▅▆▇█"}, // the newest w, rescaled
		{[]float64{-3, 2}, 2, "▁█"},                    // negative draws as zero
		{[]float64{5}, 0, ""},
	} {
		if got := Sparkline(c.vals, c.w, st.Accent).Text; got != c.want {
			t.Errorf("Sparkline(%v, %d) = %q, want %q", c.vals, c.w, got, c.want)
		}
	}
}

func TestSeriesKeepsTheNewest(t *testing.T) {
	s := NewSeries(3)
	for i := range 5 {
		s.Add(int64(i*1000), float64(i))
	}
	if got := s.Values(); len(got) != 3 || got[0] != 2 || got[2] != 4 {
		t.Fatalf("values %v, want [2 3 4]", got)
	}
	if at, v, ok := s.Last(); !ok || at != 4000 || v != 4 {
		t.Errorf("last = %d %v %v", at, v, ok)
	}
	if s.Max() != 4 {
		t.Errorf("max %v", s.Max())
	}
	var zero Series
	zero.Add(1, 1)
	if zero.Len() != 0 {
		t.Error("the zero series kept a sample")
	}
}

func TestSparkAxis(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	if got := SparkAxis(20, "now", "+30m", "+1h", st.Muted).Text; got != "now     +30m     +1h" {
		t.Errorf("axis %q", got)
	}
	if got := SparkAxis(8, "now", "+30m", "+1h", st.Muted).Text; got != "now  +1h" {
		t.Errorf("narrow axis %q (the middle label must give way)", got)
	}
}

// TestSparkGolden draws a session's samples, taken on a fixed clock one
// second apart, as a one-line sparkline and a three-line chart with its
// axis, without colour (the goldens are the NO_COLOR screen).
func TestSparkGolden(t *testing.T) {
	st := themes.NewStyles(themes.Mono())
	s := NewSeries(40)
	for i := range 48 {
		// A burst, a lull, a ramp: what commits per second look like.
		v := float64((i * 7) % 13)
		switch {
		case i >= 20 && i < 28:
			v = 0
		case i >= 28:
			v = float64(i - 28)
		}
		s.Add(viewtest.T+int64(i)*1000, v)
	}
	var b strings.Builder
	b.WriteString(Line{{"commits/s ", st.Muted}, Sparkline(s.Values(), 24, st.Accent)}.Render(false) + "\n\n")
	for _, l := range SparkRows(s.Values(), 40, 3, 0, st.Accent) {
		b.WriteString(l.Render(false) + "\n")
	}
	b.WriteString(SparkAxis(40, "-40s", "-20s", "now", st.Muted).Text + "\n")
	golden.RequireEqual(t, b.String())
}
