package reader

import (
	"context"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
)

// The reader never holds the whole value: a scan streams the value from
// the store (store.ValueChunk), turns it into the text the reader shows
// (indented when it is JSON, with lines its strings' \n as line breaks,
// sanitized: the pager's pipeline, entry.Stream) and wraps it into rows,
// one row at a time. Three scans run over it, each a chain of commands of
// one chunk each (never on the UI goroutine, and stopped between two
// chunks):
//
//   - the index counts the rows and keeps a mark every scanMarkEvery
//     source bytes (the scan's whole state there: a few hundred bytes);
//   - a window scan starts at the mark before the rows on screen and keeps
//     a few screens of rows;
//   - a search scan matches each row against the query.
//
// Memory is a chunk (store.ValueChunkFor: 256 KiB to 8 MiB) plus the
// window, whatever the value's size.

// scanMarkEvery is the source bytes between two marks of the index: a
// window scan reads at most this much before the rows it keeps.
const scanMarkEvery = 256 << 10

// errValueChanged: the value was rewritten between two chunks of a scan.
var errValueChanged = errors.New("the value changed while it was read")

// errValueGone: the key was deleted while the value was read.
var errValueGone = errors.New("the key is gone: it was deleted while it was read")

// scanPos is a scan's whole state between two source bytes: where to go
// on reading, and the row it is in. A copy of it is an index mark.
type scanPos struct {
	src   int64  // the next source byte
	tail  []byte // an incomplete UTF-8 sequence, completed by the next bytes
	ind   entry.Indenter
	row   int    // the open row's index
	cells int    // cells on the open row
	open  []byte // the open row's text
}

// clone copies p, its slices included.
func (p scanPos) clone() scanPos {
	p.tail = append([]byte(nil), p.tail...)
	p.open = append([]byte(nil), p.open...)
	p.ind = p.ind.Copy() // a copy shares no buffer with the scan it came from
	return p
}

// scan is one pass over a row's value. Only the command running its
// current step touches it: the steps run one after the other.
type scan struct {
	src   *store.Store
	raw   []byte
	width int
	json  bool
	pos   scanPos
	size  int64
	ver   int64
	known bool // size and ver are read (the first chunk is in)
	// check, when set, is the value as the entry read it: whether it is
	// JSON is decided at the first step, off the UI goroutine.
	check  []byte
	done   bool
	err    error
	emit   func(row int, text []byte, wraps bool) // each finished row; wraps: the next row goes on with its line
	mark   func(p scanPos)                        // at every scanMarkEvery source bytes
	target func() bool                            // stop once it answers true
}

// newScan starts a scan at pos (a mark, or the start).
func newScan(src *store.Store, raw []byte, width int, json, lines bool, pos scanPos) *scan {
	s := &scan{src: src, raw: raw, width: max(width, 1), json: json, pos: pos.clone()}
	s.pos.ind.SetLines(lines)
	return s
}

// step reads the next chunk (chunk bytes; 0: store.ValueChunkFor the
// size) and feeds it; want ver (non-zero) is the stamp the scan must read.
func (s *scan) step(ctx context.Context, chunk int, want int64) {
	if s.done {
		return
	}
	if s.check != nil {
		s.json, s.check = json.Valid(s.check), nil
	}
	if chunk <= 0 {
		chunk = store.ValueChunkSize
		if s.known {
			chunk = store.ValueChunkFor(s.size)
		}
	}
	part, err := s.src.ValueChunk(ctx, s.raw, s.pos.src, chunk)
	switch {
	case err != nil:
		s.fail(err)
		return
	case !part.Found:
		s.fail(errValueGone)
		return
	case s.known && part.Ver != s.ver || want != 0 && part.Ver != want:
		s.fail(errValueChanged)
		return
	}
	s.known, s.ver, s.size = true, part.Ver, part.Size
	b := part.Bytes
	for len(b) > 0 && !s.done {
		n := min(len(b), scanMarkEvery-int(s.pos.src%scanMarkEvery))
		if s.pos.src%scanMarkEvery == 0 && s.mark != nil {
			s.mark(s.pos.clone())
		}
		s.feed(b[:n], s.pos.src+int64(n) >= s.size)
		b = b[n:]
		if s.target != nil && s.target() {
			return
		}
	}
	if len(part.Bytes) == 0 || s.pos.src >= s.size {
		s.feed(nil, true)
	}
}

// fail ends the scan with err.
func (s *scan) fail(err error) {
	s.err, s.done = err, true
}

// feed turns source bytes into text and rows; last: they end the value,
// and the open row is the last one.
func (s *scan) feed(b []byte, last bool) {
	if s.done {
		return
	}
	p := &s.pos
	p.src += int64(len(b))
	data := append(p.tail, b...)
	p.tail = nil
	if !last {
		data, p.tail = entry.CutRune(data)
	}
	if s.json {
		data = p.ind.Write(data)
	}
	s.rows(usertext.SanitizeLines(string(data)))
	if last {
		s.finish(false)
		s.done = true
	}
}

// rows wraps text into rows of at most width cells, as the reader shows
// them: a line break ends a row, an empty line is an empty row.
func (s *scan) rows(text string) {
	p := &s.pos
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\n' {
			s.finish(false)
			i++
			continue
		}
		size, width := 1, 1
		if c >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(text[i:])
			width = ansi.StringWidth(text[i : i+size])
		}
		if p.cells+width > s.width && len(p.open) > 0 {
			s.finish(true)
		}
		p.open = append(p.open, text[i:i+size]...)
		p.cells += width
		i += size
	}
}

// finish ends the open row; wraps: the next row goes on with its line
// (the row is full), rather than a line break or the value's end.
func (s *scan) finish(wraps bool) {
	p := &s.pos
	if s.emit != nil {
		s.emit(p.row, p.open, wraps)
	}
	p.row++
	p.open, p.cells = p.open[:0], 0
}

// scanCtx is a chunk read's context.
func scanCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), views.ReadTimeout)
}
