package cli

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/mattn/go-isatty"

	"kvdeck/codec"
	"kvdeck/internal/dumpfile"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// Printer writes a command's results to stdout: text lines for people, or,
// with --output json, one JSON object per line (keys in tagged JSON form,
// versionstamps as 20-digit strings, times as epoch milliseconds or null).
// The first write error is kept and returned by Flush.
//
// Everything a Printer writes passes the terminal-safety rule of
// usertext: text through usertext.SanitizeLines, JSON through
// usertext.EscapeJSON, so no stored byte sequence (OSC 52, title, CSI,
// C1, bidi override) reaches the terminal raw, whichever command prints
// it and whatever it forgot.
type Printer struct {
	w    *bufio.Writer
	buf  bytes.Buffer // one JSON line before it is escaped
	line []byte       // an entry's line (Entry), kept for the next
	enc  *json.Encoder
	json bool
	err  error
	// tty is stdout when it is a terminal (Terminal, Redraw).
	tty *os.File
}

func newPrinter(w io.Writer, jsonMode bool) *Printer {
	p := &Printer{w: bufio.NewWriter(w), json: jsonMode}
	p.enc = json.NewEncoder(&p.buf)
	p.enc.SetEscapeHTML(false)
	if f, ok := w.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		p.tty = f
	}
	return p
}

// Terminal is the size of the terminal the output goes to; ok is false
// when it goes elsewhere (a pipe, a file) or the size is unknown.
func (p *Printer) Terminal() (width, height int, ok bool) {
	if p.tty == nil {
		return 0, 0, false
	}
	width, height, err := term.GetSize(p.tty.Fd())
	return width, height, err == nil && width > 0 && height > 0
}

// Redraw puts lines on the terminal in place of what the last Redraw
// put there (the output must be a terminal: Terminal): the cursor goes
// to the top left, each line is written over the old one and erased to
// its end, the rest of the screen is erased, and the output is flushed.
// The cursor ends on the line below the last, so lines must be fewer
// than the terminal's rows (else the screen scrolls).
// The lines pass usertext.Sanitize, so Redraw's own sequences are the
// only ones that reach the terminal.
func (p *Printer) Redraw(lines []string) error {
	if p.err != nil {
		return p.err
	}
	var b strings.Builder
	b.WriteString(cursorHome)
	for _, l := range lines {
		b.WriteString(usertext.Sanitize(l) + eraseLine + "\n")
	}
	b.WriteString(eraseBelow)
	if _, p.err = io.WriteString(p.w, b.String()); p.err == nil {
		p.err = p.w.Flush()
	}
	return p.err
}

// The ANSI sequences of Redraw (ECMA-48: CUP, EL, ED).
const (
	cursorHome = "\x1b[H"
	eraseLine  = "\x1b[K"
	eraseBelow = "\x1b[J"
)

// JSON reports whether the output is JSON lines.
func (p *Printer) JSON() bool { return p.json }

// Object writes v as one JSON line, whatever the mode.
func (p *Printer) Object(v any) {
	if p.err != nil {
		return
	}
	p.buf.Reset()
	if p.err = p.enc.Encode(v); p.err == nil {
		_, p.err = p.w.Write(usertext.EscapeJSON(p.buf.Bytes()))
	}
}

// Textf writes one text line (or several, separated by line feeds),
// whatever the mode; a trailing newline is added.
func (p *Printer) Textf(format string, args ...any) {
	if p.err == nil {
		p.text(fmt.Sprintf(format, args...))
	}
}

// text writes s sanitized, then a newline (an entry's line goes here
// directly: a listing writes one per row).
func (p *Printer) text(s string) {
	if p.err == nil {
		_, p.err = io.WriteString(p.w, usertext.SanitizeLines(s))
	}
	if p.err == nil {
		p.err = p.w.WriteByte('\n')
	}
}

// Result writes v as a JSON line in JSON mode, and text (one or more lines,
// without the final newline) otherwise.
func (p *Printer) Result(v any, text string) {
	if p.json {
		p.Object(v)
		return
	}
	p.Textf("%s", text)
}

// Flush writes what is buffered and returns the first write error.
func (p *Printer) Flush() error {
	if err := p.w.Flush(); p.err == nil {
		p.err = err
	}
	return p.err
}

// entryJSON is the JSON shape of a store entry (dumpfile.Row: the dump
// line format lives there, shared with the TUI's export).
type entryJSON = dumpfile.Row

