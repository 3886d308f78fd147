package usertext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\tkept", "tab\tkept"},
		{"héllo 世界 🙂 café", "héllo 世界 🙂 café"},
		{"\x1b]52;c;aGVsbG8=\x07", `\u001b]52;c;aGVsbG8=\u0007`}, // OSC 52: clipboard
		{"\x1b]0;pwned\x1b\\", `\u001b]0;pwned\u001b\`},          // OSC 0: title
		{"\x1b[2J\x1b[H", `\u001b[2J\u001b[H`},                   // CSI: clear screen
		{"a\u009b31mred", `a\u009b31mred`},                       // C1 CSI
		{"a\u009d52;c;x\u009c", `a\u009d52;c;x\u009c`},           // C1 OSC ... ST
		{"line\nbreak\rcr", `line\u000abreak\u000dcr`},
		{"del\x7f", `del\u007f`},
		{"abc\u202edcba", `abc\u202edcba`}, // right-to-left override
		{"\u2066iso\u2069", `\u2066iso\u2069`},
		{"\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		{"sep\u2028\u2029", `sep\u2028\u2029`},
		{"\ufeffbom", `\ufeffbom`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"private\ue000", `private\ue000`},
		{"unassigned\U0002fbe2", `unassigned\U0002fbe2`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"bad \xff\xfe utf8 \xc2", `bad \xff\xfe utf8 \xc2`},
		{"lone C1 byte \x9b", `lone C1 byte \x9b`},
		{"nbsp\u00a0ok", "nbsp\u00a0ok"},
		{"e\u0301", "e\u0301"}, // combining mark stays
	} {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSanitizeLinesKeepsLineFeeds(t *testing.T) {
	in := "one\ntwo\r\n\x1b[31mthree\u202e"
	want := "one\ntwo\\u000d\n\\u001b[31mthree\\u202e"
	if got := SanitizeLines(in); got != want {
		t.Errorf("SanitizeLines(%q) = %q, want %q", in, got, want)
	}
}

func TestSanitizeCleanTextDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("a clean line with ünïcode\t", 100)
	if n := testing.AllocsPerRun(100, func() { _ = Sanitize(s) }); n != 0 {
		t.Errorf("Sanitize of clean text allocated %.0f times", n)
	}
}

func TestEscapeJSON(t *testing.T) {
	in := "\x1b]52;c;eA==\x07 \u009b \x7f \u202e \u2028 ok é"
	b, err := json.Marshal(map[string]string{"v": in})
	if err != nil {
		t.Fatal(err)
	}
	got := EscapeJSON(b)
	want := `{"v":"\u001b]52;c;eA==\u0007 \u009b \u007f \u202e \u2028 ok é"}`
	if string(got) != want {
		t.Errorf("EscapeJSON = %s, want %s", got, want)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["v"] != in {
		t.Errorf("EscapeJSON output decodes to %q, %v; want %q", back["v"], err, in)
	}
	indented := []byte("{\n\t\"a\": 1\r\n}")
	if got := EscapeJSON(indented); string(got) != string(indented) {
		t.Errorf("EscapeJSON changed white space between tokens: %q", got)
	}
}

// checkSafe fails when out holds a byte or rune that may act on a terminal.
func checkSafe(t *testing.T, out string, keepLF bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output is not UTF-8: %q", out)
	}
	for _, r := range out {
		if Unsafe(r) && !(keepLF && r == '\n') {
			t.Fatalf("output holds unsafe rune %U: %q", r, out)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]52;c;aGk=\x07", "\u009b1m", "a\u202eb", "\xff\n\r\t", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		one := Sanitize(s)
		checkSafe(t, one, false)
		if again := Sanitize(one); again != one {
			t.Fatalf("Sanitize is not idempotent: %q -> %q -> %q", s, one, again)
		}
		if strings.Contains(one, "\n") {
			t.Fatalf("Sanitize kept a line feed: %q", one)
		}
		lines := SanitizeLines(s)
		checkSafe(t, lines, true)
		if strings.Count(lines, "\n") != strings.Count(s, "\n") {
			t.Fatalf("SanitizeLines changed the number of lines: %q -> %q", s, lines)
		}
		clean := utf8.ValidString(s)
		for _, r := range s {
			clean = clean && !Unsafe(r)
		}
		if clean && one != s {
			t.Fatalf("Sanitize changed safe text: %q -> %q", s, one)
		}
	})
}

func FuzzEscapeJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]0;title\x07", "\u009b", "\u202e\u2066", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal([]any{s, map[string]string{s: s}, 1.5})
		if err != nil {
			t.Fatal(err)
		}
		out := EscapeJSON(b)
		for _, r := range string(out) {
			if Unsafe(r) {
				t.Fatalf("EscapeJSON left unsafe rune %U: %q", r, out)
			}
		}
		var want, got any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("EscapeJSON output is not JSON: %v: %q", err, out)
		}
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		if string(wb) != string(gb) {
			t.Fatalf("EscapeJSON changed the value: %s -> %s", wb, gb)
		}
	})
}
