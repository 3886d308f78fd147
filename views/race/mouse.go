package race

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views/widgets"
)

// onMouse handles the mouse in step mode: a left click on a client's box
// selects that client, and the wheel moves to the previous or next client
// (as ←/→ do). Live mode has nothing to select.
func (m Model) onMouse(msg tea.MouseMsg) Model {
	if m.live || m.step.stepper == nil {
		return m
	}
	if k, ok := widgets.WheelKey(msg); ok {
		if k.Type == tea.KeyUp {
			m.step.selected = max(m.step.selected-1, 0)
		} else {
			m.step.selected = min(m.step.selected+1, len(m.step.clients)-1)
		}
		return m
	}
	x, y, ok := widgets.LeftClick(msg)
	if !ok {
		return m
	}
	// The pane's border and padding, then the lines above the clients.
	box := widgets.PaneBox(m.styles, m.focused)
	w := m.width - box.GetHorizontalFrameSize()
	left := box.GetBorderLeftSize() + box.GetPaddingLeft()
	top := box.GetBorderTopSize() + len(m.stepIntro(w))
	if i, ok := m.clientGrid(w).at(x-left, y-top, len(m.step.clients)); ok {
		m.step.selected = i
	}
	return m
}
