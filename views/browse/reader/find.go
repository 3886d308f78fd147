package reader

import (
	"bytes"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views/widgets"
)

// The reader's / streams through the whole value (a search scan,
// scan.go), a chunk per command: the matches arrive as it goes ("match 3
// of ≥10 so far", "searching 12 MB of 40 MB…"), esc stops it between two
// chunks, and a new query or layout drops it. A match is a row holding
// the query, case aside.

// searchKeep bounds the matches kept (8 bytes each); past it they are
// counted only.
const searchKeep = 1 << 20

// readerSearch is the reader's query and its matches.
type readerSearch struct {
	gen     int
	busy    bool
	done    bool // the whole value was searched
	stopped bool // esc stopped it
	jump    bool // go to the first match from the screen when it lands
	matches []int
	count   int // all matches, kept or not
	match   int // index into matches of the current one, -1 for none
	read    int64
	size    int64
	err     error
}

// searchStep answers one chunk of a search scan.
type searchStep struct {
	session, gen int
	s            *scan
	rm           *rowMatcher
	matches      []int
	count        int
}

// rowMatcher finds the rows holding a query, case aside, a query that a
// wrap splits over two rows included (the match is the row where it
// starts: a 36-character id in an 80-column row is split about every
// other time). Like the scan, only the command running the search's
// current step touches it.
type rowMatcher struct {
	query   []byte // lower case
	tail    []byte // the end of the last row, lower case, when the next row goes on with its line
	tailRow int
	tailHit bool // the last row matched on its own
}

// row takes the next row and calls hit with each row found to match, in
// order.
func (rm *rowMatcher) row(row int, text []byte, wraps bool, hit func(row int)) {
	low := bytes.ToLower(text)
	if len(rm.tail) > 0 && !rm.tailHit {
		head := low[:min(len(low), len(rm.query)-1)]
		if bytes.Contains(append(rm.tail, head...), rm.query) {
			hit(rm.tailRow)
		}
	}
	own := bytes.Contains(low, rm.query)
	if own {
		hit(row)
	}
	rm.tail, rm.tailRow, rm.tailHit = rm.tail[:0], row, own
	if wraps {
		rm.tail = append(rm.tail, low[max(0, len(low)-(len(rm.query)-1)):]...)
	}
}

// searchCmd runs the search scan's next chunk.
func searchCmd(session, gen int, s *scan, rm *rowMatcher, kept int) tea.Cmd {
	return func() tea.Msg {
		out := searchStep{session: session, gen: gen, s: s, rm: rm}
		hit := func(row int) {
			out.count++
			if kept+len(out.matches) < searchKeep {
				out.matches = append(out.matches, row)
			}
		}
		s.emit = func(row int, text []byte, wraps bool) { rm.row(row, text, wraps, hit) }
		ctx, cancel := scanCtx()
		defer cancel()
		s.step(ctx, 0, 0)
		s.emit = nil
		return out
	}
}

// startFind starts the search for the query over the layout wanted now;
// with jump, the cursor goes to the first match after the screen as soon
// as one is found.
func (m *Model) startFind(jump bool) tea.Cmd {
	m.gen++
	m.find = readerSearch{gen: m.gen, match: -1, jump: jump}
	if m.query == "" {
		return nil
	}
	m.find.busy = true
	k := m.layoutKey()
	s := newScan(m.deps.Store, m.row.E.Raw, k.width, m.idx.json, k.lines, scanPos{})
	if m.idx.key != k || m.idx.ver == 0 {
		checkJSON(m.row, s) // not known yet: decided in the command
	}
	return searchCmd(m.deps.Session, m.gen, s, &rowMatcher{query: bytes.ToLower([]byte(m.query))}, 0)
}

// stopFind stops the search in flight, keeping what it found.
func (m *Model) stopFind() {
	if m.find.busy {
		m.find.busy, m.find.stopped = false, true
		m.gen++ // the step in flight is dropped
	}
}

// onSearchStep keeps a chunk's matches and asks the next chunk.
func (m Model) onSearchStep(msg searchStep) (Model, tea.Cmd) {
	if !m.open || msg.session != m.deps.Session || msg.gen != m.find.gen || !m.find.busy {
		return m, nil
	}
	f, s := &m.find, msg.s
	f.matches = append(f.matches, msg.matches...)
	f.count += msg.count
	f.read, f.size = s.pos.src, s.size
	if s.done {
		f.busy, f.done, f.err = false, s.err == nil, s.err
	}
	if f.jump && m.jumpToMatch() {
		f.jump = false
	}
	if !s.done {
		return m, searchCmd(m.deps.Session, msg.gen, s, msg.rm, len(f.matches))
	}
	return m, nil
}

// jumpToMatch goes to the first match from the screen, once there is one
// (wrapping to the first when the search is over); it reports whether it
// went.
func (m *Model) jumpToMatch() bool {
	f := &m.find
	for i, row := range f.matches {
		if row >= m.off {
			m.goToMatch(i)
			return true
		}
	}
	if !f.busy && len(f.matches) > 0 {
		m.goToMatch(0)
		return true
	}
	return false
}

// goToMatch makes match i the current one, on screen.
func (m *Model) goToMatch(i int) {
	m.find.match = i
	row := m.find.matches[i]
	total := max(m.idx.rows, row+1)
	m.off = widgets.ScrollTo(m.off, row, m.rows(), total)
}

// nextMatch goes to the next match (dir 1) or the previous one (-1). From
// a match on screen it steps to its neighbour; otherwise it starts from
// the rows shown, so that n after G or a page finds the match after what
// is on screen, not after the last one found. Past the last match it
// wraps, and says so; while the search is still going it stops there
// and says so instead (a later match may come).
func (m *Model) nextMatch(dir int) {
	f := &m.find
	m.note = ""
	if len(f.matches) == 0 {
		f.match = -1
		return
	}
	rows, n := m.rows(), len(f.matches)
	onScreen := f.match >= 0 && f.matches[f.match] >= m.off && f.matches[f.match] < m.off+rows
	next := -1
	switch {
	case onScreen:
		next = f.match + dir
	case dir > 0:
		next = n
		for i, row := range f.matches {
			if row >= m.off {
				next = i
				break
			}
		}
	default:
		for i := n - 1; i >= 0; i-- {
			if f.matches[i] < m.off+rows {
				next = i
				break
			}
		}
	}
	switch {
	case next >= 0 && next < n:
	case f.busy || f.stopped || f.count > n:
		m.note = "no further match found yet"
		if f.stopped {
			m.note = "no further match: the search was stopped"
		}
		return
	case next >= n:
		next, m.note = 0, "wrapped to the first match"
	default:
		next, m.note = n-1, "wrapped to the last match"
	}
	m.goToMatch(next)
}
