package widgets

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"kvdeck/internal/usertext"
	"kvdeck/themes"
)

// plainLines renders lines without styles, without the white space
// json.Indent keeps around a value.
func plainLines(ls []Line) string {
	var out []string
	for _, l := range ls {
		out = append(out, strings.TrimRight(l.Render(true), " \t\r"))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// TestJSONPrefixLinesMatchesJSONLines: on a whole value the tolerant
// indenter prints what JSONLines prints.
func TestJSONPrefixLinesMatchesJSONLines(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	for _, v := range []string{`{"a":[1,{"b":"x,y:{z}"},[],{}],"c":null,"d":"\"]"}`, `[]`, `"s"`, `[[[]]]`, `{"k":{"k":{"k":[1.5e3,-0,true]}}}`} {
		whole, _ := JSONLines(st, []byte(v))
		prefix := JSONPrefixLines(st, []byte(v), 1000)
		if plainLines(whole) != plainLines(prefix) {
			t.Errorf("%s:\nJSONLines\n%s\nJSONPrefixLines\n%s", v, plainLines(whole), plainLines(prefix))
		}
	}
	if got := len(JSONPrefixLines(st, []byte(`[1,2,3,4,5,6]`), 3)); got != 3 {
		t.Errorf("maxLines 3: %d lines", got)
	}
	// A raw line feed inside a string (not JSON: a value cut from a row
	// another program wrote) stays on its line, as \n.
	if got := plainLines(JSONPrefixLines(st, []byte("[\"a\nb\\\",\",1]"), 10)); !strings.Contains(got, `"a\nb\",",`) {
		t.Errorf("a raw line feed in a string:\n%s", got)
	}
}

// FuzzJSONPrefixLines: any prefix of any bytes prints without panicking,
// within maxLines, and nothing in it acts on a terminal.
func FuzzJSONPrefixLines(f *testing.F) {
	lipgloss.SetColorProfile(termenv.Ascii)
	for _, s := range []string{`{"a":[1,{"b":"x"}]}`, "{\"a\":\"\x1b]52;c;eA==\x07", `[1,2,`, "\xff\xfe", `{"a`, "\u202e{}"} {
		f.Add([]byte(s), 5)
	}
	st := themes.NewStyles(themes.Dark())
	f.Fuzz(func(t *testing.T, b []byte, maxLines int) {
		maxLines = max(1, maxLines%50)
		lines := JSONPrefixLines(st, b, maxLines)
		if len(lines) > maxLines {
			t.Fatalf("%d lines for maxLines %d", len(lines), maxLines)
		}
		for _, l := range lines {
			for _, r := range l.Render(true) {
				if usertext.Unsafe(r) {
					t.Fatalf("%q prints %U raw", b, r)
				}
			}
		}
		// json.Indent keeps white space after the value; compare without
		if json.Valid(b) && len(bytes.TrimRight(b, " \t\r\n")) == len(b) {
			whole, _ := JSONLines(st, b)
			if all := JSONPrefixLines(st, b, 1<<20); plainLines(all) != plainLines(whole) {
				t.Fatalf("%q: prefix printer differs from JSONLines:\n%s\n--\n%s", b, plainLines(all), plainLines(whole))
			}
		}
	})
}
