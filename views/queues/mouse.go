package queues

// onClick selects the queue or the message a left click picked (the
// queues on the left, the message table on the right).
func (m Model) onClick(x, y int) Model {
	if m.Form != nil || m.poll != nil || m.peek != nil || m.filter.Typing() || !m.Loaded {
		return m
	}
	// The queues stand under their table header; the messages under the
	// frame, the queue's title, its histogram, the trend line and the
	// table header.
	m.lists.ClickAt(x, y, m.leftWidth(), 1, 4+m.shownHistRows(), m.filter, m.sides())
	return m
}
