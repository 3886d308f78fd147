package widgets

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// widthCase is a text laid out in w cells and the lines (or parts)
// wanted of it: the cases of Wrap, WrapHanging and FitMessage.
type widthCase struct {
	text string
	w    int
	want []string
}

func TestWordWrap(t *testing.T) {
	for _, c := range []widthCase{
		{"a bb ccc", 4, []string{"a bb", "ccc"}},
		{"due 2026-01-02T00:00:30Z (retry 0)", 24, []string{"due 2026-01-02T00:00:30Z", "(retry 0)"}}, // no split at dashes
		{"  ⚠ 2 missing: Jan 1", 10, []string{"  ⚠ 2", "missing:", "Jan 1"}},                          // the indent stays
		{"abcdefghij xy", 4, []string{"abcd", "efgh", "ij", "xy"}},
		{"x abcdefghij", 4, []string{"x", "abcd", "efgh", "ij"}},
		{"", 5, []string{""}},
		{"key [\"dwk-lease\", \"a-b-c\"]", 14, []string{"key", `["dwk-lease",`, `"a-b-c"]`}}, // hyphens stay
		{"one\ntwo three", 5, []string{"one", "two", "three"}},                               // a newline breaks
		{"a  b   c", 8, []string{"a  b   c"}},                                                // gaps are kept
		{"a  b   c", 4, []string{"a  b", "c"}},
		{"界界", 1, []string{"界", "界"}}, // wider than the line: no endless loop
	} {
		if got := Wrap(c.text, c.w); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.text, c.w, got, c.want)
		}
	}
}

// TestWrapHanging: an indented field wraps under its value, an indented
// line under its indent, a plain line at the margin; no line is wider
// than w.
func TestWrapHanging(t *testing.T) {
	for _, c := range []widthCase{
		{"  value   (no row) → {\"holder\":\"3fd7081a\"}", 32, []string{"  value   (no row) →", "          {\"holder\":\"3fd7081a\"}"}},
		{"  one two three four", 10, []string{"  one two", "  three", "  four"}},
		{"one two three", 8, []string{"one two", "three"}},
		{"short", 20, []string{"short"}},
	} {
		got := WrapHanging(c.text, c.w)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("WrapHanging(%q, %d) = %q, want %q", c.text, c.w, got, c.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > c.w {
				t.Errorf("line %q wider than %d", l, c.w)
			}
		}
	}
}
