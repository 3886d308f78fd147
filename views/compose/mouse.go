package compose

// onClick selects the operation a left click on its row picked (the ops
// are listed from the second line of the left pane, unscrolled).
func (m Model) onClick(x, y int) Model {
	if m.editor != nil || m.prompting != "" || x >= m.listWidth() {
		return m
	}
	if i := y - 2; i >= 0 && i < len(m.ops) { // the frame and the title
		m.cursor = i
	}
	return m
}
