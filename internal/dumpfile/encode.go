package dumpfile

import (
	"encoding/hex"
	"strconv"
	"unicode/utf8"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// AppendLine appends the JSON line of e (newline included) to dst: byte
// for byte what Line(Entry(e, now, physical)) writes (FuzzAppendLine
// holds it to that), without encoding/json. A stored value that is
// already compact, valid UTF-8 JSON is copied as it is (compactJSON);
// any other value, and the error and malformed texts, take Entry's path.
// The line passes usertext.EscapeJSON once, as a whole.
func AppendLine(dst []byte, e store.Entry, now int64, physical bool) ([]byte, error) {
	start := len(dst)
	dst = append(dst, `{"key":`...)
	if e.KeyErr != nil {
		dst = append(dst, "null"...)
	} else {
		var err error
		if dst, err = codec.AppendTagged(dst, e.Key); err != nil {
			// What encoding/json makes of it, error included.
			line, err := Line(Entry(e, now, physical))
			return append(dst[:start], line...), err
		}
	}
	if (physical || e.KeyErr != nil) && !e.KeyNull {
		dst = append(dst, `,"hex":"`...)
		dst = hex.AppendEncode(dst, e.Raw)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"value":`...)
	text := utf8.Valid(e.Value)
	dst, valid := appendValue(dst, e, text)
	dst = appendTail(dst, e, now, physical, text, valid)
	// Every escape is longer than what it replaces: the same length
	// means nothing was escaped.
	if esc := usertext.EscapeJSON(dst[start:]); len(esc) != len(dst)-start {
		dst = append(dst[:start], esc...)
	}
	return dst, nil
}

// appendValue appends the line's value: null, the stored JSON as it is
// when it is compact valid UTF-8 JSON, else what JSONValue makes of it;
// valid says whether the value is JSON.
func appendValue(dst []byte, e store.Entry, text bool) ([]byte, bool) {
	switch {
	case e.ValueNull:
		return append(dst, "null"...), false
	case text && compactJSON(e.Value):
		return append(dst, e.Value...), true
	default:
		v, valid := JSONValue(e.Value)
		return append(dst, v...), valid
	}
}

// appendTail appends what follows the value, closing brace and newline
// included: the stamp, the expiry, whether it expired (physical), the
// value's bytes when they are not text, and the error and malformed
// texts.
func appendTail(dst []byte, e store.Entry, now int64, physical, text, valid bool) []byte {
	dst = append(dst, `,"versionstamp":`...)
	if stamp := Stamp(e); stamp == "" {
		dst = append(dst, "null"...)
	} else {
		dst = append(append(append(dst, '"'), stamp...), '"')
	}
	dst = append(dst, `,"expiresAt":`...)
	if e.ExpiresAt == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendInt(dst, *e.ExpiresAt, 10)
	}
	if physical {
		dst = append(dst, `,"expired":`...)
		dst = strconv.AppendBool(dst, !e.Live(now))
	}
	if !text {
		dst = append(dst, `,"valueHex":"`...)
		dst = hex.AppendEncode(dst, e.Value)
		dst = append(dst, '"')
	}
	if msg := decodeError(e, valid); msg != "" {
		dst = append(append(dst, `,"error":`...), String(msg)...)
	}
	if e.Malformed != "" {
		dst = append(append(dst, `,"malformed":`...), String(e.Malformed)...)
	}
	return append(dst, "}\n"...)
}

// maxCompactDepth is the deepest nesting compactJSON follows; deeper
// values take the slow path, which has its own bound.
const maxCompactDepth = 128

// compactJSON reports whether b is one JSON value in valid UTF-8 with no
// white space between its tokens: one that json.Compact leaves as it is.
// False may also mean "not decided here" (nesting deeper than
// maxCompactDepth), never the reverse (FuzzCompactJSON).
func compactJSON(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	end, ok := skipValue(b, 0, 0)
	return ok && end == len(b)
}

// skipValue returns the end of the JSON value that starts at b[i].
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		return skipContainer(b, i, depth)
	case c == '"':
		return skipString(b, i)
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	}
	return i, false
}

// skipContainer returns the end of the object or array at b[i].
func skipContainer(b []byte, i, depth int) (int, bool) {
	if depth == maxCompactDepth {
		return i, false
	}
	closing, object := byte(']'), b[i] == '{'
	if object {
		closing = '}'
	}
	i++
	if i < len(b) && b[i] == closing {
		return i + 1, true
	}
	for {
		var ok bool
		if object {
			if i, ok = skipString(b, i); !ok || i >= len(b) || b[i] != ':' {
				return i, false
			}
			i++
		}
		if i, ok = skipValue(b, i, depth+1); !ok || i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i++
		case closing:
			return i + 1, true
		default:
			return i, false
		}
	}
}

// skipString returns the end of the string at b[i]: no control
// character inside, only JSON's escapes.
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	for i++; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c != '\\':
			i++
		case i+1 < len(b) && isEscape(b[i+1]):
			i += 2
		case i+5 < len(b) && b[i+1] == 'u' && isHex(b[i+2]) && isHex(b[i+3]) && isHex(b[i+4]) && isHex(b[i+5]):
			i += 6
		default:
			return i, false
		}
	}
	return i, false
}

func isEscape(c byte) bool {
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipNumber returns the end of the number at b[i], in JSON's grammar.
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, true
}

func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}
