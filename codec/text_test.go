package codec

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		k    Key
		want string
	}{
		{nil, `[]`},
		{Key{String("users"), String("alice")}, `["users", "alice"]`},
		{Key{String("orders"), Number(42), Bigint(7)}, `["orders", 42, 7n]`},
		{Key{Bool(true)}, `[true]`},
		{Key{Bytes([]byte{0, 0xff})}, `[b"00ff"]`},
		{Key{Bytes(nil)}, `[b""]`},
		{Key{Number(negZero), Number(0), Number(math.Inf(1)), Number(math.Inf(-1))}, `[-0, 0, Infinity, -Infinity]`},
		{Key{Number(1e21), Number(1e-7), Number(0.30000000000000004), Number(-1e308)}, `[1e+21, 1e-7, 0.30000000000000004, -1e+308]`},
		{Key{Bigint(math.MinInt64), Bigint(math.MaxInt64)}, `[-9223372036854775808n, 9223372036854775807n]`},
		{Key{String("q\"b\\\n\t\x00\x1f")}, `["q\"b\\\n\t\u0000\u001f"]`},
		{Key{String("é日本😀<&>")}, `["é日本😀<&>"]`},
		// Characters that could hide or reorder text on a terminal are escaped.
		{Key{String("\x7f\u0085\u2028\u2029\ufeff\u202e\u2066\u200f")}, `["\u007f\u0085\u2028\u2029\ufeff\u202e\u2066\u200f"]`},
		// Zero-width and other format characters too:
		// "ad\u200bmin" must not pass for "admin" on a screen or a clipboard.
		{Key{String("ad\u200bmin\u200c\u200d\u2060\u061c\u180e\ue000")}, `["ad\u200bmin\u200c\u200d\u2060\u061c\u180e\ue000"]`},
		// Spaces other than ASCII's are printable white space and stay.
		{Key{String("a\u00a0b\u3000c")}, "[\"a\u00a0b\u3000c\"]"},
		{Key{String("\xff")}, `["\ufffd"]`}, // not encodable; shown, not round-tripped
		{Key{Number(math.NaN())}, `[NaN]`},
	} {
		if got := Format(c.k); got != c.want {
			t.Errorf("Format(%#v) = %s, want %s", c.k, got, c.want)
		}
		if got := c.k.String(); got != c.want {
			t.Errorf("Key.String() = %s, want %s", got, c.want)
		}
	}
	if got := String("users").String(); got != `"users"` {
		t.Errorf("Part.String() = %s", got)
	}
}

// checkDecodes: decode (called name in messages) reads each text of
// cases as its key, without error.
func checkDecodes(t *testing.T, name string, decode func(string) (Key, error), cases map[string]Key) {
	t.Helper()
	for in, want := range cases {
		got, err := decode(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s(%q) = %v, %v; want %v", name, in, got, err, want)
		}
	}
}

// decodeErrorCase is a key text a decoder refuses: the error it must
// match besides ErrSyntax, and a substring of its message.
type decodeErrorCase struct {
	in   string
	want error
	msg  string
}

