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
