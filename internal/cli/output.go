package cli

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kvdeck/codec"
	"kvdeck/store"
)

// Printer writes a command's results to stdout: text lines for people, or,
// with --output json, one JSON object per line (keys in tagged JSON form,
// versionstamps as 20-digit strings, times as epoch milliseconds or null).
// The first write error is kept and returned by Flush.
type Printer struct {
	w    *bufio.Writer
	enc  *json.Encoder
	json bool
	err  error
}

func newPrinter(w io.Writer, jsonMode bool) *Printer {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Printer{w: bw, enc: enc, json: jsonMode}
}

// JSON reports whether the output is JSON lines.
func (p *Printer) JSON() bool { return p.json }

// Object writes v as one JSON line, whatever the mode.
func (p *Printer) Object(v any) {
	if p.err == nil {
		p.err = p.enc.Encode(v)
	}
}

// Textf writes one text line, whatever the mode; a trailing newline is added.
func (p *Printer) Textf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
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

// entryJSON is the JSON shape of a store entry: get and list print key,
// value, versionstamp and expiresAt; dump (physical) adds hex and expired;
// a row that does not decode carries error and its raw hex.
type entryJSON struct {
	Key          *codec.Key      `json:"key"`
	Hex          *string         `json:"hex,omitempty"`
	Value        json.RawMessage `json:"value"`
	Versionstamp *string         `json:"versionstamp"`
	ExpiresAt    *int64          `json:"expiresAt"`
	Expired      *bool           `json:"expired,omitempty"`
	Error        string          `json:"error,omitempty"`
}

// Entry writes one row. physical adds the raw hex and the expired flag
// (dump); now decides that flag.
func (p *Printer) Entry(e store.Entry, now int64, physical bool) {
	if !p.json {
		p.Textf("%s", entryText(e, now, physical))
		return
	}
	value, _ := jsonValue(e.Value, false)
	out := entryJSON{Value: value, Versionstamp: stampOrNull(e.Versionstamp()), ExpiresAt: e.ExpiresAt, Error: entryError(e)}
	if e.KeyErr == nil {
		k := e.Key
		out.Key = &k
	}
	if physical || e.KeyErr != nil {
		h := hex.EncodeToString(e.Raw)
		out.Hex = &h
	}
	if physical {
		expired := !e.Live(now)
		out.Expired = &expired
	}
	p.Object(out)
}

// Absent writes the entry of a key without a live row: value, versionstamp
// and expiresAt null (the reference's get result).
func (p *Printer) Absent(k codec.Key) {
	p.Result(entryJSON{Key: &k, Value: json.RawMessage("null")}, codec.Format(k)+"  (absent)")
}

// entryText is the text line of an entry:
//
//	["users", "alice"]  {"plan":"pro"}  v=00000000000000000003  expires=2026-01-02T00:00:45Z
//
// followed, when they apply, by "expired" (physical rows only) and
// "error: ...". A key that does not decode shows as 0x<hex>, a value that
// is not JSON as raw:"<quoted text>".
func entryText(e store.Entry, now int64, physical bool) string {
	var b strings.Builder
	if e.KeyErr != nil {
		b.WriteString("0x" + hex.EncodeToString(e.Raw))
	} else {
		b.WriteString(codec.Format(e.Key))
	}
	b.WriteString("  ")
	if v, ok := jsonValue(e.Value, true); ok {
		b.Write(v)
	} else {
		b.WriteString("raw:" + strconv.Quote(string(e.Value)))
	}
	b.WriteString("  v=" + e.Versionstamp())
	if e.ExpiresAt != nil {
		b.WriteString("  expires=" + FormatMillis(*e.ExpiresAt))
	}
	if physical && !e.Live(now) {
		b.WriteString("  expired")
	}
	if msg := entryError(e); msg != "" {
		b.WriteString("  error: " + msg)
	}
	return b.String()
}

// entryError says why a row does not decode, "" when it does.
func entryError(e store.Entry) string {
	var msgs []string
	if e.KeyErr != nil {
		msgs = append(msgs, "key does not decode: "+e.KeyErr.Error())
	}
	if !validJSON(e.Value) {
		msgs = append(msgs, "value is not valid JSON")
	}
	if e.Malformed != "" {
		msgs = append(msgs, e.Malformed)
	}
	return strings.Join(msgs, "; ")
}

func validJSON(b []byte) bool { return utf8.Valid(b) && json.Valid(b) }

// jsonValue renders a stored value for output: compact JSON with U+2028
// and U+2029 escaped (so one entry stays one line for every line
// splitter), and for a terminal also the invisible and reordering
// characters. A value that is not JSON becomes a JSON string of its raw
// text and ok is false.
func jsonValue(raw []byte, terminal bool) (v json.RawMessage, ok bool) {
	if !validJSON(raw) {
		return marshalString(string(raw)), false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return marshalString(string(raw)), false
	}
	return escapeRunes(buf.Bytes(), terminal), true
}

// marshalString is a JSON string literal of s without HTML escaping.
func marshalString(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// escapeRunes replaces, inside valid compact JSON, the runes that must not
// reach a line-oriented reader or a terminal raw with \uXXXX escapes. Such
// runes can only occur inside JSON strings, where the escape means the same.
func escapeRunes(b []byte, terminal bool) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == '\u2028' || r == '\u2029' || terminal && hiddenRune(r) {
			if out == nil {
				out = append(make([]byte, 0, len(b)+12), b[:i]...)
			}
			out = fmt.Appendf(out, `\u%04x`, r)
		} else if out != nil {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}

// hiddenRune reports runes a terminal would hide or that reorder text: DEL,
// the C1 controls, bidirectional controls and the byte order mark.
func hiddenRune(r rune) bool {
	switch {
	case r == 0x7f, r >= 0x80 && r <= 0x9f, r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}

// FormatMillis formats epoch milliseconds as an RFC 3339 UTC time, with
// milliseconds only when they are not zero: 2026-01-02T00:00:45Z.
func FormatMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.999Z07:00")
}

// stampOrNull is a versionstamp for JSON output: nil (null) when empty.
func stampOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
