package widgets

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/internal/jsondiff"
	"kvdeck/themes"
)

// Bounds of a diff the TUI draws: a side larger than DiffInputCap (what
// the TUI shows of a value, ValueCap) is not walked (it shows whole,
// cut), and at most DiffPathCap paths are kept (the rest are counted).
// The diff runs on the UI goroutine, once per event drawn: two 64 KiB
// documents took 16 to 27 ms on the shared 2-core machine at a load of
// 16, two 1 MiB ones 0.59 s, about what normalizing both sides alone
// takes (BenchmarkDiff in internal/jsondiff).
const (
	DiffInputCap = ValueCap
	DiffPathCap  = 200
)

// ValueDiff is the structural diff of an old and a new value, bounded
// for the screen: compute it once per pair (it normalizes both sides)
// and draw it with DiffLines at any size.
type ValueDiff struct {
	jsondiff.Result
	TooLarge bool // a side is over DiffInputCap: shown whole, not walked
}

// NewValueDiff compares old and new (jsondiff.Diff) within the bounds.
func NewValueDiff(old, new []byte) ValueDiff {
	if len(old) > DiffInputCap || len(new) > DiffInputCap {
		return ValueDiff{Result: jsondiff.Result{Whole: true, Changes: []jsondiff.Change{{Old: old, New: new}}}, TooLarge: true}
	}
	return ValueDiff{Result: jsondiff.Diff(old, new, DiffPathCap)}
}

// DiffLines draws d in at most n lines of w cells, one changed path a
// line: its mark (~ changed, + added, - removed), the path (jq's syntax,
// the parent muted), the old value → the new one, each cut to its share
// of the line. What does not fit is folded into a last line counting the
// paths left out and the unchanged members the walk passed; a value that
// is not JSON (or too large) is one line, old → new. Everything from the
// values is escaped (Sanitize).
func DiffLines(st themes.Styles, d ValueDiff, w, n int) []Line {
	if n <= 0 || w <= 0 {
		return nil
	}
	cs := d.Changes
	total := len(cs) + d.More
	switch {
	case d.Whole && len(cs) == 0:
		return []Line{{{"same bytes", st.Muted}}}
	case d.Whole:
		why := "not JSON"
		if d.TooLarge {
			why = fmt.Sprintf("over %s: not compared by path", BytesText(DiffInputCap))
		}
		head := "whole value (" + why + "): "
		return []Line{diffValues(st, Line{{head, st.Muted}}, cs[0], w)}
	case total == 0:
		return []Line{{{"same value (the write changed no path)", st.Muted}}}
	case n == 1 && total > 1:
		return []Line{pathList(st, d, w)}
	}
	show := min(len(cs), n)
	if total > show {
		show = n - 1 // the last line says what is left out
	}
	pathW := max(min(diffPathWidth(cs[:show]), w*2/5), 1)
	out := make([]Line, 0, n)
	for _, c := range cs[:show] {
		out = append(out, changeLine(st, c, pathW, w))
	}
	if fold := foldLine(st, d, total-show, w); len(out) < n && fold != nil {
		out = append(out, fold)
	}
	return out
}

// changeLine is one changed path: mark, path in pathW cells, values.
func changeLine(st themes.Styles, c jsondiff.Change, pathW, w int) Line {
	mark := map[jsondiff.Kind]Span{jsondiff.Changed: {"~ ", st.Warn}, jsondiff.Added: {"+ ", st.OK}, jsondiff.Removed: {"- ", st.Error}}[c.Kind]
	l := append(Line{mark}, pathSpans(st, c.Path, pathW)...)
	l = append(l, Span{strings.Repeat(" ", max(pathW-ansi.StringWidth(l[1:].Render(true)), 0)+2), st.Muted})
	return diffValues(st, l, c, w)
}

// diffValues ends l with c's values in what is left of w cells: old →
// new (old takes at most two fifths), or the one side there is.
func diffValues(st themes.Styles, l Line, c jsondiff.Change, w int) Line {
	room := max(w-ansi.StringWidth(l.Render(true)), 1)
	switch {
	case c.Old == nil:
		return append(l, Span{shortJSON(c.New, room), st.Text})
	case c.New == nil:
		return append(l, Span{shortJSON(c.Old, room), st.Muted})
	}
	old := shortJSON(c.Old, max((room-3)*2/5, 1))
	return append(l, Span{old, st.Muted}, Span{" → ", st.Muted}, Span{shortJSON(c.New, max(room-3-ansi.StringWidth(old), 1)), st.Text})
}

// pathSpans is p in at most w cells: the parent muted, the last step as a
// key; a long path keeps its end (where the change is).
func pathSpans(st themes.Styles, p jsondiff.Path, w int) Line {
	if len(p) == 0 {
		return Line{{".", st.JSONKey}}
	}
	parent, last := "", Sanitize(p[len(p)-1:].String())
	if len(p) > 1 {
		parent = Sanitize(p[:len(p)-1].String())
	}
	lw := ansi.StringWidth(last)
	switch pw := ansi.StringWidth(parent); {
	case pw+lw <= w:
	case lw+1 >= w:
		return Line{{ansi.Truncate(last, w, "…"), st.JSONKey}}
	default:
		parent = "…" + ansi.TruncateLeft(parent, pw+lw+1-w, "")
	}
	return Line{{parent, st.Muted}, {last, st.JSONKey}}
}

// diffPathWidth is the widest path of cs, in cells.
func diffPathWidth(cs []jsondiff.Change) int {
	w := 0
	for _, c := range cs {
		w = max(w, ansi.StringWidth(Sanitize(c.Path.String())))
	}
	return w
}

// foldLine says what DiffLines left out: left paths not shown, the
// unchanged members folded, and that arrays compare by index (nil when
// there is nothing to say).
func foldLine(st themes.Styles, d ValueDiff, left, w int) Line {
	var parts []string
	if left > 0 {
		parts = append(parts, fmt.Sprintf("… %d more changed path(s)", left))
	}
	if d.Same > 0 {
		parts = append(parts, fmt.Sprintf("%d unchanged folded", d.Same))
	}
	if byIndex(d.Changes) {
		parts = append(parts, "arrays by index")
	}
	if len(parts) == 0 {
		return nil
	}
	return Line{{ClipText(strings.Join(parts, " · "), w), st.Muted}}
}

// pathList is every path on one line, for a diff given a single line.
func pathList(st themes.Styles, d ValueDiff, w int) Line {
	paths := make([]string, 0, len(d.Changes))
	for _, c := range d.Changes {
		paths = append(paths, map[jsondiff.Kind]string{jsondiff.Changed: "~", jsondiff.Added: "+", jsondiff.Removed: "-"}[c.Kind]+c.Path.String())
	}
	return Line{{ClipText(fmt.Sprintf("%d paths: %s", len(d.Changes)+d.More, strings.Join(paths, " ")), w), st.Text}}
}

// byIndex reports whether a change is inside an array.
func byIndex(cs []jsondiff.Change) bool {
	for _, c := range cs {
		for _, s := range c.Path {
			if s.Index >= 0 {
				return true
			}
		}
	}
	return false
}

// shortJSON is JSON text on one line cut to n cells, escaped; only its
// head is read, so a large value costs no more than a short one.
func shortJSON(v []byte, n int) string {
	if limit := 16*max(n, 1) + 64; len(v) > limit {
		v = v[:limit]
	}
	return ClipText(string(v), n)
}
