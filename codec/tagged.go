package codec

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tagged JSON is the interchange form of a key (the @deno/kv-utils
// convention): an array of {"type","value"} objects, one per key part.

// MarshalTagged returns the tagged JSON array of k, compact, e.g.
// [{"type":"string","value":"a"},{"type":"number","value":"-0"}]. Numbers
// are written as JavaScript writes them; -0, Infinity and -Infinity, which
// JSON cannot carry, as the strings "-0", "Infinity", "-Infinity"; bytes as
// unpadded base64url with byteLength. Strings are quoted as JSON.stringify
// does, except that U+2028 and U+2029 are escaped so that one key stays on
// one line for every line splitter. It refuses what Encode refuses.
func MarshalTagged(k Key) ([]byte, error) {
	return AppendTagged(make([]byte, 0, 2+len(k)*40), k)
}

// AppendTagged appends the tagged JSON array of k (MarshalTagged's) to
// buf; on an error buf's contents past its length are undefined.
func AppendTagged(buf []byte, k Key) ([]byte, error) {
	buf = append(buf, '[')
	for i, p := range k {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = appendTaggedPart(buf, p); err != nil {
			return nil, fmt.Errorf("codec: part %d: %w", i, err)
		}
	}
	return append(buf, ']'), nil
}

func appendTaggedPart(dst []byte, p Part) ([]byte, error) {
	switch p.kind {
	case KindBytes:
		dst = append(dst, `{"type":"Uint8Array","value":"`...)
		dst = base64.RawURLEncoding.AppendEncode(dst, []byte(p.s))
		dst = append(dst, `","byteLength":`...)
		dst = strconv.AppendInt(dst, int64(len(p.s)), 10)
	case KindString:
		if !utf8.ValidString(p.s) {
			return dst, ErrInvalidUTF8
		}
		dst = append(dst, `{"type":"string","value":`...)
		dst = appendQuoted(dst, p.s, quoteLines)
	case KindNumber:
		f := math.Float64frombits(p.n)
		dst = append(dst, `{"type":"number","value":`...)
		switch {
		case math.IsNaN(f):
			return dst, ErrNaN
		case math.IsInf(f, 0) || (f == 0 && math.Signbit(f)):
			dst = append(dst, '"')
			dst = append(p.appendText(dst), '"')
		default:
			dst = appendJSNumber(dst, f)
		}
	case KindBigint:
		dst = append(dst, `{"type":"bigint","value":"`...)
		dst = strconv.AppendInt(dst, int64(p.n), 10)
		dst = append(dst, '"')
	case KindBool:
		dst = append(dst, `{"type":"boolean","value":`...)
		dst = strconv.AppendBool(dst, p.n == 1)
	default:
		return dst, fmt.Errorf("%w: part kind 0x%02x", ErrInvalidTag, uint8(p.kind))
	}
	return append(dst, '}'), nil
}

// UnmarshalTagged reads a tagged JSON array. Uint8Array values may be
// base64url with or without padding; byteLength, when present, must match.
// Bigint values are decimal strings (a JSON integer is accepted too). Errors
// are *SyntaxError values matching ErrSyntax (and ErrNaN, ErrBigintRange or
// ErrInvalidUTF8 when that is the problem).
func UnmarshalTagged(b []byte) (Key, error) { return parseTagged(string(b)) }

// MarshalJSON writes the key as a tagged JSON array, the form every JSON
// output of kvdeck uses. A nil Key is the empty key, [].
func (k Key) MarshalJSON() ([]byte, error) { return MarshalTagged(k) }

// UnmarshalJSON accepts either form a JSON input may use for a key: the
// tagged JSON array, or a JSON string holding key text (or tagged JSON).
// JSON null leaves k unchanged, as encoding/json expects.
func (k *Key) UnmarshalJSON(b []byte) error {
	s := string(b)
	i := skipJSONSpace(s, 0)
	if strings.HasPrefix(s[i:], "null") && skipJSONSpace(s, i+4) == len(s) {
		return nil
	}
	if i < len(s) && s[i] == '"' {
		v, jerr := parseJSONText(s)
		if jerr != nil {
			return jsonSyntaxError(s, jerr)
		}
		if v.lone {
			return syntaxErrorAt(s, v.off, ErrInvalidUTF8, "key text has a lone surrogate escape")
		}
		key, err := Parse(v.str)
		if err != nil {
			return err
		}
		*k = key
		return nil
	}
	key, err := parseTagged(s)
	if err != nil {
		return err
	}
	*k = key
	return nil
}

func jsonSyntaxError(s string, e *jsonError) error {
	if e.utf {
		return syntaxErrorAt(s, e.off, ErrInvalidUTF8, e.msg)
	}
	return syntaxErrorAt(s, e.off, ErrSyntax, e.msg)
}

func parseTagged(s string) (Key, error) {
	v, jerr := parseJSONText(s)
	if jerr != nil {
		return nil, jsonSyntaxError(s, jerr)
	}
	if v.kind != jsonArray {
		return nil, syntaxErrorAt(s, v.off, ErrSyntax, "expected a JSON array of key parts")
	}
	k := make(Key, 0, len(v.arr))
	for _, e := range v.arr {
		p, err := taggedPart(s, e)
		if err != nil {
			return nil, err
		}
		k = append(k, p)
	}
	return k, nil
}

func taggedPart(s string, e jsonValue) (Part, error) {
	//nolint:unparam // the zero Part beside the error, so that every refusal reads `return fail(...)`
	fail := func(off int, err error, format string, args ...any) (Part, error) {
		return Part{}, syntaxErrorAt(s, off, err, fmt.Sprintf(format, args...))
	}
	if e.kind != jsonObject {
		return fail(e.off, ErrSyntax, `expected a key part object {"type":...,"value":...}, found %s`, e.kind)
	}
	m, err := taggedMembers(s, e)
	if err != nil {
		return Part{}, err
	}
	typ, val := m.typ, m.val
	wrong := func(want string) (Part, error) {
		return fail(val.off, ErrSyntax, "expected %s as the value of a %s part, found %s", want, typ.str, val.kind)
	}
	switch typ.str {
	case "string":
		if val.kind != jsonString {
			return wrong("a string")
		}
		if val.lone {
			return fail(val.off, ErrInvalidUTF8, "string has a lone surrogate escape; key strings must be valid Unicode")
		}
		return String(val.str), nil
	case "number":
		return taggedNumber(s, val, wrong)
	case "bigint":
		return taggedBigint(s, val, wrong)
	case "boolean":
		if val.kind != jsonBool {
			return wrong("true or false")
		}
		return Bool(val.b), nil
	case "Uint8Array":
		return taggedBytes(s, val, m.byteLen, wrong)
	}
	return fail(typ.off, ErrSyntax, "unknown key part type %s (want string, number, bigint, boolean or Uint8Array)", appendQuoted(nil, typ.str, quoteText))
}

// partMembers are the members of a tagged key part object.
type partMembers struct {
	typ, val, byteLen *jsonValue
}

// taggedMembers reads a key part object's members: type (a string) and
// value, byteLength only for a Uint8Array; nothing else, nothing twice.
func taggedMembers(s string, e jsonValue) (partMembers, error) {
	fail := func(off int, format string, args ...any) (partMembers, error) {
		return partMembers{}, syntaxErrorAt(s, off, ErrSyntax, fmt.Sprintf(format, args...))
	}
	var m partMembers
	for i := range e.obj {
		mem := &e.obj[i]
		var slot **jsonValue
		switch mem.key {
		case "type":
			slot = &m.typ
		case "value":
			slot = &m.val
		case "byteLength":
			slot = &m.byteLen
		default:
			return fail(mem.keyOff, "unexpected member %s in a key part (want type, value, byteLength)", appendQuoted(nil, mem.key, quoteText))
		}
		if *slot != nil {
			return fail(mem.keyOff, "duplicate member %q in a key part", mem.key)
		}
		*slot = &mem.val
	}
	if m.typ == nil || m.typ.kind != jsonString {
		return fail(e.off, `expected a "type" string in a key part`)
	}
	if m.val == nil {
		return fail(e.off, `expected a "value" in a key part`)
	}
	if m.byteLen != nil && m.typ.str != "Uint8Array" {
		return fail(m.byteLen.off, "byteLength is only allowed for Uint8Array parts")
	}
	return m, nil
}

// taggedBigint reads a bigint part's value: a decimal integer, as a
// string or a JSON number, within int64.
func taggedBigint(s string, val *jsonValue, wrong func(string) (Part, error)) (Part, error) {
	lit := val.str
	if val.kind == jsonNumber {
		lit = val.raw
	} else if val.kind != jsonString {
		return wrong("a decimal string")
	}
	if !isDecimalInteger(lit) {
		return Part{}, syntaxErrorAt(s, val.off, ErrSyntax, fmt.Sprintf("expected a decimal integer for a bigint, found %q", lit))
	}
	i, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		return Part{}, syntaxErrorAt(s, val.off, ErrBigintRange, fmt.Sprintf("bigint %s is outside the signed 64-bit range the store can encode", lit))
	}
	return Bigint(i), nil
}

