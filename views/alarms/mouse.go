package alarms

// onClick selects the class or the alarm a left click picked (the
// classes on the left, the alarm table on the right).
func (m Model) onClick(x, y int) Model {
	if m.Form != nil || m.filter.Typing() || !m.Loaded {
		return m
	}
	if x < m.leftWidth() {
		top := 2 // the frame and the title
		if m.filter.View() != "" {
			top++
		}
		m.lists.Click(false, y-top, m.sides())
		return m
	}
	// The frame, the class's title, its time line and the table header.
	top := 3 + len(m.shownTimeline())
	m.lists.Click(true, y-top, m.sides())
	return m
}
