package codec_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
)

// keyFromBytes builds a valid key from fuzz input, so the fuzzer explores
// keys rather than rejected inputs. Every byte string maps to some key.
func keyFromBytes(data []byte) codec.Key {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	word := func() uint64 {
		var buf [8]byte
		n := copy(buf[:], data)
		data = data[n:]
		return binary.BigEndian.Uint64(buf[:])
	}
	var k codec.Key
	for len(data) > 0 && len(k) < 8 {
		tag := next()
		switch tag % 5 {
		case 0:
			n := int(next() % 12)
			b := make([]byte, 0, n)
			for i := 0; i < n; i++ {
				b = append(b, next())
			}
			k = append(k, codec.Bytes(b))
		case 1:
			n := int(next() % 12)
			var sb strings.Builder
			for i := 0; i < n; i++ {
				c := next()
				r := rune(c)
				if c >= 0x80 {
					// Spread high bytes over the code space: C1 controls,
					// U+2028, CJK, astral planes.
					r = rune(c) << ((c & 3) * 4)
				}
				if !utf8.ValidRune(r) {
					r = utf8.RuneError
				}
				sb.WriteRune(r)
			}
			k = append(k, codec.String(sb.String()))
		case 2:
			var f float64
			if tag&0x80 != 0 {
				f = float64(int16(word()>>48)) / 8 // everyday numbers
			} else {
				f = math.Float64frombits(word())
			}
			if math.IsNaN(f) {
				f = math.Copysign(0, -1)
			}
			k = append(k, codec.Number(f))
		case 3:
			k = append(k, codec.Bigint(int64(word())))
		default:
			k = append(k, codec.Bool(next()&1 == 1))
		}
	}
	return k
}

// seedFromVectors feeds the fuzzer the reference vectors, if present.
func seedFromVectors(f *testing.F, add func(hexBytes []byte, tagged string)) {
	f.Helper()
	dir, err := storetest.FindVectors()
	if errors.Is(err, storetest.ErrNoVectors) {
		return
	}
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range []string{"keys.jsonl", "invalid.jsonl", "order.jsonl", "public-reference.expected.jsonl"} {
		file, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			var v struct {
				Key json.RawMessage `json:"key"`
				Hex string          `json:"hex"`
			}
			if strings.HasPrefix(line, "[") {
				add(nil, line)
			} else if json.Unmarshal([]byte(line), &v) == nil {
				raw, _ := hex.DecodeString(v.Hex)
				add(raw, string(v.Key))
			}
		}
		file.Close()
	}
}

func FuzzDecode(f *testing.F) {
	seedFromVectors(f, func(raw []byte, _ string) { f.Add(raw) })
	f.Add([]byte{})
	f.Add([]byte{0x03, 0xff, 0xf8, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := codec.Decode(b)
		if err != nil {
			var de *codec.DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(b) {
				t.Fatalf("Decode(%x): bad error %v", b, err)
			}
			return
		}
		enc, err := codec.Encode(k)
		if err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("Decode(%x) = %v re-encodes to %x, %v", b, k, enc, err)
		}
		checkKeyRoundTrips(t, k)
	})
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{1, 3, 'a', 0, 'b', 2, 1, 2, 3, 4, 5, 6, 7, 8, 3, 0xff, 4, 1, 0, 2, 0, 0xff})
	f.Add([]byte{0x82, 0x12, 0x34, 0x82, 0x80})
	f.Add([]byte{1, 5, 0x85, 0xa8, 0xfe, 0xd8, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		k := keyFromBytes(data)
		enc, err := codec.Encode(k)
		if err != nil {
			t.Fatalf("Encode(%v): %v", k, err)
		}
		dec, err := codec.Decode(enc)
		if err != nil || !dec.Equal(k) {
			t.Fatalf("Decode(Encode(%v)) = %v, %v", k, dec, err)
		}
		checkKeyRoundTrips(t, k)
	})
}

