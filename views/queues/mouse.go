package queues

// onClick selects the queue or the message a left click picked (the
// queues on the left, the message table on the right).
func (m Model) onClick(x, y int) Model {
	if m.Form != nil || m.poll != nil || m.peek != nil || m.filter.Typing() || !m.Loaded {
		return m
	}
	if x < m.leftWidth() {
		top := 3 // the frame, the title and the table header
		if m.filter.View() != "" {
			top++
		}
		m.lists.Click(false, y-top, m.sides())
		return m
	}
	// The frame, the queue's title, its histogram, the trend line and
	// the table header.
	top := 4 + m.shownHistRows()
	m.lists.Click(true, y-top, m.sides())
	return m
}
