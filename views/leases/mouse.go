package leases

// onClick selects the lease a left click on the table picked.
func (m Model) onClick(_, y int) Model {
	if m.Form != nil || m.filter.Typing() || !m.Loaded || m.Err != nil {
		return m
	}
	m.list.Click(y-3, m.ids(), m.tableRows()) // the frame, the title, the header
	return m
}
