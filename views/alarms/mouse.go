package alarms

// onClick selects the class or the alarm a left click picked (the
// classes on the left, the alarm table on the right).
func (m Model) onClick(x, y int) Model {
	if m.Form != nil || m.filter.Typing() || !m.Loaded {
		return m
	}
	// The alarms stand under the frame, the class's title, its time line
	// and the table header.
	m.lists.ClickAt(x, y, m.leftWidth(), 0, 3+len(m.shownTimeline()), m.filter, m.sides())
	return m
}
