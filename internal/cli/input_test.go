package cli

import (
	"errors"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
)

func TestParseTime(t *testing.T) {
	const now = storetest.T0
	cases := []struct {
		in   string
		want int64
		err  string
	}{
		{"1767312000000", 1767312000000, ""},
		{"0", 0, ""},
		{"-1000", -1000, ""},
		{" 42 ", 42, ""},
		{"now", now, ""},
		{"+5m", now + 300000, ""},
		{"+1h30m", now + 5400000, ""},
		{"-30s", now - 30000, ""},
		{"+250ms", now + 250, ""},
		{"2026-01-02T00:00:00Z", 1767312000000, ""},
		{"2026-01-02T01:00:00+01:00", 1767312000000, ""},
		{"2026-01-02T00:00:00.123Z", 1767312000123, ""},
		{"", 0, "empty time"},
		{"+5", 0, "not a Go duration"},
		{"+", 0, "not a Go duration"},
		{"5m", 0, "want epoch milliseconds"},
		{"2026-01-02", 0, "RFC 3339"},
		{"99999999999999999999", 0, "out of range"},
		{"+2562048h", 0, "not a Go duration"},
		{"253402300800000", 0, "out of range"},
		{"+87600000h", 0, "not a Go duration"},
		{"tomorrow", 0, "want epoch milliseconds"},
	}
	for _, tc := range cases {
		got, err := ParseTime(tc.in, now)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseTime(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseTime(%q) = %d, %v; want an error with %q", tc.in, got, err, tc.err)
		}
	}
}

func TestParseKey(t *testing.T) {
	if _, err := ParseKey("KEY", `["a", 1, 2n]`); err != nil {
		t.Fatal(err)
	}
	_, err := ParseKey("--start", `["a" 1]`)
	if !errors.Is(err, codec.ErrSyntax) || !strings.Contains(err.Error(), "--start") || !strings.Contains(err.Error(), "column 6") {
		t.Errorf("got %v; want a syntax error naming --start and column 6", err)
	}
	_, err = ParseKey("KEY", "[\"\u202e\"")
	if err == nil || !strings.Contains(err.Error(), `\u202e`) {
		t.Errorf("a bidi control in an error message is shown raw: %v", err)
	}
	if k, err := ParseOptionalKey("PREFIX", ""); k != nil || err != nil {
		t.Errorf("ParseOptionalKey(\"\") = %v, %v", k, err)
	}
}

func TestParseExpireIn(t *testing.T) {
	for in, want := range map[string]time.Duration{"30s": 30 * time.Second, "1m30s": 90 * time.Second, "250ms": 250 * time.Millisecond, "0s": 0, "-1s": -time.Second} {
		if got, err := ParseExpireIn("x", in); err != nil || got != want {
			t.Errorf("ParseExpireIn(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "5", "1.5ms", "1us", "soon"} {
		if _, err := ParseExpireIn("x", in); err == nil {
			t.Errorf("ParseExpireIn(%q) succeeded", in)
		}
	}
}

func TestParseHex(t *testing.T) {
	for in, want := range map[string]string{"": "", "0x": "", "0X0aFF": "0aff", "00": "00"} {
		b, err := ParseHex(in)
		if err != nil || string(b) != string(mustHex(want)) {
			t.Errorf("ParseHex(%q) = %x, %v", in, b, err)
		}
	}
	for in, want := range map[string]string{"0g": "character 2", "0x0g": "character 4", "abc": "odd", " 00": "character 1"} {
		if _, err := ParseHex(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseHex(%q) = %v; want %q", in, err, want)
		}
	}
}

func mustHex(s string) []byte {
	b, err := ParseHex(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestJSONValueEscapesTerminalRunes(t *testing.T) {
	in := []byte("{\"a\": \"x\u2028y\u202ez\u0085\"}")
	if got, ok := jsonValue(in); !ok || string(got) != `{"a":"x\u2028y\u202ez\u0085"}` {
		t.Errorf("jsonValue = %s, %v", got, ok)
	}
}
