package queues

import "kvdeck/codec"

// Select puts the cursor on the message of row k (["dwk_queue_due",
// queue, dueAt, id]), now or when the queues come: the jump from Browse
// (o). The filter is cleared so that the row shows.
func (m *Model) Select(k codec.Key) {
	m.filter.Set("", &m.keys.FilterKeys)
	if len(k) != 4 || k[1].Kind() != codec.KindString || k[3].Kind() != codec.KindString {
		return
	}
	m.peek = nil
	m.closeReport()
	m.lists.Groups.ID, m.lists.Items.ID, m.lists.OnItems = k[1].StringValue(), k[3].StringValue(), true
	if m.Loaded {
		m.lists.Keep(m.sides())
	}
}

// Selected is the key of the selected message's row.
func (m Model) Selected() (codec.Key, bool) {
	msg, ok := m.message()
	return msg.Key, ok && m.lists.OnItems
}
