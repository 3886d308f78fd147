package browse

import (
	"strings"
	"sync/atomic"

	tea "github.com/charmbracelet/bubbletea"
)

// The reader's / searched the laid-out value on the UI goroutine: over a
// 100 MB value, seconds with the screen frozen (issue 23 point 4). It
// runs in a command over the layout (read-only once made), tagged with a
// generation; a new query, a new layout or closing the reader stops the
// one in flight (checked every few thousand rows) and drops its answer.

// finder is the reader's search in flight.
type finder struct {
	gen  int
	busy bool
	jump bool         // go to the first match from the screen when it lands
	stop *atomic.Bool // set: the search in flight gives up
}

// readerFound answers findRows.
type readerFound struct {
	session, gen int
	text         *readerText
	matches      []int
	stopped      bool
}

// stopFind stops the search in flight, if any.
func (r *readerState) stopFind() {
	if r.finder.stop != nil {
		r.finder.stop.Store(true)
	}
	r.finder.busy = false
}

// find searches the current layout for the query in a command; with jump,
// the cursor goes to the first match after the screen when it lands.
func (m *Model) find(jump bool) tea.Cmd {
	r := m.reader
	r.stopFind()
	r.matches, r.match = nil, -1
	if r.query == "" || r.text == nil {
		return nil
	}
	r.finder.gen++
	stop := &atomic.Bool{}
	r.finder = finder{gen: r.finder.gen, busy: true, jump: jump, stop: stop}
	text, query, gen, session := r.text, strings.ToLower(r.query), r.finder.gen, m.deps.Session
	return func() tea.Msg {
		out := readerFound{session: session, gen: gen, text: text}
		for i := range text.rows {
			if i%4096 == 0 && stop.Load() {
				out.stopped = true
				return out
			}
			if strings.Contains(strings.ToLower(text.row(i)), query) {
				out.matches = append(out.matches, i)
			}
		}
		return out
	}
}

// onFound shows a search's matches, if they answer the search in flight.
func (m Model) onFound(msg readerFound) (Model, tea.Cmd) {
	r := m.reader
	if r == nil || msg.session != m.deps.Session || msg.stopped || !r.finder.busy || msg.gen != r.finder.gen || msg.text != r.text {
		return m, nil
	}
	r.finder.busy = false
	r.matches, r.match = msg.matches, -1
	if r.finder.jump {
		m.nextMatch(1)
	}
	return m, nil
}
