package changefeed

import (
	"bytes"

	"kvdeck/store"
)

// MemRows keeps in memory the newest Max rows read (the Activity tab's:
// as many as the events it shows, so that every row the list shows is
// watched), re-read in turn, oldest read first.
type MemRows struct {
	// Max bounds the rows kept (Settle lets go of the oldest read).
	Max   int
	seen  map[string]store.Entry
	order [][]byte // raw keys, oldest read first
	turn  int      // where in order the next batch starts
}

// Get is the row seen at raw.
func (m *MemRows) Get(raw []byte) (Row, bool) {
	e, ok := m.seen[string(raw)]
	return Row{Entry: e}, ok
}

// Put keeps e at the newest end.
func (m *MemRows) Put(e store.Entry) {
	if m.seen == nil {
		m.seen = map[string]store.Entry{}
	}
	if _, ok := m.seen[string(e.Raw)]; ok {
		m.dropOrder(e.Raw)
	}
	m.seen[string(e.Raw)] = e
	m.order = append(m.order, e.Raw)
}

// Drop forgets the row at raw.
func (m *MemRows) Drop(raw []byte) {
	delete(m.seen, string(raw))
	m.dropOrder(raw)
}

// Len is how many rows are kept.
func (m *MemRows) Len() int { return len(m.order) }

// Next is the next n rows kept, in turn.
func (m *MemRows) Next(n int) [][]byte {
	n = min(n, len(m.order))
	out := make([][]byte, 0, n)
	for i := range n {
		out = append(out, m.order[(m.turn+i)%len(m.order)])
	}
	if len(m.order) > 0 {
		m.turn = (m.turn + n) % len(m.order)
	}
	return out
}

// Expired is the rows kept whose expiry is at or before now, oldest read
// first.
func (m *MemRows) Expired(now int64) [][]byte {
	var out [][]byte
	for _, raw := range m.order {
		if !m.seen[string(raw)].Live(now) {
			out = append(out, raw)
		}
	}
	return out
}

// Settle lets go of the rows past Max, once a page (dropping them one by
// one copied the window for each row of a bulk write): they are no
// longer re-read.
func (m *MemRows) Settle() {
	if over := len(m.order) - m.Max; over > 0 {
		for _, k := range m.order[:over] {
			delete(m.seen, string(k))
		}
		m.order = append([][]byte(nil), m.order[over:]...)
		m.turn = max(m.turn-over, 0)
	}
}

func (m *MemRows) dropOrder(raw []byte) {
	for i, k := range m.order {
		if bytes.Equal(k, raw) {
			m.order = append(m.order[:i:i], m.order[i+1:]...)
			if i < m.turn {
				m.turn-- // the rows after it moved down one: skip none
			}
			return
		}
	}
}
