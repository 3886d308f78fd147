package codec

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A small JSON reader with JavaScript's semantics, shared by NormalizeJSON,
// tagged keys and the string literals of key text. encoding/json does not
// fit: it loses object member order, replaces lone surrogates with U+FFFD
// and matches field names case-insensitively.

// maxJSONDepth bounds nesting so hostile input cannot make the recursive
// reader use unbounded stack. The reference's own JSON.stringify throws on
// far shallower values, so no stored value comes near it.
const maxJSONDepth = 10000

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// String names the kind with its article, for messages ("found a number").
func (k jsonKind) String() string {
	switch k {
	case jsonNull:
		return "null"
	case jsonBool:
		return "a boolean"
	case jsonNumber:
		return "a number"
	case jsonString:
		return "a string"
	case jsonArray:
		return "an array"
	case jsonObject:
	}
	return "an object"
}

// jsonValue is a parsed JSON value. Strings are stored as WTF-8: valid
// UTF-8, except that a lone surrogate from a \u escape is kept as its 3-byte
// generalized UTF-8 form, so it can be written back as JSON.stringify does.
type jsonValue struct {
	kind jsonKind
	off  int     // byte offset of the value in the input, for messages
	b    bool    // jsonBool
	num  float64 // jsonNumber, as JSON.parse rounds it
	raw  string  // jsonNumber: the literal text
	str  string  // jsonString (WTF-8)
	lone bool    // jsonString: contains a lone surrogate
	arr  []jsonValue
	obj  []jsonMember // in input order, duplicates included
}

type jsonMember struct {
	key     string // WTF-8
	keyOff  int
	keyLone bool
	val     jsonValue
}

// jsonError is the reader's internal error: a byte offset and a message.
// Callers turn it into ErrInvalidJSON (byte offsets) or a SyntaxError
// (character columns).
type jsonError struct {
	off int
	msg string
	utf bool // the problem is invalid UTF-8
}

type jsonReader struct {
	s     string
	pos   int
	depth int
}

// parseJSONText parses s as one complete JSON text (JSON.parse grammar).
func parseJSONText(s string) (jsonValue, *jsonError) {
	r := jsonReader{s: s}
	r.skipWS()
	v, err := r.value()
	if err != nil {
		return v, err
	}
	r.skipWS()
	if r.pos < len(r.s) {
		return v, r.fail("expected end of input")
	}
	return v, nil
}