// checkDecodeErrors: decode (called name in messages) refuses each
// case's text with no key and an error matching ErrSyntax and the case's
// error, whose message contains the case's substring.
func checkDecodeErrors(t *testing.T, name string, decode func(string) (Key, error), cases []decodeErrorCase) {
	t.Helper()
	for _, c := range cases {
		k, err := decode(c.in)
		if !errors.Is(err, c.want) || !errors.Is(err, ErrSyntax) || k != nil {
			t.Errorf("%s(%q) = %v, %v; want an error matching %v and ErrSyntax", name, c.in, k, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s(%q) error %q, want it to contain %q", name, c.in, err, c.msg)
		}
	}
}

func TestParse(t *testing.T) {
	checkDecodes(t, "Parse", Parse, map[string]Key{
		`[]`:                                    {},
		` [ ] `:                                 {},
		`["users","alice"]`:                     {String("users"), String("alice")},
		"\t[ \"a\" ,\n 1 , 2n,true,false ]\r\n": {String("a"), Number(1), Bigint(2), Bool(true), Bool(false)},
		`[-0, 0, -0.0, 0e5, Infinity, -Infinity]`:                {Number(negZero), Number(0), Number(negZero), Number(0), Number(math.Inf(1)), Number(math.Inf(-1))},
		`[1E+2, 1.5e-7, 12e3, 1e-400]`:                           {Number(100), Number(1.5e-7), Number(12000), Number(0)},
		`[b"00FFaB", b""]`:                                       {Bytes([]byte{0, 0xff, 0xab}), Bytes(nil)},
		`[-9223372036854775808n, 9223372036854775807n, -0n, 0n]`: {Bigint(math.MinInt64), Bigint(math.MaxInt64), Bigint(0), Bigint(0)},
		`["\u00e9\ud83d\ude00\/\b"]`:                             {String("é😀/\b")},
		// Tagged JSON is detected and accepted too.
		`[{"type":"string","value":"a"},{"type":"number","value":"-0"}]`: {String("a"), Number(negZero)},
		` [ {"type":"boolean","value":true} ]`:                           {Bool(true)},
	})
}

func TestParseErrors(t *testing.T) {
	// The substrings name the column.
	checkDecodeErrors(t, "Parse", Parse, []decodeErrorCase{
		{``, ErrSyntax, `column 1: expected '[' to start a key, found end of input`},
		{`"a"`, ErrSyntax, `column 1: expected '['`},
		{`["users" "alice"]`, ErrSyntax, `column 10: expected ',' or ']', found '"'`},
		{`["a",]`, ErrSyntax, `column 6: expected a key part`},
		{`["a"`, ErrSyntax, `column 5: expected ',' or ']', found end of input`},
		{`["a"] x`, ErrSyntax, `column 7: expected end of input after ']', found 'x'`},
		{`['a']`, ErrSyntax, `column 2: expected a key part (strings use double quotes)`},
		{`[users]`, ErrSyntax, `column 2: expected a key part (a "string", a number, a bigint like 7n, true, false or b"hex"), found "users"`},
		{`[True]`, ErrSyntax, `found "True"`},
		{`[NaN]`, ErrNaN, `column 2: NaN cannot be a key part`},
		{`[1, -NaN]`, ErrNaN, `column 5: NaN`},
		{`[-Inf]`, ErrSyntax, `found "-Inf"`},
		{`[9223372036854775808n]`, ErrBigintRange, `column 2: bigint 9223372036854775808n is outside the signed 64-bit range`},
		{`[-9223372036854775809n]`, ErrBigintRange, `column 2:`},
		{`[1.5n]`, ErrSyntax, `a bigint must be an integer`},
		{`[1e400]`, ErrSyntax, `beyond float64 range`},
		{`[01]`, ErrSyntax, `column 3: expected ',' or ']' after a number, found '1'`},
		{`[1x]`, ErrSyntax, `column 3: expected ',' or ']' after a number, found 'x'`},
		{`[7nx]`, ErrSyntax, `column 4:`},
		{`[+1]`, ErrSyntax, `column 2: expected a key part`},
		{`[1.]`, ErrSyntax, `column 4: expected a digit in number, found ']'`},
		{`[-]`, ErrSyntax, `column 3: expected a digit in number`},
		{`[b"abc"]`, ErrSyntax, `expected an even number of hex digits`},
		{`[b"zz"]`, ErrSyntax, `column 4: expected hex digits or '"' to close b"..."`},
		{`["a\x"]`, ErrSyntax, `column 5: expected one of`},
		{`["a` + "\n" + `"]`, ErrSyntax, `column 4: expected a character or escape`},
		{`["\ud800"]`, ErrInvalidUTF8, `column 2: string has a lone surrogate`},
		{"[\"\xff\"]", ErrInvalidUTF8, `column 3: invalid UTF-8`},
		{"[\"é\",\n x]", ErrSyntax, `line 2, column 2: expected a key part`},
		{`["日本", x]`, ErrSyntax, `column 8:`}, // columns count characters, not bytes
		{`[{"type":"number","value":"NaN"}]`, ErrNaN, `column 27: NaN cannot be a key part`},
	})
}

// TestFormatParseRoundTrip covers parts whose text form is easy to get
// wrong; the fuzz target covers the rest.
func TestFormatParseRoundTrip(t *testing.T) {
	keys := []Key{
		{Number(negZero), Number(5e-324), Number(-5e-324), Number(math.MaxFloat64), Number(1e21), Number(123e-20)},
		{String("\u2028\u0000\x7f\u0085\ufeff\U0010ffff\ufffd")},
		{Bytes([]byte{0, 1, 2, 0xfe, 0xff}), Bigint(math.MinInt64)},
	}
	for _, k := range keys {
		text := Format(k)
		back, err := Parse(text)
		if err != nil || !back.Equal(k) {
			t.Errorf("Parse(%s) = %v, %v; want %v", text, back, err, k)
		}
	}
}
