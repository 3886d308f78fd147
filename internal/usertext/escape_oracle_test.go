package usertext

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// escapeJSONRuneByRune is EscapeJSON without its ASCII fast path: every
// rune decoded and judged by the one-rune rule. It is the oracle the fast
// path must match byte for byte.
func escapeJSONRuneByRune(b []byte) []byte {
	out := make([]byte, 0, len(b)) // never nil: every rune is copied
	for i, n := 0, 0; i < len(b); i += n {
		out, n = escapeRuneAt(out, b, i)
	}
	return out
}

// TestEscapeJSONEveryByte: each single byte, and each byte between ASCII
// text, comes out of EscapeJSON as the rune-by-rune rule writes it.
func TestEscapeJSONEveryByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, in := range [][]byte{{byte(c)}, {'a', byte(c), 'b'}, {byte(c), 0xe2, 0x80, 0xa8, byte(c)}} {
			if got, want := EscapeJSON(in), escapeJSONRuneByRune(in); !bytes.Equal(got, want) {
				t.Errorf("EscapeJSON(%q) = %q, want %q", in, got, want)
			}
		}
	}
}

// FuzzEscapeJSONMatchesRuneByRune: the ASCII fast path changes nothing
// of the output, whatever the bytes (JSON or not, UTF-8 or not).
func FuzzEscapeJSONMatchesRuneByRune(f *testing.F) {
	for _, s := range []string{"", "plain ascii", "\x1b]0;t\x07", "é\u2028\u202e\U0001f600", "\xff\xfe", "\t\n\r\x7f", "a\xe2\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := EscapeJSON(b), escapeJSONRuneByRune(b); !bytes.Equal(got, want) {
			t.Fatalf("EscapeJSON(%q) = %q, the rune-by-rune rule %q", b, got, want)
		}
	})
}

// TestPrintableASCII: eight bytes pass as printable only when each is;
// each byte value is tried at each position among printable neighbours.
func TestPrintableASCII(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			want := c >= 0x20 && c < 0x7f
			if got := printableASCII(binary.LittleEndian.Uint64(b)); got != want {
				t.Errorf("printableASCII(%q) = %v, want %v", b, got, want)
			}
		}
	}
}

// sanitizeRuneByRune is sanitize without its ASCII fast path: every rune
// decoded and judged by the one-rune rule, the oracle of that fast path.
func sanitizeRuneByRune(s string, lines bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		i += sanitizeRuneAt(&b, s, i, lines)
	}
	return b.String()
}

// TestSanitizeEveryByteAtEveryPosition: each byte value, at each
// position of a text longer than two of the fast path's eight-byte
// steps, comes out of Sanitize and SanitizeLines as the rune-by-rune
// rule writes it.
func TestSanitizeEveryByteAtEveryPosition(t *testing.T) {
	for pos := 0; pos < 19; pos++ {
		for c := 0; c < 256; c++ {
			b := []byte("abcdefghijklmnopqrs")
			b[pos] = byte(c)
			s := string(b)
			if got, want := Sanitize(s), sanitizeRuneByRune(s, false); got != want {
				t.Errorf("Sanitize(%q) = %q, want %q", s, got, want)
			}
			if got, want := SanitizeLines(s), sanitizeRuneByRune(s, true); got != want {
				t.Errorf("SanitizeLines(%q) = %q, want %q", s, got, want)
			}
		}
	}
}
