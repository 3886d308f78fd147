package alarms

import (
	"kvdeck/codec"
	"kvdeck/store/coord"
)

// Select puts the cursor on the alarm of row k, a due entry or a by-id
// record (a by-id record that a due entry matches is listed as that
// entry), now or when the alarms come: the jump from Browse (o). The
// filter is cleared so that the row shows.
func (m *Model) Select(k codec.Key) {
	m.filter.Set("", &m.keys.FilterKeys)
	m.want = k
	if m.Loaded {
		m.selectWanted()
	}
}

// selectWanted selects the row Select asked for in the loaded classes.
func (m *Model) selectWanted() {
	k := m.want
	m.want = nil
	if len(k) < 3 || k[1].Kind() != codec.KindString || k[len(k)-1].Kind() != codec.KindString {
		return
	}
	class, id := k[1].StringValue(), k[len(k)-1].StringValue()
	m.lists.Groups.ID, m.lists.Items.ID, m.lists.OnItems = class, codec.Format(k), true
	for _, c := range m.classes {
		if c.Class != class {
			continue
		}
		for _, it := range classItems(c) {
			if it.Key.Equal(k) {
				m.lists.Items.ID = codec.Format(it.Key)
				break
			}
			if it.ID == id && k[0].StringValue() == coord.PrefixAlarmByID {
				m.lists.Items.ID = codec.Format(it.Key) // its due entry
			}
		}
	}
	m.lists.Keep(m.sides())
}

// Selected is the key of the selected alarm's row.
func (m Model) Selected() (codec.Key, bool) {
	it, ok := m.item()
	return it.Key, ok && m.lists.OnItems
}
