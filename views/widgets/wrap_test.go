package widgets

import (
	"reflect"
	"testing"
)

func TestWordWrap(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want []string
	}{
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
		if got := Wrap(c.in, c.w); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}
