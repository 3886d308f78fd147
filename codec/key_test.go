package codec

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
)

var negZero = math.Copysign(0, -1)

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{
		KindBytes: "bytes", KindString: "string", KindNumber: "number",
		KindBigint: "bigint", KindBool: "boolean", 0: "Kind(0x00)", 6: "Kind(0x06)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

func TestPartAccessors(t *testing.T) {
	src := []byte{0, 1}
	b := Bytes(src)
	src[0] = 9 // Bytes copies
	if got := b.BytesValue(); !bytes.Equal(got, []byte{0, 1}) || b.Kind() != KindBytes {
		t.Errorf("Bytes: %v %v", got, b.Kind())
	}
	b.BytesValue()[0] = 7 // BytesValue copies
	if b.BytesValue()[0] != 0 {
		t.Error("BytesValue shares memory with the part")
	}
	if String("x").StringValue() != "x" || Number(1.5).NumberValue() != 1.5 ||
		Bigint(-7).BigintValue() != -7 || !Bool(true).BoolValue() || Bool(false).BoolValue() {
		t.Error("accessor round trip failed")
	}
	// Accessors of the wrong kind return zero values.
	if String("x").NumberValue() != 0 || Number(1).StringValue() != "" || Bool(true).BigintValue() != 0 ||
		Bigint(1).BoolValue() || Number(1).BytesValue() != nil {
		t.Error("wrong-kind accessor returned a value")
	}
	if !math.Signbit(Number(negZero).NumberValue()) {
		t.Error("-0 lost its sign")
	}
}

func TestPartEqual(t *testing.T) {
	for _, c := range []struct {
		a, b Part
		want bool
	}{
		{Number(0), Number(negZero), false},
		{Number(1), Number(1), true},
		{Number(1), Bigint(1), false},
		{String("a"), Bytes([]byte("a")), false},
		{Bytes(nil), Bytes([]byte{}), true},
		{Bool(true), Bool(true), true},
		{Bool(true), Bool(false), false},
	} {
		if got := c.a.Equal(c.b); got != c.want {
			t.Errorf("%v.Equal(%v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestKeyEqualAndPrefix(t *testing.T) {
	users := Key{String("users")}
	alice := Key{String("users"), String("alice")}
	if !Key(nil).Equal(Key{}) || !alice.Equal(Key{String("users"), String("alice")}) || alice.Equal(users) {
		t.Error("Key.Equal")
	}
	for _, c := range []struct {
		k, p Key
		want bool
	}{
		{alice, users, true}, {alice, alice, true}, {alice, nil, true},
		{users, alice, false}, {alice, Key{String("user")}, false},
	} {
		if got := c.k.HasPrefix(c.p); got != c.want {
			t.Errorf("%v.HasPrefix(%v) = %v, want %v", c.k, c.p, got, c.want)
		}
	}
}

func TestEncodeTable(t *testing.T) {
	for _, c := range []struct {
		k    Key
		want string
	}{
		{nil, ""},
		{Key{String("a\x00")}, "026100ff00"},
		{Key{Bytes([]byte{0xff, 0, 0})}, "01ff00ff00ff00"},
		{Key{Number(negZero)}, "037fffffffffffffff"},
		{Key{Number(math.Inf(-1))}, "03000fffffffffffff"},
		{Key{Bigint(math.MinInt64)}, "040000000000000000"},
		{Key{Bigint(-1)}, "047fffffffffffffff"},
		{Key{Bool(true), Bool(false)}, "05010500"},
	} {
		got, err := Encode(c.k)
		if err != nil || hex.EncodeToString(got) != c.want {
			t.Errorf("Encode(%v) = %x, %v; want %s", c.k, got, err, c.want)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	for _, c := range []struct {
		k    Key
		want error
	}{
		{Key{String("ok"), Number(math.NaN())}, ErrNaN},
		{Key{String("\xff")}, ErrInvalidUTF8},
		{Key{String("\xed\xa0\x80")}, ErrInvalidUTF8}, // a surrogate in UTF-8 form
		{Key{{}}, ErrInvalidTag},
	} {
		b, err := Encode(c.k)
		if !errors.Is(err, c.want) || b != nil {
			t.Errorf("Encode(%v) = %x, %v; want %v", c.k, b, err, c.want)
		}
		if _, err := AppendKey([]byte("keep"), c.k); !errors.Is(err, c.want) {
			t.Errorf("AppendKey(%v): %v", c.k, err)
		}
	}
	if _, err := Encode(Key{String("a"), Number(math.NaN())}); err == nil || !strings.Contains(err.Error(), "part 1") {
		t.Errorf("error does not name the part: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustEncode(NaN) did not panic")
		}
	}()
	MustEncode(Key{Number(math.NaN())})
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct {
		hex    string
		want   error
		offset int
	}{
		{"02", ErrMissingTerminator, 1},
		{"026100ff", ErrTruncated, 4},
		{"0261000603", ErrInvalidTag, 3},
		{"0502", ErrInvalidBool, 1},
		{"05", ErrTruncated, 1},
		{"0501", nil, 0},
		{"028000", ErrInvalidUTF8, 1},
		{"02ff00", ErrInvalidUTF8, 1},
		{"03fff8000000000000", ErrNaN, 1},
		{"037ff8000000000000", nil, 0}, // inverted bits of a negative number, not NaN
		{"030007ffffffffffff", ErrNaN, 1},
		{"04ffffffffffffff", ErrTruncated, 8},
		{"06", ErrInvalidTag, 0},
	} {
		raw, _ := hex.DecodeString(c.hex)
		k, err := Decode(raw)
		if c.want == nil {
			if err != nil {
				t.Errorf("Decode(%s): %v", c.hex, err)
			}
			continue
		}
		var de *DecodeError
		if !errors.Is(err, c.want) || !errors.As(err, &de) || k != nil {
			t.Errorf("Decode(%s) = %v, %v; want %v", c.hex, k, err, c.want)
			continue
		}
		if c.offset != 0 && de.Offset != c.offset {
			t.Errorf("Decode(%s): offset %d, want %d (%v)", c.hex, de.Offset, c.offset, err)
		}
	}
	// The UTF-8 error offset points at the bad byte in the raw input,
	// past the escape before it.
	raw, _ := hex.DecodeString("026100" + "0200ff80" + "00")
	_, err := Decode(raw)
	var de *DecodeError
	if !errors.As(err, &de) || de.Offset != 6 {
		t.Errorf("offset of bad UTF-8 after an escape: %v", err)
	}
}

func TestDecodePart(t *testing.T) {
	raw := MustEncode(Key{String("users"), Bigint(7), Bool(true)})
	var got Key
	for off := 0; off < len(raw); {
		p, n, err := DecodePart(raw[off:])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
		off += n
	}
	if !got.Equal(Key{String("users"), Bigint(7), Bool(true)}) {
		t.Errorf("parts %v", got)
	}
	if _, _, err := DecodePart(nil); !errors.Is(err, ErrTruncated) {
		t.Errorf("DecodePart(nil): %v", err)
	}
	// The payload must not alias the input.
	in := MustEncode(Key{Bytes([]byte("abc"))})
	p, _, _ := DecodePart(in)
	in[1] = 'X'
	if string(p.BytesValue()) != "abc" {
		t.Error("decoded part aliases its input")
	}
}

func TestCompareTable(t *testing.T) {
	ordered := []Key{
		{},
		{Bytes(nil)},
		{Bytes([]byte{0})},
		{Bytes([]byte{0}), String("")},
		{Bytes([]byte{0, 0})},
		{Bytes([]byte{0xff})},
		{String("")},
		{String("a")},
		{String("a"), Bool(true)},
		{String("a\x00")},
		{String("é")},
		{String("😀")},
		{Number(math.Inf(-1))},
		{Number(-1)},
		{Number(negZero)},
		{Number(0)},
		{Number(5e-324)},
		{Number(math.Inf(1))},
		{Bigint(math.MinInt64)},
		{Bigint(0)},
		{Bigint(math.MaxInt64)},
		{Bool(false)},
		{Bool(true)},
		{Bool(true), Bytes(nil)},
	}
	for i := range ordered {
		for j := range ordered {
			want := cmp.Compare(i, j)
			if got := Compare(ordered[i], ordered[j]); got != want {
				t.Errorf("Compare(%v, %v) = %d, want %d", ordered[i], ordered[j], got, want)
			}
			if got := bytes.Compare(MustEncode(ordered[i]), MustEncode(ordered[j])); got != want {
				t.Errorf("bytes.Compare(enc %v, enc %v) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

func TestRanges(t *testing.T) {
	prefix := MustEncode(Key{String("users")})
	end := PrefixEnd(prefix)
	if !bytes.Equal(end, append(append([]byte{}, prefix...), 0xff)) || len(prefix) != 7 {
		t.Errorf("PrefixEnd = %x", end)
	}
	inRange := func(k Key) bool {
		e := MustEncode(k)
		return bytes.Compare(prefix, e) <= 0 && bytes.Compare(e, end) < 0
	}
	for k, want := range map[string]bool{
		`["users"]`: true, `["users", "a"]`: true, `["users", true, b"ff"]`: true,
		`["user"]`: false, `["users\u0000"]`: false, `["usersa"]`: false, `["v"]`: false,
	} {
		if got := inRange(mustParse(t, k)); got != want {
			t.Errorf("%s in prefix range of [\"users\"]: %v, want %v", k, got, want)
		}
	}

	seek, err := ChildSeek(prefix, String("alice"))
	if err != nil {
		t.Fatal(err)
	}
	below := []string{`["users", "alice"]`, `["users", "alice", 1]`, `["users", "alice", true, true]`}
	above := []string{`["users", "alice\u0000"]`, `["users", "alicf"]`, `["users", 1]`, `["users", "b"]`}
	for _, s := range below {
		if bytes.Compare(MustEncode(mustParse(t, s)), seek) >= 0 {
			t.Errorf("%s is not below ChildSeek", s)
		}
	}
	for _, s := range above {
		if bytes.Compare(MustEncode(mustParse(t, s)), seek) < 0 {
			t.Errorf("%s is below ChildSeek", s)
		}
	}
	if _, err := ChildSeek(prefix, Number(math.NaN())); !errors.Is(err, ErrNaN) {
		t.Errorf("ChildSeek(NaN): %v", err)
	}
	if p, err := EncodePart(Bigint(1)); err != nil || hex.EncodeToString(p) != "048000000000000001" {
		t.Errorf("EncodePart = %x, %v", p, err)
	}
}

func mustParse(tb testing.TB, s string) Key {
	tb.Helper()
	k, err := Parse(s)
	if err != nil {
		tb.Fatalf("Parse(%s): %v", s, err)
	}
	return k
}
