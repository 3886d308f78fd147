package dumpfile

import (
	"bytes"
	"encoding/hex"
	"strconv"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
)

// parseDumped reads a line in exactly the shape AppendLine gives a row
// that decodes (physical: key, hex, value, versionstamp, expiresAt,
// expired, in that order, no white space, no error): the Record Parse
// reads, without encoding/json. The key is read from hex and must be
// written, byte for byte, as AppendLine writes that key, so the key JSON
// is checked without being parsed. ok is false for any other line (Parse
// then reads it, errors included); when ok, Parse gives the same Record
// (FuzzParseDumped holds it to that). A load's lines are nearly all of
// this shape, and encoding/json was most of a load's time.
func parseDumped(line []byte, scratch []byte) (l Record, ok bool) {
	const (
		keyField   = `{"key":`
		hexField   = `,"hex":"`
		valueField = `","value":`
	)
	if !bytes.HasPrefix(line, []byte(keyField)) {
		return l, false
	}
	rest := line[len(keyField):]
	i := bytes.Index(rest, []byte(hexField))
	if i < 0 {
		return l, false
	}
	keyJSON, rest := rest[:i], rest[i+len(hexField):]
	i = bytes.IndexByte(rest, '"')
	if i < 0 || !bytes.HasPrefix(rest[i:], []byte(valueField)) || !lowerHex(rest[:i]) {
		return l, false
	}
	raw, err := hex.AppendDecode(make([]byte, 0, i/2), rest[:i])
	if err != nil {
		return l, false
	}
	rest = rest[i+len(valueField):]
	key, err := codec.Decode(raw)
	if err != nil {
		return l, false
	}
	if enc, err := codec.Encode(key); err != nil || !bytes.Equal(enc, raw) {
		return l, false
	}
	want, err := codec.AppendTagged(scratch[:0], key)
	if err != nil {
		return l, false
	}
	if !bytes.Equal(want, keyJSON) && !bytes.Equal(usertext.EscapeJSON(want), keyJSON) {
		return l, false
	}
	value, stamp, expiresAt, ok := dumpedTail(rest)
	if !ok {
		return l, false
	}
	if l.Value, err = codec.NormalizeJSON(value); err != nil {
		return l, false
	}
	if key == nil {
		key = codec.Key{}
	}
	l.Key, l.Raw, l.Valid, l.Stamp, l.ExpiresAt = key, raw, true, stamp, expiresAt
	return l, true
}

// dumpedTail splits what follows "value": in a dump line,
// VALUE,"versionstamp":S,"expiresAt":E,"expired":B}, from its end (the
// value may hold any of those names): the value's text, the stamp ("" for
// null) and the expiry. ok is false for any other shape.
func dumpedTail(b []byte) (value []byte, stamp string, expiresAt *int64, ok bool) {
	switch {
	case bytes.HasSuffix(b, []byte(`,"expired":true}`)):
		b = b[:len(b)-len(`,"expired":true}`)]
	case bytes.HasSuffix(b, []byte(`,"expired":false}`)):
		b = b[:len(b)-len(`,"expired":false}`)]
	default:
		return nil, "", nil, false
	}
	const expField = `,"expiresAt":`
	i := bytes.LastIndex(b, []byte(expField))
	if i < 0 {
		return nil, "", nil, false
	}
	if exp := b[i+len(expField):]; string(exp) != "null" {
		n, ok := plainInt(exp)
		if !ok {
			return nil, "", nil, false
		}
		expiresAt = &n
	}
	b = b[:i]
	const stampField = `,"versionstamp":`
	switch {
	case bytes.HasSuffix(b, []byte(stampField+"null")):
		b = b[:len(b)-len(stampField+"null")]
	case len(b) >= len(stampField)+codec.StampLen+2 && b[len(b)-1] == '"':
		head := b[:len(b)-codec.StampLen-2]
		s := b[len(head)+1 : len(b)-1]
		if !bytes.HasSuffix(b[:len(head)+1], []byte(stampField+`"`)) {
			return nil, "", nil, false
		}
		if _, err := codec.ParseStamp(string(s)); err != nil {
			return nil, "", nil, false
		}
		stamp, b = string(s), head[:len(head)-len(stampField)]
	default:
		return nil, "", nil, false
	}
	return b, stamp, expiresAt, true
}

// plainInt reads -?(0|[1-9][0-9]*) within int64: the integers AppendLine
// writes.
func plainInt(b []byte) (int64, bool) {
	d := b
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 19 || (d[0] == '0' && len(d) > 1) {
		return 0, false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

// lowerHex reports whether b is lowercase hex digits, as AppendLine
// writes them.
func lowerHex(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
