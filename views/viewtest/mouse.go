package viewtest

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// Click is a press of the left button at x, y (the view's coordinates).
func Click(x, y int) tea.MouseMsg {
	return tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}
}

// ClickOn is a left click on the first place the view shows text (in
// cells), at or after column from; false when it does not show it.
func ClickOn(view, text string, from int) (tea.MouseMsg, bool) {
	for y, line := range strings.Split(ansi.Strip(view), "\n") {
		cells := []rune(line)
		for x := from; x < len(cells); x++ {
			if strings.HasPrefix(string(cells[x:]), text) {
				return Click(ansi.StringWidth(string(cells[:x])), y), true
			}
		}
	}
	return tea.MouseMsg{}, false
}

// ClickOn sends a left click on the first place the view shows text, at
// or after column from (the function ClickOn), and settles; it fails the
// test when the view does not show text there.
func (h *Harness[V]) ClickOn(text string, from int) {
	h.T.Helper()
	click, ok := ClickOn(h.M.View(), text, from)
	if !ok {
		h.T.Fatalf("no %q from column %d to click on:\n%s", text, from, h.M.View())
	}
	h.Send(click)
}
