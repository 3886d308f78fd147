package reader

import (
	"bytes"

	"kvdeck/views/browse/entry"

	tea "github.com/charmbracelet/bubbletea"
)

// The reader's index and window scans (scan.go) as commands, and
// their answers in Update.

// readerIndex is what the index scan learnt of the value laid out at one
// width and mode.
type readerIndex struct {
	key   layoutKey
	gen   int
	marks []scanPos // in source (and row) order; the first at byte 0
	rows  int       // rows finished so far; all of them when done
	read  int64     // source bytes read
	size  int64
	ver   int64
	json  bool // the value is JSON (known after the first step)
	busy  bool
	done  bool
	err   error
}

// readerWindow is the rows the reader holds: from..from+len(rows).
type readerWindow struct {
	key  layoutKey
	from int
	rows []string
}

// has reports whether w holds rows [from, to).
func (w readerWindow) has(k layoutKey, from, to int) bool {
	return w.key == k && from >= w.from && to <= w.from+len(w.rows)
}

// indexStep answers one chunk of the index scan.
type indexStep struct {
	session, gen int
	s            *scan
	marks        []scanPos
	first        []string // rows of the first screens, read on the way
	firstFrom    int      // the row first starts at
}

// windowRead answers a window scan.
type windowRead struct {
	session, gen int
	key          layoutKey
	from         int
	rows         []string
	err          error
}

// windowChunk is the source a window scan reads at a time: the rows it
// wants are within a mark's distance (scanMarkEvery) of where it starts.
const windowChunk = 2 * scanMarkEvery

// indexCmd runs the index scan's next chunk; the rows before keep are
// sent along, for the first screen.
func indexCmd(session, gen int, s *scan, keep int) tea.Cmd {
	return func() tea.Msg {
		out := indexStep{session: session, gen: gen, s: s, firstFrom: s.pos.row}
		s.mark = func(p scanPos) { out.marks = append(out.marks, p) }
		s.emit = func(row int, text []byte, _ bool) {
			if row < keep {
				out.first = append(out.first, string(text))
			}
		}
		ctx, cancel := scanCtx()
		defer cancel()
		s.step(ctx, 0, 0)
		s.mark, s.emit = nil, nil
		return out
	}
}

// windowCmd scans from a mark until rows [from, to) are read.
func windowCmd(session, gen int, k layoutKey, s *scan, from, to int, ver int64) tea.Cmd {
	return func() tea.Msg {
		out := windowRead{session: session, gen: gen, key: k, from: from}
		s.emit = func(row int, text []byte, _ bool) {
			if row >= from && row < to {
				out.rows = append(out.rows, string(bytes.Clone(text)))
			}
		}
		s.target = func() bool { return s.pos.row >= to }
		ctx, cancel := scanCtx()
		defer cancel()
		for !s.done && s.pos.row < to {
			s.step(ctx, windowChunk, ver)
		}
		out.err = s.err
		return out
	}
}

// Layout keeps the reader's index for the value, width and mode shown,
// and its window on the rows on screen. The parent calls it after every
// message: SetSize and SetRow, which change the layout, cannot answer
// with a command.
func (m *Model) Layout() tea.Cmd {
	if !m.open {
		return nil
	}
	k := m.layoutKey()
	if m.idx.key != k || m.idx.gen == 0 {
		return m.startIndex(k)
	}
	return m.wantWindow()
}

// layoutKey names the layout the reader wants now.
func (m Model) layoutKey() layoutKey {
	return layoutKey{m.row.E.Ver, m.inner(), m.lines}
}

// startIndex starts the index scan for k (a search in flight starts over
// with it: its rows are the old layout's).
func (m *Model) startIndex(k layoutKey) tea.Cmd {
	m.gen++
	m.idx = readerIndex{key: k, gen: m.gen, busy: true}
	m.winBusy = false
	if m.win.key == k {
		m.win = readerWindow{} // read again: its rows may be another value's
	}
	s := newScan(m.deps.Store, m.row.E.Raw, k.width, false, k.lines, scanPos{})
	checkJSON(m.row, s)
	cmd := indexCmd(m.deps.Session, m.gen, s, 3*m.rows())
	if m.query != "" {
		cmd = tea.Batch(cmd, m.startFind(m.find.jump || m.find.match < 0))
	}
	return cmd
}

// checkJSON tells a scan of row's value whether it is JSON: the database
// said so for a cut value; a whole one is checked in the scan's command.
func checkJSON(row entry.Row, s *scan) {
	if row.Cut {
		s.json = row.JSON
		return
	}
	s.check = row.E.Value
}

// onIndexStep keeps a chunk's marks and rows, and asks the next chunk.
func (m Model) onIndexStep(msg indexStep) (Model, tea.Cmd) {
	if !m.open || msg.session != m.deps.Session || msg.gen != m.idx.gen || !m.idx.busy {
		return m, nil
	}
	s, idx := msg.s, &m.idx
	idx.marks = append(idx.marks, msg.marks...)
	idx.rows, idx.read, idx.size, idx.ver, idx.json = s.pos.row, s.pos.src, s.size, s.ver, s.json
	switch {
	case len(msg.first) == 0:
	case msg.firstFrom == 0 && m.win.key != idx.key:
		m.win = readerWindow{key: idx.key, rows: msg.first}
	case m.win.key == idx.key && m.win.from == 0 && len(m.win.rows) == msg.firstFrom:
		m.win.rows = append(m.win.rows, msg.first...)
	}
	if !s.done {
		return m, indexCmd(m.deps.Session, msg.gen, s, 3*m.rows())
	}
	idx.busy, idx.done, idx.err = false, true, s.err
	if m.bottom {
		m.bottom = false
		m.scroll(1 << 30)
	}
	return m, nil
}

// wantWindow reads the rows on screen when the window lacks them.
func (m *Model) wantWindow() tea.Cmd {
	rows := m.rows()
	from, to := m.off, min(m.off+rows, m.idx.rows)
	if from >= to || m.win.has(m.idx.key, from, to) || len(m.idx.marks) == 0 {
		return nil
	}
	if m.winBusy && m.winWant == from {
		return nil
	}
	i := len(m.idx.marks) - 1
	for i > 0 && m.idx.marks[i].row > from {
		i--
	}
	mark := m.idx.marks[i]
	m.gen++
	m.winBusy, m.winGen, m.winWant = true, m.gen, from
	s := newScan(m.deps.Store, m.row.E.Raw, m.idx.key.width, m.idx.json, m.idx.key.lines, mark)
	start := max(mark.row, from-rows)
	return windowCmd(m.deps.Session, m.gen, m.idx.key, s, start, from+2*rows, m.idx.ver)
}

// onWindow keeps the rows a window scan read; a value rewritten meanwhile
// is indexed again.
func (m Model) onWindow(msg windowRead) (Model, tea.Cmd) {
	if !m.open || msg.session != m.deps.Session || msg.gen != m.winGen || !m.winBusy {
		return m, nil
	}
	m.winBusy = false
	if msg.err != nil {
		m.note = "✗ " + msg.err.Error() + ": reading it again"
		m.idx.gen = 0 // Layout starts over
		return m, nil
	}
	m.win = readerWindow{key: msg.key, from: msg.from, rows: msg.rows}
	return m, nil
}

// layoutKey names a layout: the value (its versionstamp), the width and
// the line mode.
type layoutKey struct {
	ver   int64
	width int
	lines bool
}
