package dumpfile

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/atomicjson"
)

// Record is one row of a dump as it reads back: what `kvdeck load` writes
// and `kvdeck diff` compares.
type Record struct {
	// Key is the row's key; nil when it does not decode (Raw holds its
	// bytes, from "hex") or is NULL.
	Key codec.Key
	Raw []byte
	// KeyNull: another program's row with a NULL key (Raw is nil).
	KeyNull bool
	// Value is the JSON value as the reference stores it (Valid), else
	// the exact bytes of a value that is not JSON; nil when ValueNull.
	Value     []byte
	Valid     bool
	ValueNull bool
	// Stamp is the versionstamp, "" when the row has none.
	Stamp     string
	ExpiresAt *int64
	// Error is the line's "error": why the row does not decode (load
	// skips such a row).
	Error string
}

// Parse reads line n of a dump: a row as Row writes it, or any
// {"key","value","expiresAt"?}. ok is false for a blank line or the
// {"meta":...} trailer. hex, when present, must match the key; a row
// whose key does not decode needs it. expired and malformed are read
// past (they follow from the rest).
func Parse(line []byte, n int) (l Record, ok bool, err error) {
	if l, ok := parseDumped(line, nil); ok {
		return l, true, nil
	}
	return parseObject(line, n)
}

// parseObject is Parse for any line, through encoding/json.
func parseObject(line []byte, n int) (l Record, ok bool, err error) {
	if len(bytes.Trim(line, " \t\r")) == 0 {
		return l, false, nil
	}
	o, err := atomicjson.DecodeObject(line, fmt.Sprintf("line %d", n), Fields...)
	if err != nil {
		return l, false, err
	}
	if o.Has("meta") {
		if o.Len() != 1 {
			return l, false, fmt.Errorf("%s: a meta line carries nothing else", o.Where())
		}
		return l, false, nil
	}
	if l.Error, err = o.Str("error"); err != nil {
		return l, false, err
	}
	if err := l.readKey(o); err != nil {
		return l, false, err
	}
	if strings.Contains(l.Error, NullValueError) && o.IsNull("value") {
		l.ValueNull = true
	} else if l.Value, l.Valid, err = value(o, l.Error); err != nil {
		return l, false, err
	}
	if l.Stamp, err = o.Stamp("versionstamp"); err != nil && o.Has("versionstamp") && !o.IsNull("versionstamp") {
		// Dumps of old printed a malformed ver as a stamp of zeros; such
		// a row has no stamp to compare.
		if z, _ := o.Str("versionstamp"); !o.Has("malformed") || strings.Trim(z, "0") != "" {
			return l, false, err
		}
		l.Stamp = ""
	}
	if l.ExpiresAt, err = o.Int("expiresAt"); err != nil {
		return l, false, err
	}
	return l, true, nil
}

// readKey reads the key and its raw bytes: a NULL key (error says so, no
// hex), a key (hex, when given, matches it), or a key that does not
// decode (its hex).
func (l *Record) readKey(o atomicjson.Object) error {
	h, err := o.Str("hex")
	if err != nil {
		return err
	}
	switch {
	case o.IsNull("key") && (!o.Has("hex") || o.IsNull("hex")) && strings.Contains(l.Error, NullKeyError):
		l.KeyNull = true // another program's row: no key, no hex
	case !o.IsNull("key"):
		if l.Key, err = o.Key("key"); err != nil {
			return err
		}
		l.Raw = codec.MustEncode(l.Key)
		if o.Has("hex") && !o.IsNull("hex") && h != hex.EncodeToString(l.Raw) {
			return fmt.Errorf("%s: %q does not match the key, which encodes to %x", o.Field("hex"), h, l.Raw)
		}
	default:
		if l.Raw, err = hex.DecodeString(h); err != nil || !o.Has("hex") {
			return fmt.Errorf("%s: a row without a key needs the hex of its raw key", o.Field("hex"))
		}
	}
	return nil
}

// value is a dump line's value as its row holds it: the exact bytes of
// valueHex (a value that is not UTF-8), the text of a value that is not
// JSON (msg, the line's error, says so), else the JSON value; valid
// tells JSON from raw text.
func value(o atomicjson.Object, msg string) (value []byte, valid bool, err error) {
	if vh, err := o.Str("valueHex"); err != nil {
		return nil, false, err
	} else if o.Has("valueHex") {
		// The exact bytes of a value that is not UTF-8 (its "value" shows
		// them with U+FFFD).
		if value, err = hex.DecodeString(vh); err != nil {
			return nil, false, fmt.Errorf("%s: %w", o.Field("valueHex"), err)
		}
		return value, ValidJSON(value), nil
	}
	if strings.Contains(msg, "value is not valid JSON") {
		text, err := o.Str("value")
		if err != nil {
			return nil, false, fmt.Errorf("%s: a value that is not JSON is dumped as a string of its text", o.Field("value"))
		}
		return []byte(text), false, nil
	}
	value, err = o.Value("value")
	return value, err == nil, err
}

// MaxLine bounds one line of a dump read back. It is far above any value
// a store can return (SQLite's default string limit is 1e9 bytes; a dump
// line escapes a value that is not JSON): whatever set wrote, dump wrote
// and load reads back. Input that is not JSON lines fails at its first
// bytes instead (firstByte).
const MaxLine = 8 << 30

// EachLine calls fn with every line of r (without its newline) and its
// 1-based number.
func EachLine(r io.Reader, fn func(line []byte, n int) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := fn(line, n); err != nil {
			return err
		}
	}
}

// readLine reads one line without its newline; io.EOF when none is left.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line) == 0 && errors.Is(err, bufio.ErrBufferFull) {
			if b, ok := firstByte(chunk); ok && b != '{' {
				// A long line that is no JSON object: say so now rather
				// than read a garbage file's gigabytes looking for its
				// first newline (a short one is reported with the other
				// malformed lines).
				return nil, fmt.Errorf("not a JSON object: it starts with %q", string([]byte{b}))
			}
		}
		line = append(line, chunk...)
		if len(line) > MaxLine {
			return nil, fmt.Errorf("a line is longer than %d MiB", MaxLine>>20)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// firstByte is the first byte of chunk after JSON white space; ok is
// false when the chunk holds only white space.
func firstByte(chunk []byte) (byte, bool) {
	for _, b := range chunk {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b, true
	}
	return 0, false
}
