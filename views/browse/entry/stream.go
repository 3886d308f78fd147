package entry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
)

// A value of any size reaches the pager streamed: the pager's stdin reads
// from a Stream, which reads the row's value from the store a chunk at a
// time (store.ValueChunk; store.ValueChunkFor: about a 16th of the value,
// 256 KiB to 8 MiB), indents it when it is JSON and sanitizes it as it
// goes, so that neither kvdeck nor a temporary file holds the whole value
// for the pager. A pager that quits early stops the reads at the next
// chunk.

// Stream is an io.Reader over a row's value as the reader shows it.
type Stream struct {
	src   *store.Store
	raw   []byte
	off   int64
	ver   int64
	size  int64
	first bool
	tail  []byte // an incomplete UTF-8 sequence, completed by the next chunk
	json  *Indenter
	out   bytes.Buffer
	done  bool
}

// NewStream streams the value of the row whose encoded key is raw; json
// says the value is JSON (indented, and with lines, its strings' \n
// escapes as line breaks).
func NewStream(src *store.Store, raw []byte, json, lines bool) *Stream {
	v := &Stream{src: src, raw: raw, first: true}
	if json {
		v.json = &Indenter{}
		v.json.SetLines(lines)
	}
	return v
}

// Read implements io.Reader.
func (v *Stream) Read(p []byte) (int, error) {
	for v.out.Len() == 0 {
		if v.done {
			return 0, io.EOF
		}
		v.fill()
	}
	return v.out.Read(p)
}

// fill reads the next chunk into out. A failure, a vanished key or a value
// that changed between chunks ends the text with a line that says so.
func (v *Stream) fill() {
	ctx, cancel := context.WithTimeout(context.Background(), views.ReadTimeout)
	defer cancel()
	n := store.ValueChunkSize // the first chunk tells the size
	if !v.first {
		n = store.ValueChunkFor(v.size)
	}
	part, err := v.src.ValueChunk(ctx, v.raw, v.off, n)
	switch {
	case err != nil:
		v.stop(fmt.Sprintf("the rest of the value could not be read: %v", err))
		return
	case !part.Found:
		v.stop("the key is gone: it was deleted while it was read")
		return
	case !v.first && part.Ver != v.ver:
		v.stop("the value changed while it was read (stamp " + store.Entry{Ver: part.Ver}.Versionstamp() + "): the rest would be another value's")
		return
	}
	v.first, v.ver, v.size = false, part.Ver, part.Size
	v.off += int64(len(part.Bytes))
	last := len(part.Bytes) == 0 || v.off >= part.Size
	data := append(v.tail, part.Bytes...)
	v.tail = nil
	if !last {
		data, v.tail = CutRune(data)
	}
	if v.json != nil {
		data = v.json.Write(data)
	}
	v.out.WriteString(usertext.SanitizeLines(string(data)))
	if last {
		v.out.WriteByte('\n')
		v.done = true
	}
}

// stop ends the text with a line saying why.
func (v *Stream) stop(why string) {
	v.out.WriteString("\n✗ " + usertext.Sanitize(why) + "\n")
	v.done = true
}

// CutRune splits b before an incomplete UTF-8 sequence at its end.
func CutRune(b []byte) (whole, tail []byte) {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i], append([]byte{}, b[i:]...)
			}
			break
		}
	}
	return b, nil
}

// Indenter indents valid JSON as json.Indent(dst, src, "", "  ") does, a
// chunk at a time; with lines, the \n escapes in strings break the line
// (the next line indented two more than the line the string started on).
// Its zero value indents without lines; a copy (Copy) is the whole state
// of the indentation between two chunks.
type Indenter struct {
	lines      bool
	depth      int
	inString   bool
	escaped    bool
	needIndent bool // after { or [: the newline waits for a non-empty body
	lineIndent int
	buf        []byte // the last output's array, reused by the next write
}

// SetLines sets whether strings' \n escapes break the line.
func (j *Indenter) SetLines(lines bool) { j.lines = lines }

// Copy returns the indenter's state without its output buffer: a copy
// shares no buffer with the indenter it came from.
func (j Indenter) Copy() Indenter {
	j.buf = nil
	return j
}

// Write returns chunk indented, valid until the next write.
func (j *Indenter) Write(chunk []byte) []byte {
	out := j.buf[:0]
	defer func() { j.buf = out[:0] }()
	for _, c := range chunk {
		if j.inString {
			out = j.stringByte(out, c)
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		if j.needIndent && c != '}' && c != ']' {
			j.needIndent = false
			out = j.newline(out, j.depth)
		}
		out = j.structural(out, c)
	}
	return out
}

// newline ends the line and indents the next at depth.
func (j *Indenter) newline(out []byte, depth int) []byte {
	out = append(out, '\n')
	out = append(out, strings.Repeat("  ", depth)...)
	j.lineIndent = 2 * depth
	return out
}

// stringByte appends c, a byte inside a string; with lines, a \n escape
// breaks the line instead.
func (j *Indenter) stringByte(out []byte, c byte) []byte {
	switch {
	case j.escaped:
		j.escaped = false
		if c == 'n' && j.lines {
			out = out[:len(out)-1] // the backslash
			out = append(out, '\n')
			return append(out, strings.Repeat(" ", j.lineIndent+2)...)
		}
	case c == '\\':
		j.escaped = true
	case c == '"':
		j.inString = false
	}
	return append(out, c)
}

// structural appends c, a byte outside strings, with the line breaks and
// spaces around it.
func (j *Indenter) structural(out []byte, c byte) []byte {
	switch c {
	case '"':
		j.inString = true
		out = append(out, c)
	case '{', '[':
		out = append(out, c)
		j.depth++
		j.needIndent = true
	case '}', ']':
		j.depth--
		if j.needIndent {
			j.needIndent = false
		} else {
			out = j.newline(out, j.depth)
		}
		out = append(out, c)
	case ',':
		out = append(out, c)
		out = j.newline(out, j.depth)
	case ':':
		out = append(out, ':', ' ')
	default:
		out = append(out, c)
	}
	return out
}

// WriteIndented writes value to w as json.Indent(value, "", "  ") would
// when it is JSON (else as it is), and a final newline, a chunk at a time.
func WriteIndented(w io.Writer, value []byte, isJSON bool) error {
	const chunk = 1 << 20
	var ind Indenter
	for len(value) > 0 {
		part := value[:min(chunk, len(value))]
		value = value[len(part):]
		if isJSON {
			part = ind.Write(part)
		}
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	_, err := w.Write([]byte{'\n'})
	return err
}