// taggedBytes reads a Uint8Array part's value: base64url, padding
// optional, matching byteLength when one is given.
func taggedBytes(s string, val, byteLen *jsonValue, wrong func(string) (Part, error)) (Part, error) {
	if val.kind != jsonString {
		return wrong("a base64url string")
	}
	fail := func(off int, format string, args ...any) (Part, error) {
		return Part{}, syntaxErrorAt(s, off, ErrSyntax, fmt.Sprintf(format, args...))
	}
	enc := base64.RawURLEncoding
	if strings.HasSuffix(val.str, "=") {
		enc = base64.URLEncoding
	}
	b, err := enc.Strict().DecodeString(val.str)
	if err != nil {
		return fail(val.off, "expected base64url (A-Z a-z 0-9 - _, padding optional) for a Uint8Array value, found %q", val.str)
	}
	if byteLen != nil {
		if byteLen.kind != jsonNumber {
			return fail(byteLen.off, "expected a number for byteLength, found %s", byteLen.kind)
		}
		if byteLen.num != float64(len(b)) {
			return fail(byteLen.off, "byteLength %s does not match the value, which holds %d byte(s)", s[byteLen.off:byteLen.off+len(byteLen.raw)], len(b))
		}
	}
	return Bytes(b), nil
}

func taggedNumber(s string, val *jsonValue, wrong func(string) (Part, error)) (Part, error) {
	switch val.kind {
	case jsonNumber:
		if math.IsInf(val.num, 0) {
			return Part{}, syntaxErrorAt(s, val.off, ErrSyntax, "number "+val.raw+` is beyond float64 range; write "Infinity" or "-Infinity" if that is meant`)
		}
		return Number(val.num), nil
	case jsonString:
		switch val.str {
		case "Infinity":
			return Number(math.Inf(1)), nil
		case "-Infinity":
			return Number(math.Inf(-1)), nil
		case "-0":
			return Number(math.Copysign(0, -1)), nil
		case "NaN":
			return Part{}, syntaxErrorAt(s, val.off, ErrNaN, nanMsg)
		}
		return Part{}, syntaxErrorAt(s, val.off, ErrSyntax, `expected a JSON number or one of "Infinity", "-Infinity", "-0" for a number part, found `+string(appendQuoted(nil, val.str, quoteText)))
	case jsonNull, jsonBool, jsonArray, jsonObject:
	}
	return wrong(`a number (or "Infinity", "-Infinity", "-0")`)
}

// isDecimalInteger reports whether s is -?[0-9]+.
func isDecimalInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
