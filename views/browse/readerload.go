package browse

import (
	"bytes"

	tea "github.com/charmbracelet/bubbletea"
)

// The reader's index and window scans (readerscan.go) as commands, and
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

// wantLayout keeps the reader's index for the value, width and mode
// shown, and its window on the rows on screen (Update calls it after
// every message).
func (m *Model) wantLayout() tea.Cmd {
	r := m.reader
	if r == nil {
		return nil
	}
	k := m.readerKey()
	if r.idx.key != k || r.idx.gen == 0 {
		return m.startIndex(k)
	}
	return m.wantWindow()
}

// readerKey names the layout the reader wants now.
func (m Model) readerKey() layoutKey {
	return layoutKey{m.entry.e.Ver, m.entryInner(), m.reader.lines}
}

// startIndex starts the index scan for k (a search in flight starts over
// with it: its rows are the old layout's).
func (m *Model) startIndex(k layoutKey) tea.Cmd {
	r := m.reader
	r.gen++
	r.idx = readerIndex{key: k, gen: r.gen, busy: true}
	r.winBusy = false
	if r.win.key == k {
		r.win = readerWindow{} // read again: its rows may be another value's
	}
	s := newScan(m.deps.Store, m.entry.e.Raw, k.width, false, k.lines, scanPos{})
	m.entry.checkJSON(s)
	cmd := indexCmd(m.deps.Session, r.gen, s, 3*m.entryRows())
	if r.query != "" {
		cmd = tea.Batch(cmd, m.find(r.find.jump || r.find.match < 0))
	}
	return cmd
}

// onIndexStep keeps a chunk's marks and rows, and asks the next chunk.
func (m Model) onIndexStep(msg indexStep) (Model, tea.Cmd) {
	r := m.reader
	if r == nil || msg.session != m.deps.Session || msg.gen != r.idx.gen || !r.idx.busy {
		return m, nil
	}
	s, idx := msg.s, &r.idx
	idx.marks = append(idx.marks, msg.marks...)
	idx.rows, idx.read, idx.size, idx.ver, idx.json = s.pos.row, s.pos.src, s.size, s.ver, s.json
	switch {
	case len(msg.first) == 0:
	case msg.firstFrom == 0 && r.win.key != idx.key:
		r.win = readerWindow{key: idx.key, rows: msg.first}
	case r.win.key == idx.key && r.win.from == 0 && len(r.win.rows) == msg.firstFrom:
		r.win.rows = append(r.win.rows, msg.first...)
	}
	if !s.done {
		return m, indexCmd(m.deps.Session, msg.gen, s, 3*m.entryRows())
	}
	idx.busy, idx.done, idx.err = false, true, s.err
	if r.bottom {
		r.bottom = false
		m.scrollReader(1 << 30)
	}
	return m, nil
}

// wantWindow reads the rows on screen when the window lacks them.
func (m *Model) wantWindow() tea.Cmd {
	r := m.reader
	rows := m.entryRows()
	from, to := r.off, min(r.off+rows, r.idx.rows)
	if from >= to || r.win.has(r.idx.key, from, to) || len(r.idx.marks) == 0 {
		return nil
	}
	if r.winBusy && r.winWant == from {
		return nil
	}
	i := len(r.idx.marks) - 1
	for i > 0 && r.idx.marks[i].row > from {
		i--
	}
	mark := r.idx.marks[i]
	r.gen++
	r.winBusy, r.winGen, r.winWant = true, r.gen, from
	s := newScan(m.deps.Store, m.entry.e.Raw, r.idx.key.width, r.idx.json, r.idx.key.lines, mark)
	start := max(mark.row, from-rows)
	return windowCmd(m.deps.Session, r.gen, r.idx.key, s, start, from+2*rows, r.idx.ver)
}

// onWindow keeps the rows a window scan read; a value rewritten meanwhile
// is indexed again.
func (m Model) onWindow(msg windowRead) (Model, tea.Cmd) {
	r := m.reader
	if r == nil || msg.session != m.deps.Session || msg.gen != r.winGen || !r.winBusy {
		return m, nil
	}
	r.winBusy = false
	if msg.err != nil {
		r.note = "✗ " + msg.err.Error() + ": reading it again"
		r.idx.gen = 0 // wantLayout starts over
		return m, nil
	}
	r.win = readerWindow{key: msg.key, from: msg.from, rows: msg.rows}
	return m, nil
}

// layoutKey names a layout: the value (its versionstamp), the width and
// the line mode.
type layoutKey struct {
	ver   int64
	width int
	lines bool
}