func (r *jsonReader) skipWS() {
	for r.pos < len(r.s) {
		switch r.s[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// fail reports what was expected and what is at the current position.
func (r *jsonReader) fail(expected string) *jsonError {
	return &jsonError{off: r.pos, msg: expected + ", found " + describeAt(r.s, r.pos)}
}

// describeAt names the character at s[i] for error messages.
func describeAt(s string, i int) string {
	if i >= len(s) {
		return "end of input"
	}
	c, size := utf8.DecodeRuneInString(s[i:])
	if c == utf8.RuneError && size <= 1 {
		return "byte 0x" + hex2(s[i])
	}
	return strconv.QuoteRune(c)
}

func (r *jsonReader) value() (jsonValue, *jsonError) {
	if r.pos < len(r.s) {
		switch r.s[r.pos] {
		case '{':
			return r.object()
		case '[':
			return r.array()
		}
	}
	return r.scalar()
}

// scalar reads a string, number, boolean or null.
func (r *jsonReader) scalar() (jsonValue, *jsonError) {
	if r.pos >= len(r.s) {
		return jsonValue{}, r.fail("expected a JSON value")
	}
	start := r.pos
	switch c := r.s[r.pos]; {
	case c == '"':
		str, lone, err := r.str()
		return jsonValue{kind: jsonString, off: start, str: str, lone: lone}, err
	case c == '-' || isDigit(c):
		n, bad := jsonNumberLen(r.s[r.pos:])
		if n == 0 {
			r.pos += bad
			return jsonValue{}, r.fail("expected a digit in number")
		}
		lit := r.s[r.pos : r.pos+n]
		r.pos += n
		return jsonValue{kind: jsonNumber, off: start, raw: lit, num: parseJSONNumber(lit)}, nil
	}
	switch rest := r.s[r.pos:]; {
	case strings.HasPrefix(rest, "null"):
		r.pos += 4
		return jsonValue{kind: jsonNull, off: start}, nil
	case strings.HasPrefix(rest, "true"):
		r.pos += 4
		return jsonValue{kind: jsonBool, off: start, b: true}, nil
	case strings.HasPrefix(rest, "false"):
		r.pos += 5
		return jsonValue{kind: jsonBool, off: start}, nil
	}
	return jsonValue{}, r.fail("expected a JSON value")
}

func (r *jsonReader) enter() *jsonError {
	r.depth++
	if r.depth > maxJSONDepth {
		return &jsonError{off: r.pos, msg: "nesting deeper than " + strconv.Itoa(maxJSONDepth) + " levels"}
	}
	return nil
}

// list reads an array or an object from its opening bracket to close
// (']' or '}'), calling elem at the first byte of each element, i = 0, 1,
// ...; the separators, the nesting bound and the messages are its own.
func (r *jsonReader) list(close byte, elem func(i int) *jsonError) *jsonError {
	if err := r.enter(); err != nil {
		return err
	}
	r.pos++ // [ or {
	r.skipWS()
	if r.pos < len(r.s) && r.s[r.pos] == close {
		r.pos++
		r.depth--
		return nil
	}
	for i := 0; ; i++ {
		r.skipWS()
		if err := elem(i); err != nil {
			return err
		}
		r.skipWS()
		if r.pos < len(r.s) && r.s[r.pos] == ',' {
			r.pos++
			continue
		}
		if r.pos < len(r.s) && r.s[r.pos] == close {
			r.pos++
			r.depth--
			return nil
		}
		return r.fail("expected ',' or '" + string(close) + "'")
	}
}

// key reads an object member's key and the ':' after it, leaving the
// reader at the member's value.
func (r *jsonReader) key() (key string, off int, lone bool, err *jsonError) {
	if r.pos >= len(r.s) || r.s[r.pos] != '"' {
		return "", 0, false, r.fail("expected a string for an object key")
	}
	off = r.pos
	if key, lone, err = r.str(); err != nil {
		return "", 0, false, err
	}
	r.skipWS()
	if r.pos >= len(r.s) || r.s[r.pos] != ':' {
		return "", 0, false, r.fail("expected ':' after an object key")
	}
	r.pos++
	r.skipWS()
	return key, off, lone, nil
}

func (r *jsonReader) array() (jsonValue, *jsonError) {
	v := jsonValue{kind: jsonArray, off: r.pos}
	err := r.list(']', func(int) *jsonError {
		e, err := r.value()
		v.arr = append(v.arr, e)
		return err
	})
	return v, err
}

func (r *jsonReader) object() (jsonValue, *jsonError) {
	v := jsonValue{kind: jsonObject, off: r.pos}
	err := r.list('}', func(int) *jsonError {
		key, keyOff, lone, err := r.key()
		if err != nil {
			return err
		}
		val, err := r.value()
		v.obj = append(v.obj, jsonMember{key: key, keyOff: keyOff, keyLone: lone, val: val})
		return err
	})
	return v, err
}

// str reads a JSON string literal starting at the opening quote. It returns
// the value as WTF-8 and whether it holds a lone surrogate.
func (r *jsonReader) str() (string, bool, *jsonError) {
	r.pos++        // opening quote
	var buf []byte // nil while the literal has no escapes: then it is a substring
	lone := false
	for {
		// Copy one run of plain characters. The run ends at an ASCII byte,
		// so it never splits a multi-byte character and can be checked alone.
		start := r.pos
		for r.pos < len(r.s) && r.s[r.pos] != '"' && r.s[r.pos] != '\\' && r.s[r.pos] >= 0x20 {
			r.pos++
		}
		run := r.s[start:r.pos]
		if !utf8.ValidString(run) {
			r.pos = start + invalidUTF8At([]byte(run))
			return "", false, &jsonError{off: r.pos, msg: "invalid UTF-8 in string", utf: true}
		}
		if r.pos >= len(r.s) {
			return "", false, r.fail(`expected '"' to close the string`)
		}
		c := r.s[r.pos]
		if c == '"' {
			r.pos++
			if buf == nil {
				return run, false, nil
			}
			return string(append(buf, run...)), lone, nil
		}
		if c < 0x20 {
			return "", false, r.fail("expected a character or escape in string (control characters must be escaped)")
		}
		buf = append(buf, run...)
		var l bool
		var err *jsonError
		if buf, l, err = r.escape(buf); err != nil {
			return "", false, err
		}
		lone = lone || l
	}
}

// escape reads the escape sequence at r.pos (its backslash) and appends
// what it stands for to buf as WTF-8; lone reports a lone surrogate.
func (r *jsonReader) escape(buf []byte) ([]byte, bool, *jsonError) {
	r.pos++ // backslash
	if r.pos >= len(r.s) {
		return buf, false, r.fail(`expected an escape character after '\'`)
	}
	if simple, ok := simpleUnescape(r.s[r.pos]); ok {
		r.pos++
		return append(buf, simple), false, nil
	}
	if r.s[r.pos] != 'u' {
		return buf, false, r.fail(`expected one of "\/bfnrtu after '\'`)
	}
	r.pos++
	u, ok := hex4(r.s, r.pos)
	if !ok {
		return buf, false, r.fail(`expected 4 hex digits after \u`)
	}
	r.pos += 4
	if u >= 0xD800 && u <= 0xDBFF && r.pos+6 <= len(r.s) && r.s[r.pos] == '\\' && r.s[r.pos+1] == 'u' {
		if lo, ok := hex4(r.s, r.pos+2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			r.pos += 6
			return utf8.AppendRune(buf, 0x10000+(rune(u)-0xD800)<<10+(rune(lo)-0xDC00)), false, nil
		}
	}
	if u >= 0xD800 && u <= 0xDFFF {
		// JavaScript strings are UTF-16 and keep a lone surrogate;
		// store its 3-byte form so it can be written back as \udxxx.
		// Raw input bytes never take this form: they must be UTF-8.
		return append(buf, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F), true, nil
	}
	return utf8.AppendRune(buf, rune(u)), false, nil
}

// shortEscaped and shortEscapes are JSON's two-character escapes: the
// character shortEscaped[i] is written as a backslash and shortEscapes[i]
// (the short forms JSON.stringify writes; a parser also reads \/).
const shortEscaped, shortEscapes = "\"\\\b\f\n\r\t", "\"\\bfnrt"

// simpleUnescape is the character the escape \e stands for, when e is
// not 'u'.
func simpleUnescape(e byte) (byte, bool) {
	if i := strings.IndexByte(shortEscapes, e); i >= 0 {
		return shortEscaped[i], true
	}
	if e == '/' {
		return '/', true
	}
	return 0, false
}

func hex4(s string, i int) (uint16, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var v uint16
	for _, c := range []byte(s[i : i+4]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint16(d)
	}
	return v, true
}

// surrogateAt returns 3 when s[i:] starts with the generalized UTF-8 form
// of a surrogate code point (ED A0..BF xx), which only a lone surrogate
// escape puts into a WTF-8 string, else 0.
func surrogateAt(s string, i int) int {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
		return 3
	}
	return 0
}
