package codec

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format returns the canonical key text: `["users", "alice"]`,
// `["orders", 42, 7n]`, `[true]`, `[b"00ff"]`, `[]`, with one space after
// each comma. Parse(Format(k)) equals k for every key that encodes.
func Format(k Key) string {
	if len(k) == 0 {
		return "[]"
	}
	buf := make([]byte, 0, 2+len(k)*12)
	buf = append(buf, '[')
	for i, p := range k {
		if i > 0 {
			buf = append(buf, ',', ' ')
		}
		buf = p.appendText(buf)
	}
	return string(append(buf, ']'))
}

// String returns the key text of one part: a JSON string literal ("users"),
// a number as JavaScript writes it (42, 1e+21) or -0, Infinity, -Infinity,
// a bigint with an n suffix (7n), true or false, or bytes as b"00ff".
//
// Strings are quoted as JSON.stringify does, and additionally escape DEL,
// the C1 controls, U+2028/U+2029 and every other rune that is not
// printable (the byte order mark, the bidirectional controls, the
// zero-width characters, private use, unassigned code points), because key
// text ends up on terminals and clipboards where those characters could
// hide or reorder what is shown. Other non-ASCII characters are raw.
func (p Part) String() string { return string(p.appendText(nil)) }

func (p Part) appendText(dst []byte) []byte {
	switch p.kind {
	case KindBytes:
		dst = append(dst, 'b', '"')
		dst = hex.AppendEncode(dst, []byte(p.s))
		return append(dst, '"')
	case KindString:
		return appendQuoted(dst, p.s, quoteText)
	case KindNumber:
		f := math.Float64frombits(p.n)
		if f == 0 && math.Signbit(f) {
			return append(dst, '-', '0')
		}
		return appendJSNumber(dst, f)
	case KindBigint:
		return append(strconv.AppendInt(dst, int64(p.n), 10), 'n')
	case KindBool:
		return strconv.AppendBool(dst, p.n == 1)
	}
	return append(dst, "invalid(0x"+hex2(byte(p.kind))+")"...)
}

// Parse reads a key typed by a person or a script. It accepts the key text
// syntax (the form Format writes, with free white space) and the tagged JSON
// array; input whose first non-space characters are `[` and then `{`, or
// that is `[]`, is tagged JSON. Errors are *SyntaxError values naming the
// column and what was found there; they all match ErrSyntax, and also
// ErrNaN, ErrBigintRange or ErrInvalidUTF8 when that is the problem.
func Parse(s string) (Key, error) {
	if looksTagged(s) {
		return parseTagged(s)
	}
	t := textParser{s: s}
	return t.key()
}

// looksTagged reports whether s starts (after white space) with `[` and
// then `{` or `]`. The empty key reads the same in both syntaxes.
func looksTagged(s string) bool {
	i := skipJSONSpace(s, 0)
	if i >= len(s) || s[i] != '[' {
		return false
	}
	i = skipJSONSpace(s, i+1)
	return i < len(s) && (s[i] == '{' || s[i] == ']')
}

func skipJSONSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// syntaxErrorAt builds a SyntaxError for byte offset off of s, converting it
// to a line and a character column.
func syntaxErrorAt(s string, off int, err error, msg string) *SyntaxError {
	off = min(off, len(s))
	line := 1 + strings.Count(s[:off], "\n")
	lineStart := strings.LastIndexByte(s[:off], '\n') + 1
	return &SyntaxError{Line: line, Column: utf8.RuneCountInString(s[lineStart:off]) + 1, Err: err, Msg: msg}
}

type textParser struct {
	s   string
	pos int
}

func (t *textParser) fail(err error, expected string) error {
	return syntaxErrorAt(t.s, t.pos, err, expected+", found "+describeAt(t.s, t.pos))
}

func (t *textParser) key() (Key, error) {
	t.pos = skipJSONSpace(t.s, 0)
	if t.pos >= len(t.s) || t.s[t.pos] != '[' {
		return nil, t.fail(ErrSyntax, "expected '[' to start a key")
	}
	t.pos = skipJSONSpace(t.s, t.pos+1)
	k := Key{}
	if t.pos < len(t.s) && t.s[t.pos] == ']' {
		t.pos++
	} else {
		for {
			p, err := t.part()
			if err != nil {
				return nil, err
			}
			k = append(k, p)
			t.pos = skipJSONSpace(t.s, t.pos)
			if t.pos < len(t.s) && t.s[t.pos] == ',' {
				t.pos = skipJSONSpace(t.s, t.pos+1)
				continue
			}
			if t.pos < len(t.s) && t.s[t.pos] == ']' {
				t.pos++
				break
			}
			return nil, t.fail(ErrSyntax, "expected ',' or ']'")
		}
	}
	t.pos = skipJSONSpace(t.s, t.pos)
	if t.pos < len(t.s) {
		return nil, t.fail(ErrSyntax, "expected end of input after ']'")
	}
	return k, nil
}

const nanMsg = "NaN cannot be a key part: it has no place in the key order"

const partHint = `expected a key part (a "string", a number, a bigint like 7n, true, false or b"hex")`