// Entry writes one row. physical adds the raw hex and the expired flag
// (dump); now decides that flag.
func (p *Printer) Entry(e store.Entry, now int64, physical bool) {
	if !p.json {
		p.text(entryText(e, now, physical))
		return
	}
	if p.err != nil {
		return
	}
	if p.line, p.err = dumpfile.AppendLine(p.line[:0], e, now, physical); p.err == nil {
		_, p.err = p.w.Write(p.line)
	}
}

// Absent writes the entry of a key without a live row: value, versionstamp
// and expiresAt null (the reference's get result).
func (p *Printer) Absent(k codec.Key) {
	p.Result(entryJSON{Key: &k, Value: json.RawMessage("null")}, codec.Format(k)+"  (absent)")
}

// entryText is the text line of an entry:
//
//	["users", "alice"] {"plan":"pro"} v=00000000000000000003 expires=2026-01-02T00:00:45Z
//
// followed, when they apply, by "expired" (physical rows only) and
// "error: ...". A key that does not decode shows as 0x<hex>, a value that
// is not JSON as raw:"<quoted text>".
func entryText(e store.Entry, now int64, physical bool) string {
	var b strings.Builder
	b.Grow(2*len(e.Raw) + len(e.Value) + 80) // the key's text, the value, the stamp and expiry
	switch {
	case e.KeyNull:
		b.WriteString("NULL")
	case e.KeyErr != nil:
		b.WriteString("0x" + hex.EncodeToString(e.Raw))
	default:
		b.WriteString(codec.Format(e.Key))
	}
	b.WriteString("  ")
	if e.ValueNull {
		b.WriteString("NULL")
	} else if v, ok := jsonValue(e.Value); ok {
		b.Write(v)
	} else {
		b.WriteString("raw:" + strconv.Quote(string(e.Value)))
	}
	b.WriteString("  v=" + e.Versionstamp())
	if e.ExpiresAt != nil {
		b.WriteString("  expires=" + timeText(*e.ExpiresAt))
	}
	if physical && !e.Live(now) {
		b.WriteString("  expired")
	}
	if msg := entryError(e); msg != "" {
		b.WriteString("  error: " + msg)
	}
	return b.String()
}

// entryError says what is wrong with a row, "" when nothing is: why it
// does not decode, and which of its columns holds what the reference never
// writes.
func entryError(e store.Entry) string {
	msgs := []string{decodeError(e)}
	if msgs[0] == "" {
		msgs = nil
	}
	if e.Malformed != "" {
		msgs = append(msgs, e.Malformed)
	}
	return strings.Join(msgs, "; ")
}

// decodeError, the null errors, validJSON and jsonValue are dumpfile's:
// a dump line's "error" field and value (see there).
func decodeError(e store.Entry) string { return dumpfile.DecodeError(e) }

const nullValueError = dumpfile.NullValueError

func validJSON(b []byte) bool { return dumpfile.ValidJSON(b) }

func jsonValue(raw []byte) (json.RawMessage, bool) { return dumpfile.JSONValue(raw) }

// marshalString is a JSON string literal of s without HTML escaping.
func marshalString(s string) json.RawMessage { return dumpfile.String(s) }

// entryStamp is the row's versionstamp, "" when its ver is malformed.
func entryStamp(e store.Entry) string { return dumpfile.Stamp(e) }

// valueTextRunes is how much of a value a text line shows (diff, queue
// list); -o json prints every value whole.
const valueTextRunes = 80

// shortValue is a value's text for a text line: cut after valueTextRunes
// runes, with "…" where it was cut.
func shortValue(s string) string {
	r := []rune(s)
	if len(r) <= valueTextRunes {
		return s
	}
	return string(r[:valueTextRunes]) + "…"
}

// timeText is how every text output of the CLI writes an instant: RFC
// 3339 in UTC with three millisecond digits, always
// (usertext.FormatTimeFixed: 2026-01-02T00:00:45.000Z), so one instant
// reads the same in get, list, dump, diff, watch, the coordination
// commands, sweep, undo and demo, and a column of times keeps its width
// (some dropped trailing zeros, others kept three).
func timeText(ms int64) string { return usertext.FormatTimeFixed(ms) }

// stampOrNull is a versionstamp for JSON output: nil (null) when empty.
func stampOrNull(s string) *string { return dumpfile.StampOrNull(s) }
