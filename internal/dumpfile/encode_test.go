package dumpfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"kvdeck/codec"
	"kvdeck/store"
)

// entryOf is the entry of a row with raw key k (decoded as far as it
// decodes) and value v; flags add what other programs leave: bit 0 a NULL
// key, bit 1 a NULL value, bit 2 an expiry, bits 3-4 a malformed column.
func entryOf(k, v []byte, ver, exp int64, flags uint8) store.Entry {
	e := store.Entry{Raw: k, Value: v, Ver: ver}
	if e.Key, e.KeyErr = codec.Decode(k); e.KeyErr != nil {
		e.Key = nil
	}
	if flags&1 != 0 {
		e.Raw, e.Key, e.KeyErr, e.KeyNull = nil, nil, store.ErrNullKey, true
	}
	if flags&2 != 0 {
		e.Value, e.ValueNull = nil, true
	}
	if flags&4 != 0 {
		e.ExpiresAt = &exp
	}
	switch flags >> 3 & 3 {
	case 1:
		e.Malformed = "ver is REAL 1.5"
	case 2:
		e.Malformed = "expires_at is TEXT \"\x1b]0;t\x07\u202e\" (never expires: SQLite orders it after every number)"
	case 3:
		e.Malformed = "ver is TEXT \"a\"; expires_at is REAL 2.5"
	}
	return e
}

// checkLine fails unless AppendLine writes e as Line(Entry(...)) does, the
// path before it (kept as its oracle), both physical and not.
func checkLine(t *testing.T, e store.Entry, now int64) {
	t.Helper()
	for _, physical := range []bool{true, false} {
		want, wantErr := Line(Entry(e, now, physical))
		got, err := AppendLine([]byte("prefix"), e, now, physical)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("AppendLine(%+v): error %v, Line's %v", e, err, wantErr)
		}
		if err == nil && string(got) != "prefix"+string(want) {
			t.Fatalf("AppendLine(%+v, physical %v):\n got %s\nwant %s", e, physical, got[len("prefix"):], want)
		}
	}
}

func TestAppendLineMatchesEntry(t *testing.T) {
	key := codec.MustEncode(codec.Key{codec.String("users"), codec.String("ä\u202e\x1b"), codec.Number(-0.5), codec.Bigint(7), codec.Bool(true), codec.Bytes([]byte{0, 255})})
	for _, v := range []string{
		`{"plan":"pro","n":[1,2.5e-7,-0,true,null],"s":"\u0007 é \u2028"}`, // compact: written as it is
		"{\"a\": 1,\n \"b\" : [ 2 ] }",                                     // white space: compacted
		"\"\x1b]52;c;eA==\x07\"", "\"\u009b\u202e\ufeff\"", "\"\xff\"", "not json", "{\"a\":1", "", "1 2", "01",
		"\"\\ud800\"", "-", "1.", "1e", "[" + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "]", "<b>&amp;</b>", "\"<&>\"",
	} {
		for _, flags := range []uint8{0, 2, 4, 8, 16, 24, 1, 5} {
			checkLine(t, entryOf(key, []byte(v), 42, 1767312001000, flags), 1767312000000)
		}
	}
	for _, k := range [][]byte{nil, {}, {0xff, 0x1b}, {0x02, 'a', 0xff, 0x00}} {
		checkLine(t, entryOf(k, []byte(`1`), -3, 5, 4), 10)
	}
}

// FuzzAppendLine: AppendLine writes every row as the encoding/json path
// does, whatever its key bytes, value bytes and odd columns.
func FuzzAppendLine(f *testing.F) {
	key := codec.MustEncode(codec.Key{codec.String("k"), codec.Number(1)})
	for _, v := range []string{`{"a":1}`, "{ \"a\" : 1 }", "\"\x1b\"", "\xff", "x", `"\u2028"`, `[1,{"b":[true,false,null]}]`} {
		f.Add(key, []byte(v), int64(1), int64(5), uint8(0))
	}
	f.Add([]byte{0xff}, []byte(`"é"`), int64(-1), int64(0), uint8(31))
	f.Fuzz(func(t *testing.T, k, v []byte, ver, exp int64, flags uint8) {
		checkLine(t, entryOf(k, v, ver, exp, flags), 7)
	})
}

// FuzzCompactJSON: compactJSON says yes only of values that are UTF-8,
// JSON and compact (json.Compact leaves them as they are), and, for
// values too short to nest past its depth, of every such value.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,-0.5e+3,"x\"\\\/\b\f\n\r\t\u00e9"]}`, `{"a": 1}`, `"\u12"`, `01`, `-`, `1.e5`, `[1,]`, `{"a"}`, "\"\x7f\"", "\"\x01\"", `tru`, ` 1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var buf bytes.Buffer
		compact := utf8.Valid(b) && json.Valid(b) && json.Compact(&buf, b) == nil && bytes.Equal(buf.Bytes(), b)
		got := compactJSON(b)
		if got && !compact {
			t.Fatalf("compactJSON(%q) = true; valid UTF-8 %v, JSON %v, compacted %q", b, utf8.Valid(b), json.Valid(b), buf.Bytes())
		}
		if !got && compact && len(b) <= 2*maxCompactDepth {
			t.Fatalf("compactJSON(%q) = false for a compact value", b)
		}
	})
}
