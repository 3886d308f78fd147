package widgets

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/themes"
)

// diffCases are the pairs TestDiffLinesGolden draws.
var diffCases = []struct{ name, old, new string }{
	{"members", `{"plan":"gold","seats":12,"owner":"ops@example.com","notes":"renewed for another year after the review of March","tags":["a","b","c"]}`,
		`{"plan":"silver","seats":3,"owner":"ops@example.com","notes":"downgraded at the end of the trial period","tags":["a","b"],"since":"2026-01-02"}`},
	{"deep", `{"spec":{"replicas":[{"name":"eu-west","weight":1},{"name":"us-east","weight":2}]}}`, `{"spec":{"replicas":[{"name":"eu-west","weight":5},{"name":"us-east","weight":2}]}}`},
	{"scalar", `41`, `42`},
	{"same value", `{"a":1,"b":2}`, `{"b":2,"a":1.0}`},
	{"not JSON", `{"a":1}`, "plain text\nwith a line feed"},
	{"hostile", `{"n\u001b]0;x\u0007":"a","k":"\u202eevil"}`, `{"n\u001b]0;x\u0007":"b\u001b[2J","k":"\u202egood"}`},
}

// TestDiffLinesGolden: each case drawn at 80 and 40 cells in 6, 2 and 1
// lines (the NO_COLOR screen): paths with their values, the fold line
// counting what is left out, one line of paths when only one is given;
// nothing from the values reaches the screen raw.
func TestDiffLinesGolden(t *testing.T) {
	st := themes.NewStyles(themes.Mono())
	var b strings.Builder
	for _, c := range diffCases {
		d := NewValueDiff([]byte(c.old), []byte(c.new))
		for _, size := range [][2]int{{80, 6}, {40, 2}, {40, 1}} {
			fmt.Fprintf(&b, "== %s at %dx%d\n", c.name, size[0], size[1])
			lines := DiffLines(st, d, size[0], size[1])
			if len(lines) > size[1] {
				t.Errorf("%s: %d lines in %d", c.name, len(lines), size[1])
			}
			for _, l := range lines {
				text := l.Render(true)
				if w := ansi.StringWidth(text); w > size[0] {
					t.Errorf("%s: %d cells in %d: %q", c.name, w, size[0], text)
				}
				if strings.ContainsAny(text, "\x1b\x07\u202e") {
					t.Errorf("%s: raw control reaches the screen: %q", c.name, text)
				}
				b.WriteString(text + "\n")
			}
		}
	}
	golden.RequireEqual(t, b.String())
}

// TestDiffLinesBounded: a large document lists at most DiffPathCap paths
// and counts the rest; a side over DiffInputCap is not walked.
func TestDiffLinesBounded(t *testing.T) {
	var a, b []string
	for i := range 1000 {
		a, b = append(a, fmt.Sprint(i)), append(b, fmt.Sprint(-i-1))
	}
	d := NewValueDiff([]byte("["+strings.Join(a, ",")+"]"), []byte("["+strings.Join(b, ",")+"]"))
	if len(d.Changes) != DiffPathCap || d.More != 1000-DiffPathCap {
		t.Fatalf("%d paths, %d more", len(d.Changes), d.More)
	}
	lines := DiffLines(themes.NewStyles(themes.Mono()), d, 80, 4)
	if last := lines[len(lines)-1].Render(true); !strings.Contains(last, "… 997 more changed path(s) · arrays by index") {
		t.Errorf("fold line %q", last)
	}
	big := []byte(`"` + strings.Repeat("x", DiffInputCap) + `"`)
	if d := NewValueDiff(big, []byte(`1`)); !d.TooLarge || !d.Whole {
		t.Errorf("a side over the cap was walked: %+v", d.Result.Whole)
	}
}