func (t *textParser) part() (Part, error) {
	if t.pos >= len(t.s) {
		return Part{}, t.fail(ErrSyntax, partHint)
	}
	switch c := t.s[t.pos]; {
	case c == '"':
		return t.str()
	case c == 'b' && strings.HasPrefix(t.s[t.pos:], `b"`):
		return t.bytes()
	case c == '-' || isDigit(c):
		return t.number()
	case c == '\'':
		return Part{}, t.fail(ErrSyntax, `expected a key part (strings use double quotes)`)
	case isWordByte(c):
		start := t.pos
		word := t.word()
		switch word {
		case "true":
			return Bool(true), nil
		case "false":
			return Bool(false), nil
		case "Infinity":
			return Number(math.Inf(1)), nil
		case "NaN":
			return Part{}, syntaxErrorAt(t.s, start, ErrNaN, nanMsg)
		}
		t.pos = start
		return Part{}, syntaxErrorAt(t.s, start, ErrSyntax, partHint+", found "+strconv.Quote(word))
	}
	return Part{}, t.fail(ErrSyntax, partHint)
}

func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// word consumes a run of letters, digits and underscores.
func (t *textParser) word() string {
	start := t.pos
	for t.pos < len(t.s) && isWordByte(t.s[t.pos]) {
		t.pos++
	}
	return t.s[start:t.pos]
}

func (t *textParser) str() (Part, error) {
	start := t.pos
	r := jsonReader{s: t.s, pos: t.pos}
	s, lone, jerr := r.str()
	if jerr != nil {
		if jerr.utf {
			return Part{}, syntaxErrorAt(t.s, jerr.off, ErrInvalidUTF8, jerr.msg)
		}
		return Part{}, syntaxErrorAt(t.s, jerr.off, ErrSyntax, jerr.msg)
	}
	if lone {
		return Part{}, syntaxErrorAt(t.s, start, ErrInvalidUTF8,
			"string has a lone surrogate escape (\\ud800..\\udfff without its pair); key strings must be valid Unicode")
	}
	t.pos = r.pos
	return String(s), nil
}

func (t *textParser) bytes() (Part, error) {
	t.pos += 2 // b"
	start := t.pos
	for t.pos < len(t.s) && isHexDigit(t.s[t.pos]) {
		t.pos++
	}
	if t.pos >= len(t.s) || t.s[t.pos] != '"' {
		return Part{}, t.fail(ErrSyntax, `expected hex digits or '"' to close b"..."`)
	}
	digits := t.s[start:t.pos]
	if len(digits)%2 != 0 {
		return Part{}, t.fail(ErrSyntax, "expected an even number of hex digits in b\"...\" (two per byte), found "+strconv.Itoa(len(digits)))
	}
	t.pos++
	b, _ := hex.DecodeString(digits) // only hex digits, even count
	return Bytes(b), nil
}

func isHexDigit(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func (t *textParser) number() (Part, error) {
	start := t.pos
	if strings.HasPrefix(t.s[t.pos:], "-") && t.pos+1 < len(t.s) && isWordByte(t.s[t.pos+1]) && !isDigit(t.s[t.pos+1]) {
		t.pos++
		switch word := t.word(); word {
		case "Infinity":
			return Number(math.Inf(-1)), nil
		case "NaN":
			return Part{}, syntaxErrorAt(t.s, start, ErrNaN, nanMsg)
		default:
			return Part{}, syntaxErrorAt(t.s, start, ErrSyntax, partHint+", found "+strconv.Quote("-"+word))
		}
	}
	n, bad := jsonNumberLen(t.s[t.pos:])
	if n == 0 {
		t.pos += bad
		return Part{}, t.fail(ErrSyntax, "expected a digit in number")
	}
	lit := t.s[t.pos : t.pos+n]
	t.pos += n
	if t.pos < len(t.s) && t.s[t.pos] == 'n' {
		if strings.ContainsAny(lit, ".eE") {
			return Part{}, syntaxErrorAt(t.s, start, ErrSyntax, "a bigint must be an integer, found "+strconv.Quote(lit+"n"))
		}
		t.pos++
		i, err := strconv.ParseInt(lit, 10, 64)
		if err != nil {
			return Part{}, syntaxErrorAt(t.s, start, ErrBigintRange,
				"bigint "+lit+"n is outside the signed 64-bit range the store can encode")
		}
		if t.pos < len(t.s) && isWordByte(t.s[t.pos]) {
			return Part{}, t.fail(ErrSyntax, "expected ',' or ']' after a bigint")
		}
		return Bigint(i), nil
	}
	if t.pos < len(t.s) && isWordByte(t.s[t.pos]) {
		return Part{}, t.fail(ErrSyntax, "expected ',' or ']' after a number")
	}
	f := parseJSONNumber(lit)
	if math.IsInf(f, 0) {
		return Part{}, syntaxErrorAt(t.s, start, ErrSyntax,
			"number "+lit+" is beyond float64 range; write Infinity or -Infinity if that is meant")
	}
	return Number(f), nil
}
