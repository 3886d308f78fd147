package usertext

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal as itself: C0 controls
// but tab (line feed included: one field stays one line), DEL, the C1
// controls (U+0080-U+009F, which some terminals obey like ESC sequences),
// the line and paragraph separators U+2028/U+2029, the bidirectional
// marks, embeddings, overrides and isolates, the byte order mark, and
// every other rune that is not printable (format characters, private use,
// unassigned code points). Such a rune could move the cursor, start an
// escape sequence (OSC 52 writes the clipboard, OSC 0 the window title),
// hide text or reorder what is shown around it.
func Unsafe(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return !unicode.IsPrint(r) && !unicode.IsSpace(r)
}

// Sanitize returns s safe to print on one terminal line: every Unsafe rune
// becomes a visible \uXXXX escape (\UXXXXXXXX beyond the BMP) and every byte that is not UTF-8 a \xNN
// escape, so nothing stored can act on the terminal or break the line.
// Text without such runes is returned unchanged (no allocation).
func Sanitize(s string) string { return sanitize(s, false) }

// SanitizeLines is Sanitize for text of several lines: line feeds are kept,
// everything else follows the same rule (a carriage return is escaped: it
// could overwrite the start of a line).
func SanitizeLines(s string) string { return sanitize(s, true) }

func unsafeIn(r rune, lines bool) bool { return Unsafe(r) && !(lines && r == '\n') }

func sanitize(s string, lines bool) string {
	clean := true
	for i := 0; i < len(s); {
		// Printable ASCII, most of what is printed, is passed over eight
		// bytes at a time, other ASCII byte by byte, without decoding runes.
		if i+8 <= len(s) && printableASCII(stringUint64(s[i:i+8])) {
			i += 8
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7f || c == '\t' || lines && c == '\n' {
				i++
				continue
			}
			clean = false
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeIn(r, lines) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		i += sanitizeRuneAt(&b, s, i, lines)
	}
	return b.String()
}

// sanitizeRuneAt writes the one rune at s[i:] to b by sanitize's rule,
// decoded: a byte that is not UTF-8 as \xNN, an Unsafe rune as its
// \uXXXX (\UXXXXXXXX) escape, any other rune as it is; it returns the
// rune's width in s.
func sanitizeRuneAt(b *strings.Builder, s string, i int, lines bool) int {
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		fmt.Fprintf(b, `\x%02x`, s[i])
	case unsafeIn(r, lines) && r > 0xffff:
		fmt.Fprintf(b, `\U%08x`, r)
	case unsafeIn(r, lines):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		b.WriteString(s[i : i+size])
	}
	return size
}

// EscapeJSON returns the JSON text b with every Unsafe rune written as a
// \uXXXX escape (a surrogate pair beyond the BMP) and every byte that is not UTF-8 as \ufffd. In valid JSON
// such runes occur only inside strings, where the escape means the same,
// so the result decodes to the same value. The JSON white space (line
// feed, carriage return, tab) is kept: valid JSON has it only between
// tokens. b is returned as is when nothing needs escaping.
//
// Printable ASCII is passed over eight bytes at a time, other ASCII byte
// by byte, without decoding runes: a dump's lines are mostly ASCII, and
// this is each line's last pass.
func EscapeJSON(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		if out == nil && i+8 <= len(b) && printableASCII(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
			continue
		}
		if c := b[i]; c < utf8.RuneSelf && (c >= 0x20 && c != 0x7f || c == '\t' || c == '\n' || c == '\r') {
			if out != nil {
				out = append(out, c)
			}
			i++
			continue
		}
		var n int
		out, n = escapeRuneAt(out, b, i)
		i += n
	}
	if out == nil {
		return b
	}
	return out
}

// escapeRuneAt is EscapeJSON's rule for the one rune at b[i:], decoded:
// an Unsafe rune (line feed and carriage return excepted) is written as
// its \uXXXX escape, a byte that is not UTF-8 as \ufffd, any other rune
// as it is. out stays nil until the first escape, which copies b[:i]
// into it; it returns out and the rune's width in b.
func escapeRuneAt(out, b []byte, i int) ([]byte, int) {
	r, n := utf8.DecodeRune(b[i:])
	bad := r == utf8.RuneError && n == 1
	if bad || r != '\n' && r != '\r' && Unsafe(r) {
		if out == nil {
			out = append(make([]byte, 0, len(b)+16), b[:i]...)
		}
		switch {
		case bad:
			out = append(out, `\ufffd`...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
	} else if out != nil {
		out = append(out, b[i:i+n]...)
	}
	return out, n
}

// stringUint64 is the eight bytes of s, the first in the low byte (as
// binary.LittleEndian reads a slice).
func stringUint64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// printableASCII reports whether each of the eight bytes of x is in
// 0x20-0x7e: none is below 0x20 (subtracting 0x20 from such a byte
// borrows into its high bit, which it did not have), and none is 0x7f or
// above (adding 1 sets its high bit, or it had it). A byte's borrow or
// carry reaching its neighbour can only make the answer false, never
// true, which costs a byte-by-byte look and nothing else.
func printableASCII(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return (x-0x20*ones)&^x&highs == 0 && ((x+ones)|x)&highs == 0
}
