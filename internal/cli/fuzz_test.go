package cli

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
)

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"1767312000000", "now", "+5m", "-30s", "2026-01-02T00:00:00Z", "-", "+", "9999-12-31T23:59:59.999999999Z", "-9223372036854775808"} {
		f.Add(s, storetest.T0)
	}
	f.Fuzz(func(t *testing.T, s string, now int64) {
		ms, err := ParseTime(s, now)
		if err != nil {
			return
		}
		if strings.TrimSpace(s) == "now" && ms != now {
			t.Fatalf("now = %d, want %d", ms, now)
		}
	})
}

func FuzzParseLoadLine(f *testing.F) {
	for _, s := range []string{
		`{"key":"[\"a\"]","value":1}`,
		`{"key":[{"type":"string","value":"a"}],"hex":"026100","value":{"x":[1]},"versionstamp":"00000000000000000001","expiresAt":1767312000000,"expired":false}`,
		`{"key":null,"hex":"ff","value":"raw","error":"key does not decode"}`,
		`{"meta":{"seq":63}}`, ``, `   `, `{"key":"[]","value":null,"expiresAt":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, ok, err := parseLoadLine(line, 1)
		if err != nil || !ok || rec.undecodable != "" {
			return
		}
		if enc, err := codec.Encode(rec.key); err != nil || string(enc) != rec.enc {
			t.Fatalf("accepted key %v does not encode to its enc: %v", rec.key, err)
		}
		if norm, err := codec.NormalizeJSON(rec.value); err != nil || !bytes.Equal(norm, rec.value) {
			t.Fatalf("accepted value %q is not normalised: %v", rec.value, err)
		}
	})
}

func FuzzParseHex(f *testing.F) {
	for _, s := range []string{"", "0x", "026100", "0X02FF", "zz", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseHex(s)
		if err != nil {
			return
		}
		digits := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
		if hex.EncodeToString(b) != strings.ToLower(digits) {
			t.Fatalf("ParseHex(%q) = %x", s, b)
		}
		_, _ = codec.Decode(b) // must not panic
	})
}

func FuzzEntryValue(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "not json", "\"\u2028\"", "\xff", `[1, 2 ]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, _ := jsonValue(raw)
		if !validJSON(v) {
			t.Fatalf("jsonValue(%q) = %q, not JSON", raw, v)
		}
		if bytes.ContainsAny(v, "\n\r\u2028\u2029\x1b\u009b\u202e") {
			t.Fatalf("jsonValue(%q) = %q spans lines or holds a terminal control", raw, v)
		}
	})
}

// FuzzListFilterFlags: --where and --contains either give a matcher or an
// error naming the flag; nothing panics.
func FuzzListFilterFlags(f *testing.F) {
	for _, s := range []string{".", ".a > 1", "", ".a |", "\x1b[2J", "foo("} {
		f.Add(s, "")
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, where, contains string) {
		// An empty argument stands for a flag not given; --where wins as
		// kong's xor lets only one through.
		c := &ListCmd{}
		switch {
		case where != "":
			c.Where = &where
		case contains != "":
			c.Contains = &contains
		}
		m, err := c.matcher()
		switch {
		case err != nil && c.Where != nil && !strings.HasPrefix(err.Error(), "--where: "):
			t.Fatalf("--where %q: %v", where, err)
		case err != nil && c.Contains != nil && !strings.HasPrefix(err.Error(), "--contains: "):
			t.Fatalf("--contains %q: %v", contains, err)
		case err == nil && m == nil && (c.Where != nil || c.Contains != nil):
			t.Fatalf("no matcher for %q %q", where, contains)
		}
	})
}
