package codec

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// NormalizeJSON validates raw as JSON text and returns it exactly as the
// reference would store it, i.e. JavaScript's JSON.stringify(JSON.parse(raw)):
//   - compact, no white space;
//   - object members in JavaScript property order: keys that are array
//     indices ("0".."4294967294" in canonical form) first in ascending
//     numeric order, then the other keys in order of first appearance; a
//     duplicated key keeps its first position and its last value;
//   - numbers as Number.prototype.toString writes them (1e+21, 1e-7, 12000,
//     0.30000000000000004); -0 becomes 0; literals beyond float64 range
//     become Infinity, which JSON.stringify writes as null;
//   - strings escaped as JSON.stringify does: only '"', '\\', \b \f \n \r
//     \t, other control characters as \u00xx and lone surrogates as \udxxx;
//     everything else, U+2028 and '<', '>', '&' included, raw.
//
// Unlike JSON.parse, which sees a decoded string, NormalizeJSON rejects
// input that is not valid UTF-8 rather than guessing a replacement. Errors
// match ErrInvalidJSON and name the byte offset.
func NormalizeJSON(raw []byte) ([]byte, error) {
	out, err := normalize(raw)
	if err != nil {
		return nil, fmt.Errorf("codec: %w at byte %d: %s", ErrInvalidJSON, err.off, err.msg)
	}
	return out, nil
}

// FormatNumber returns f as JavaScript's String(f) writes it: the shortest
// round-trip digits, exponent form outside 1e-7 <= |f| < 1e21, "0" for -0,
// and "Infinity", "-Infinity", "NaN".
func FormatNumber(f float64) string { return formatJSNumber(f) }

// arrayIndex reports whether key is an ECMAScript array index: the
// canonical decimal form of an integer in 0..2^32-2.
func arrayIndex(key string) (int64, bool) {
	if len(key) == 0 || len(key) > 10 || (key[0] == '0' && len(key) > 1) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(key); i++ {
		if !isDigit(key[i]) {
			return 0, false
		}
		n = n*10 + int64(key[i]-'0')
	}
	return n, n <= 1<<32-2
}

// quoteMode selects which characters appendQuoted escapes beyond what JSON
// requires.
type quoteMode uint8

const (
	// quoteJSON is JSON.stringify: '"', '\\', C0 controls, lone surrogates.
	quoteJSON quoteMode = iota
	// quoteLines adds U+2028 and U+2029, so output stays one record per line
	// for readers that split lines on them (JavaScript before ES2019, some
	// editors).
	quoteLines
	// quoteText, for key text shown on terminals, also escapes DEL, the C1
	// controls (U+0080..U+009F, which terminals may act on), U+2028/U+2029,
	// the byte order mark and the bidirectional controls, so a key can
	// neither hide characters nor reorder the text around it.
	quoteText
)

// appendQuoted appends s as a JSON string literal. s is WTF-8: a surrogate
// in its 3-byte form is written \udxxx. Bytes that are not UTF-8 (only
// possible in a string Part built from bad input, which never encodes) are
// written as \ufffd.
func appendQuoted(dst []byte, s string, mode quoteMode) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && !(c == 0x7f && mode == quoteText) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, rune(c))
			i++
			start = i
			continue
		}
		if n := surrogateAt(s, i); n > 0 {
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, rune(s[i]&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F))
			i += n
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || needsEscape(r, mode) {
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, r)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func needsEscape(r rune, mode quoteMode) bool {
	switch mode {
	case quoteLines:
		return r == 0x2028 || r == 0x2029
	case quoteText:
		// The rule of internal/usertext.Unsafe (which codec may not
		// import): the bidi controls, the byte order mark and the
		// zero-width characters (U+200B-U+200D, U+2060, ...) are format
		// characters, not printable, so they are escaped too.
		return (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || !unicode.IsPrint(r) && !unicode.IsSpace(r)
	case quoteJSON:
	}
	return false
}

// appendEscape writes the escape of one BMP code point, using the short
// forms JSON.stringify uses and lowercase hex otherwise.
func appendEscape(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if i := strings.IndexByte(shortEscaped, byte(r)); i >= 0 {
			return append(dst, '\\', shortEscapes[i])
		}
	}
	if r > 0xffff {
		// Beyond the BMP (a private-use or unassigned plane): a surrogate
		// pair, as JSON spells such a rune.
		hi, lo := utf16.EncodeRune(r)
		return appendEscape(appendEscape(dst, hi), lo)
	}
	const digits = "0123456789abcdef"
	return append(dst, '\\', 'u', digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15])
}
