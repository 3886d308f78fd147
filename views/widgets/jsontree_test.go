package widgets

import (
	"errors"
	"strings"
	"testing"

	"kvdeck/themes"
)

// TestJSONTreeFolds: the root opens on its children, each container
// folded with its count; → unfolds (then steps in), ← folds (then goes
// to the parent), enter toggles; keys and strings stay escaped.
func TestJSONTreeFolds(t *testing.T) {
	tr, err := ParseJSONTree([]byte(`{"a":{"b":[1,2,{"c":null}]},"s":"x\n\u001b[2Jy\u202e","e":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	st := themes.NewStyles(themes.Dark())
	show := func() string {
		var rows []string
		for i := range tr.vis {
			rows = append(rows, strings.TrimRight(tr.line(tr.vis[i]), " "))
		}
		return strings.Join(rows, "|")
	}
	if got, want := show(), `▾ { 3 keys|  ▸ "a": {…} 1 key|    "s": "x\n\u001b[2Jy\u202e"|    "e": []`; got != want {
		t.Fatalf("first view:\n%s\nwant\n%s", got, want)
	}
	tr.Move(1)
	tr.Unfold()
	tr.Unfold() // steps in
	tr.Unfold()
	if got, want := show(), `▾ { 3 keys|  ▾ "a": { 1 key|    ▾ "b": [ 3 items|        [0] 1|        [1] 2|      ▸ [2] {…} 1 key|    "s": "x\n\u001b[2Jy\u202e"|    "e": []`; got != want {
		t.Fatalf("unfolded:\n%s\nwant\n%s", got, want)
	}
	tr.Move(1)
	tr.Fold() // a scalar: to its parent
	if tr.Cursor() != 2 {
		t.Fatalf("← on [0] went to line %d, want its parent b (2)", tr.Cursor())
	}
	tr.Fold()
	tr.Toggle()
	tr.Toggle()
	if got := show(); !strings.Contains(got, `▸ "b": […] 3 items`) {
		t.Fatalf("b did not fold: %s", got)
	}
	for _, line := range tr.View(st, 20, 3) {
		if strings.ContainsRune(line, 0x1b) {
			t.Fatalf("a raw escape reached the view: %q", line)
		}
	}
}

// TestJSONTreeBounds: past JSONTreeMaxBytes the tree says so, by size;
// invalid JSON is an error.
func TestJSONTreeBounds(t *testing.T) {
	if _, err := ParseJSONTree([]byte(`"` + strings.Repeat("x", JSONTreeMaxBytes) + `"`)); !errors.Is(err, ErrTreeTooLarge) {
		t.Fatalf("an 8 MiB string: %v", err)
	}
	if _, err := ParseJSONTree([]byte(`{"a":1} 2`)); err == nil {
		t.Fatal("two values parsed")
	}
}
