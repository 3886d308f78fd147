package widgets

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
)

// TooSmall is what a tab shows instead of its panes when the window is
// below the size it can draw in.
const TooSmall = "window too small"

// PaneBox is the box of a pane: the focused border when the pane has
// the keys, the plain one otherwise.
func PaneBox(st themes.Styles, focused bool) lipgloss.Style {
	if focused {
		return st.PaneFocused
	}
	return st.Pane
}

// Pane draws content in a bordered box whose outside is exactly w x h:
// lines are cut or padded to the inside width, and the inside is cut or
// padded to its height, so a long value can never push the layout around.
func Pane(box lipgloss.Style, content string, w, h int) string {
	iw := w - box.GetHorizontalFrameSize()
	ih := h - box.GetVerticalFrameSize()
	if iw < 1 || ih < 1 {
		return ""
	}
	return box.Render(strings.Join(fitLines(strings.Split(content, "\n"), iw, ih), "\n"))
}

// fitLines returns exactly h lines, each exactly w cells wide.
func fitLines(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = FitWidth(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", w)
		}
	}
	return out
}

// FitWidth cuts s (which may hold styles) to w cells with an ellipsis, or
// pads it with spaces to w cells.
func FitWidth(s string, w int) string {
	n := ansi.StringWidth(s)
	if n > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-n)
}

// Spread puts left and right on one line of w cells, right-aligned; when
// they do not fit, left is cut first.
func Spread(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw >= w {
		return ansi.Truncate(right, w, "…")
	}
	return FitWidth(left, w-rw-1) + " " + right
}

// ScrollTo returns the first visible line of a window of h lines over n
// lines so that line cur is visible, moving off as little as possible.
func ScrollTo(off, cur, h, n int) int {
	if h <= 0 {
		return 0
	}
	if cur < off {
		off = cur
	}
	if cur >= off+h {
		off = cur - h + 1
	}
	return ClampOffset(off, h, n)
}

// ClampOffset keeps a window of h lines over n lines inside them.
func ClampOffset(off, h, n int) int {
	if off > n-h {
		off = n - h
	}
	if off < 0 {
		off = 0
	}
	return off
}

// FitTo cuts or pads lines to exactly n.
func FitTo(lines []string, n int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}
