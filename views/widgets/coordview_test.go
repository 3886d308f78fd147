package widgets

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

func TestWordWrap(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want []string
	}{
		{"a bb ccc", 4, []string{"a bb", "ccc"}},
		{"due 2026-01-02T00:00:30Z (retry 0)", 24, []string{"due 2026-01-02T00:00:30Z", "(retry 0)"}}, // no split at dashes
		{"  ⚠ 2 missing: Jan 1", 10, []string{"  ⚠ 2", "missing:", "Jan 1"}},                          // the indent stays
		{"abcdefghij xy", 4, []string{"abcd", "efgh", "ij", "xy"}},
		{"x abcdefghij", 4, []string{"x", "abcd", "efgh", "ij"}},
		{"", 5, []string{""}},
	} {
		if got := wordWrap(c.in, c.w); !reflect.DeepEqual(got, c.want) {
			t.Errorf("wordWrap(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

func TestShareBar(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	for _, c := range []struct {
		part, whole int64
		want        string
	}{
		{0, 10, "░░░░"}, {-5, 10, "░░░░"}, {10, 10, "████"}, {20, 10, "████"}, {5, 10, "██░░"},
		{1, 1000, "▏░░░"}, // something left shows
		{3, 0, "████"},    // an unknown whole fills
	} {
		if got := ShareBar(c.part, c.whole, 4, st.OK, st.Muted).Render(true); got != c.want {
			t.Errorf("shareBar(%d, %d) = %q, want %q", c.part, c.whole, got, c.want)
		}
	}
}

// TestColumnTable: columns give way in their drop order, and the
// flexible one takes the rest.
func TestColumnTable(t *testing.T) {
	cols := []Column{{Title: "A", Width: 4}, {Title: "B", Width: 6, Drop: 2}, {Title: "C", Width: 0}, {Title: "D", Width: 6, Drop: 1}}
	for _, c := range []struct {
		w     int
		show  []bool
		flexW int
	}{
		{40, []bool{true, true, true, true}, 21},
		{30, []bool{true, true, true, true}, 11},
		{26, []bool{true, true, true, false}, 14},
		{18, []bool{true, false, true, false}, 13},
		{6, []bool{true, false, true, false}, 1},
	} {
		tb := NewTable(cols, c.w)
		if !reflect.DeepEqual(tb.show, c.show) || tb.FlexW != c.flexW {
			t.Errorf("width %d: show %v flex %d, want %v %d", c.w, tb.show, tb.FlexW, c.show, c.flexW)
		}
	}
}

// TestTimeline: now and the marks land where they belong, the selected
// mark has its pointer and the labels do not collide.
func TestTimeline(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	now := viewtest.T
	lines := Timeline(st, now, []TimelineMark{
		{At: now - 10000, Glyph: "●", Style: st.Warn},
		{At: now + 10000, Glyph: "◆", Style: st.Error, Rank: 3, Selected: true},
	}, 21)
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	axis, ptr := ansi.Strip(lines[1]), ansi.Strip(lines[2])
	if axis != "●─────────┃─────────◆" {
		t.Errorf("axis %q", axis)
	}
	if ptr != "          ╹         ▲" {
		t.Errorf("pointer %q", ptr)
	}
	if label := ansi.Strip(lines[0]); !strings.Contains(label, "now") {
		t.Errorf("labels %q", label)
	}
}

// TestListCursorFollow: a reload puts the cursor back on the same id, or
// at the same position when the id is gone.
func TestListCursorFollow(t *testing.T) {
	var c ListCursor
	c.Set(1, []string{"a", "b", "c"}, 2)
	c.Follow([]string{"z", "y", "a", "b", "c"}, 2)
	if c.Cur != 3 || c.Id != "b" || c.off != 2 {
		t.Fatalf("after insert: %+v", c)
	}
	c.Follow([]string{"z", "y", "a", "c"}, 2)
	if c.Cur != 3 || c.Id != "c" {
		t.Fatalf("after removal: %+v", c)
	}
	c.Follow(nil, 2)
	if c.Cur != 0 || c.Id != "" {
		t.Fatalf("empty: %+v", c)
	}
}
