package widgets

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/themes"
)

// renderedLines renders lines without styles, one string each.
func renderedLines(ls []Line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Render(true)
	}
	return out
}

// keyLine is the entry pane's key line: a label, then the key in spans.
func keyLine(parts ...string) Line {
	k := make(codec.Key, len(parts))
	for i, p := range parts {
		k[i] = codec.String(p)
	}
	return append(Line{{"key     ", lipgloss.Style{}}}, KeySpans(themes.NewStyles(themes.Dark()), k)...)
}

func TestLineWrap(t *testing.T) {
	lease := keyLine("dwk_lease", "Checkout", "0123456789abcdef0123456789abcdef")
	idKey := keyLine("0123456789abcdef0123456789abcdef0123456")
	for _, c := range []struct {
		name      string
		l         Line
		w, indent int
		want      []string
	}{
		{"fits", Line{{"abc", lipgloss.Style{}}}, 3, 0, []string{"abc"}},
		{"cut", Line{{"abcdef", lipgloss.Style{}}}, 4, 2, []string{"abcd", "  ef"}},
		{"empty", Line{}, 5, 0, []string{""}},
		{"spans joined", Line{{"ab", lipgloss.Style{}}, {"cd", lipgloss.Style{}}}, 3, 1, []string{"abc", " d"}},
		// A key that does not fit breaks between its parts, after ", ",
		// when that keeps at least half the line: the id stays whole.
		{"between parts", lease, 68, 8, []string{
			`key     ["dwk_lease", "Checkout", `,
			`        "0123456789abcdef0123456789abcdef"]`,
		}},
		{"between parts, narrower", lease, 66, 8, []string{
			`key     ["dwk_lease", "Checkout", `,
			`        "0123456789abcdef0123456789abcdef"]`,
		}},
		// A single part too long for its line is cut where it must; its
		// closing "]" takes the id's last character and its quote along,
		// not a lone "]".
		{"closing bracket", idKey, 50, 8, []string{
			`key     ["0123456789abcdef0123456789abcdef012345`,
			`        6"]`,
		}},
		{"closing quote and bracket", idKey, 49, 8, []string{
			`key     ["0123456789abcdef0123456789abcdef012345`,
			`        6"]`,
		}},
		{"plain cut", idKey, 48, 8, []string{
			`key     ["0123456789abcdef0123456789abcdef012345`,
			`        6"]`,
		}},
		// Prose breaks between words.
		{"words", Line{{"what    deleted · lease · last seen (a delete issues no stamp)", lipgloss.Style{}}}, 40, 8, []string{
			"what    deleted · lease · last seen (a ",
			"        delete issues no stamp)",
		}},
		{"whole key fits", lease, 69, 8, []string{
			`key     ["dwk_lease", "Checkout", "0123456789abcdef0123456789abcdef"]`,
		}},
		// A comma goes with the part it ends (no space to break at that
		// keeps half the line).
		{"comma", keyLine("dwk_lease", "Checkout"), 20, 2, []string{
			`key     ["dwk_leas`,
			`  e", "Checkout"]`,
		}},
		{"comma after quote", keyLine("dwk_lease", "Checkout"), 19, 2, []string{
			`key     ["dwk_leas`,
			`  e", "Checkout"]`,
		}},
		{"comma fits", keyLine("dwk_lease", "Checkout"), 21, 2, []string{
			`key     ["dwk_lease",`,
			`   "Checkout"]`,
		}},
		{"only closers", Line{{"a]]]]", lipgloss.Style{}}}, 3, 0, []string{"a]]", "]]"}},
		{"wide", Line{{"界界", lipgloss.Style{}}}, 1, 0, []string{"界", "界"}},
	} {
		got := renderedLines(c.l.Wrap(c.w, c.indent))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Wrap(%d, %d) =\n%q\nwant\n%q", c.name, c.w, c.indent, got, c.want)
		}
	}
}

// TestLineWrapKeepsStyles: a span cut in two keeps its style on both
// lines, the character moved along with a "]" too.
func TestLineWrapKeepsStyles(t *testing.T) {
	a, b := lipgloss.NewStyle().Bold(true), lipgloss.NewStyle().Italic(true)
	got := Line{{"abcd", a}, {"]", b}}.Wrap(4, 0)
	want := []Line{{{"abc", a}}, {{"d", a}, {"]", b}}}
	if !reflect.DeepEqual(renderedLines(got), renderedLines(want)) || len(got) != 2 || len(got[1]) != 2 ||
		!got[0][0].Style.GetBold() || !got[1][0].Style.GetBold() || !got[1][1].Style.GetItalic() {
		t.Errorf("Wrap = %q (%d spans on line 2)", renderedLines(got), len(got[len(got)-1]))
	}
}

// FuzzLineWrap: no line is wider than asked (unless it holds one
// character wider than the room), and no text is lost or added.
func FuzzLineWrap(f *testing.F) {
	f.Add(`["dwk_lease", "Checkout", "0123456789abcdef"]`, "]", 20, 4)
	f.Add("界界a]", ",", 3, 1)
	f.Add("☺", "\ufe0f]", 2, 0)
	f.Add("", "", 5, 0)
	f.Fuzz(func(t *testing.T, a, b string, w, indent int) {
		w, indent = w%80, indent%20
		if w < 0 || indent < 0 {
			return
		}
		l := Line{{a, lipgloss.Style{}}, {b, lipgloss.Style{}}}
		got := l.Wrap(w, indent)
		if w <= indent {
			if len(got) != 1 {
				t.Fatalf("Wrap(%d, %d) with no room cut the line: %q", w, indent, renderedLines(got))
			}
			return
		}
		var all strings.Builder
		for i, line := range got {
			text := line.Render(true)
			if i > 0 {
				if !strings.HasPrefix(text, strings.Repeat(" ", indent)) {
					t.Fatalf("line %d lacks the indent: %q", i, text)
				}
				text = text[indent:]
			}
			all.WriteString(text)
			if lw := ansi.StringWidth(line.Render(true)); lw > w && len(clustersOf(Line{{text, lipgloss.Style{}}})) > 1 {
				t.Fatalf("line %d is %d cells wide, asked %d: %q", i, lw, w, renderedLines(got))
			}
			if i > 0 && text == "" {
				t.Fatalf("an empty continuation line: %q", renderedLines(got))
			}
		}
		if all.String() != a+b {
			t.Fatalf("the text changed: %q -> %q", a+b, renderedLines(got))
		}
	})
}