// checkKeyRoundTrips checks the text and tagged forms of a valid key.
func checkKeyRoundTrips(t *testing.T, k codec.Key) {
	t.Helper()
	text := codec.Format(k)
	back, err := codec.Parse(text)
	if err != nil || !back.Equal(k) {
		t.Fatalf("Parse(Format(%#v) = %s) = %v, %v", k, text, back, err)
	}
	tagged, err := codec.MarshalTagged(k)
	if err != nil || !json.Valid(tagged) {
		t.Fatalf("MarshalTagged(%v) = %s, %v", k, tagged, err)
	}
	back, err = codec.UnmarshalTagged(tagged)
	if err != nil || !back.Equal(k) {
		t.Fatalf("UnmarshalTagged(%s) = %v, %v", tagged, back, err)
	}
	if codec.Compare(k, back) != 0 {
		t.Fatalf("Compare(k, k) != 0 for %v", k)
	}
}

func FuzzOrder(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 0, 0, 0, 0, 0}, []byte{2, 0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 'a', 'b'}, []byte{1, 1, 'a'})
	f.Add([]byte{0, 1, 0}, []byte{0, 0})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		a, b := keyFromBytes(x), keyFromBytes(y)
		want := bytes.Compare(codec.MustEncode(a), codec.MustEncode(b))
		if got := codec.Compare(a, b); got != want {
			t.Fatalf("Compare(%v, %v) = %d, bytes.Compare of encodings = %d", a, b, got, want)
		}
		if got := codec.Compare(b, a); got != -want {
			t.Fatalf("Compare is not antisymmetric for %v, %v", a, b)
		}
		if (want == 0) != a.Equal(b) {
			t.Fatalf("Equal(%v, %v) = %v, but bytes.Compare = %d", a, b, a.Equal(b), want)
		}
	})
}

func FuzzParse(f *testing.F) {
	seedFromVectors(f, func(_ []byte, tagged string) {
		if k, err := codec.UnmarshalTagged([]byte(tagged)); err == nil {
			f.Add(codec.Format(k))
		}
		f.Add(tagged)
	})
	for _, s := range []string{`[]`, `["a", 1, -0, 7n, true, b"00ff", Infinity]`, `[NaN]`, `["\ud800"]`, `[1e400]`, "[\"\u2028\"]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := codec.Parse(s)
		if err != nil {
			var se *codec.SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, codec.ErrSyntax) || se.Column < 1 || se.Line < 1 {
				t.Fatalf("Parse(%q): bad error %v", s, err)
			}
			return
		}
		if _, err := codec.Encode(k); err != nil {
			t.Fatalf("Parse(%q) = %v, which does not encode: %v", s, k, err)
		}
		checkKeyRoundTrips(t, k)
	})
}

func FuzzNormalizeJSON(f *testing.F) {
	seedFromVectors(f, func(_ []byte, tagged string) { f.Add([]byte(tagged)) })
	if data, err := os.ReadFile("testdata/normalize.jsonl"); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var c struct{ In string }
			if json.Unmarshal([]byte(line), &c) == nil {
				f.Add([]byte(c.In))
			}
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := codec.NormalizeJSON(in)
		if err != nil {
			if !errors.Is(err, codec.ErrInvalidJSON) {
				t.Fatalf("NormalizeJSON(%q): bad error %v", in, err)
			}
			// encoding/json does not check UTF-8 and JavaScript sees
			// decoded text, so only valid UTF-8 is comparable.
			if json.Valid(in) && utf8.Valid(in) {
				t.Fatalf("NormalizeJSON(%q) rejected valid JSON: %v", in, err)
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("NormalizeJSON(%q) accepted invalid JSON", in)
		}
		if !json.Valid(out) {
			t.Fatalf("NormalizeJSON(%q) = %q, not valid JSON", in, out)
		}
		again, err := codec.NormalizeJSON(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("NormalizeJSON is not idempotent: %q -> %q -> %q, %v", in, out, again, err)
		}
	})
}
