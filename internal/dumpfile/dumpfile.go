// Package dumpfile is the line format of `kvdeck dump`: one JSON object per
// row, which `kvdeck load` and `kvdeck diff` read back. The CLI's dump and
// the TUI's bulk export both write it through this package, so there is one
// copy of the format.
package dumpfile

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"unicode/utf8"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// Fields are the fields of a dump line and of its meta trailer: what load
// and diff accept.
var Fields = []string{"key", "hex", "value", "valueHex", "versionstamp", "expiresAt", "expired", "error", "malformed", "meta"}

// Row is the JSON shape of a store entry: get and list print key, value,
// versionstamp and expiresAt; dump (physical) adds hex and expired; a row
// that does not decode carries error and its raw hex. A row another
// program wrote with a NULL key (dump only) has key null and no hex, one
// with a NULL value has value null, and error names them ("key is NULL",
// "value is NULL").
type Row struct {
	Key          *codec.Key      `json:"key"`
	Hex          *string         `json:"hex,omitempty"`
	Value        json.RawMessage `json:"value"`
	Versionstamp *string         `json:"versionstamp"`
	ExpiresAt    *int64          `json:"expiresAt"`
	Expired      *bool           `json:"expired,omitempty"`
	// ValueHex is the stored value's exact bytes when they are not UTF-8
	// (Value then shows them with U+FFFD): a dump keeps every row as it
	// is, so a store equals its own dump.
	ValueHex  string `json:"valueHex,omitempty"`
	Error     string `json:"error,omitempty"`
	Malformed string `json:"malformed,omitempty"`
}

// Entry is the Row of e. physical adds the raw hex and the expired flag
// (dump); now decides that flag.
func Entry(e store.Entry, now int64, physical bool) Row {
	value, _ := JSONValue(e.Value)
	if e.ValueNull {
		value = json.RawMessage("null")
	}
	out := Row{Value: value, Versionstamp: StampOrNull(Stamp(e)), ExpiresAt: e.ExpiresAt, Error: DecodeError(e), Malformed: e.Malformed}
	if !utf8.Valid(e.Value) {
		out.ValueHex = hex.EncodeToString(e.Value)
	}
	if e.KeyErr == nil {
		k := e.Key
		out.Key = &k
	}
	if (physical || e.KeyErr != nil) && !e.KeyNull { // a NULL key has no bytes
		h := hex.EncodeToString(e.Raw)
		out.Hex = &h
	}
	if physical {
		expired := !e.Live(now)
		out.Expired = &expired
	}
	return out
}

// Stamp is the row's versionstamp, "" (printed null) when its ver is
// malformed: a stamp of zeros would be refused by every command that reads
// a stamp back (diff, lease break).
func Stamp(e store.Entry) string {
	if strings.HasPrefix(e.Malformed, "ver ") { // store.Entry names ver first
		return ""
	}
	return e.Versionstamp()
}

// StampOrNull is a versionstamp for JSON output: nil (null) when empty.
func StampOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// The errors of a dump line whose key or value is NULL: diff reads them
// back to know the row.
const (
	NullKeyError   = "key is NULL"
	NullValueError = "value is NULL"
)

// DecodeError says why a row's key or value does not decode, "" when they
// do. In a dump line it is the "error" field, which makes load skip the
// row; a malformed ver or expires_at is the separate "malformed" field:
// such a row loads (expiresAt already holds the instant SQL compares it
// as, which load writes as an integer, the way the reference would).
func DecodeError(e store.Entry) string { return decodeError(e, ValidJSON(e.Value)) }

// decodeError is DecodeError where validValue says whether e.Value is
// ValidJSON.
func decodeError(e store.Entry, validValue bool) string {
	var msgs []string
	switch {
	case e.KeyNull:
		msgs = append(msgs, NullKeyError)
	case e.KeyErr != nil:
		msgs = append(msgs, "key does not decode: "+e.KeyErr.Error())
	}
	switch {
	case e.ValueNull:
		msgs = append(msgs, NullValueError)
	case !validValue:
		msgs = append(msgs, "value is not valid JSON")
	}
	return strings.Join(msgs, "; ")
}

// ValidJSON reports whether b is UTF-8 JSON.
func ValidJSON(b []byte) bool { return utf8.Valid(b) && json.Valid(b) }

// JSONValue is a stored value for JSON output: the value itself, compacted,
// when it is valid JSON (ok true); otherwise its text as a JSON string.
// Either way the terminal-safety escapes of usertext apply.
func JSONValue(raw []byte) (v json.RawMessage, ok bool) {
	if !ValidJSON(raw) {
		return String(string(raw)), false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return String(string(raw)), false
	}
	return usertext.EscapeJSON(buf.Bytes()), true
}

// String is a JSON string literal of s without HTML escaping.
func String(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return usertext.EscapeJSON(bytes.TrimRight(buf.Bytes(), "\n"))
}

// Line is v as one JSON line (newline included), without HTML escaping and
// with usertext's terminal-safety escapes: what the CLI prints with
// -o json, and a dump line when v is a Row.
func Line(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return usertext.EscapeJSON(buf.Bytes()), nil
}

// Writer writes dump lines.
type Writer struct {
	w   io.Writer
	Now int64 // decides each row's expired flag
	N   int   // rows written

	line []byte // the line being written, kept for the next
}

// NewWriter is a Writer onto w; now decides the expired flags.
func NewWriter(w io.Writer, now int64) *Writer { return &Writer{w: w, Now: now} }

// Write writes e as one dump line (physical: hex and expired included).
func (d *Writer) Write(e store.Entry) error {
	var err error
	if d.line, err = AppendLine(d.line[:0], e, d.Now, true); err != nil {
		return err
	}
	if _, err := d.w.Write(d.line); err != nil {
		return err
	}
	d.N++
	return nil
}
