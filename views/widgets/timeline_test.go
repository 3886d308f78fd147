package widgets

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

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
