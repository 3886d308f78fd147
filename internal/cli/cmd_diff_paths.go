package cli

import (
	"bytes"
	"encoding/json"
	"fmt"

	"kvdeck/internal/jsondiff"
)

// diffPath is one changed JSON path of a changed row (--paths, -o json):
// its path as jq writes it, the same as jq's getpath takes it, what
// happened there, and the value on each side that has one.
type diffPath struct {
	Path  string          `json:"path"`
	Steps json.RawMessage `json:"steps"`
	Diff  string          `json:"diff"`
	A     json.RawMessage `json:"a,omitempty"`
	B     json.RawMessage `json:"b,omitempty"`
}

// paths compares a changed row's two values by JSON path (jsondiff):
// it fills out's "paths" (null when a side is not JSON) and returns the
// text lines, one a path (values shortened as the row's are), then one
// counting the paths past --max-paths.
func (c *DiffCmd) paths(out *diffJSON, a, b *diffRow) []string {
	if !a.valid || !b.valid || a.valueNull || b.valueNull {
		out.Paths = json.RawMessage("null")
		return []string{"(a value is not JSON: no paths)"}
	}
	d := jsondiff.Diff(a.value, b.value, c.MaxPaths)
	list := make([]diffPath, 0, len(d.Changes))
	var lines []string
	for _, ch := range d.Changes {
		list = append(list, diffPath{Path: ch.Path.String(), Steps: ch.Path.Steps(), Diff: ch.Kind.String(), A: ch.Old, B: ch.New})
		switch ch.Kind {
		case jsondiff.Added:
			lines = append(lines, fmt.Sprintf("+ %s  %s", ch.Path, shortValue(string(ch.New))))
		case jsondiff.Removed:
			lines = append(lines, fmt.Sprintf("- %s  %s", ch.Path, shortValue(string(ch.Old))))
		case jsondiff.Changed:
			lines = append(lines, fmt.Sprintf("~ %s  %s  ->  %s", ch.Path, shortValue(string(ch.Old)), shortValue(string(ch.New))))
		}
	}
	out.Paths, _ = json.Marshal(list)
	out.MorePaths = d.More
	switch {
	case d.More > 0:
		lines = append(lines, fmt.Sprintf("… %d more path(s) (--max-paths)", d.More))
	case len(list) == 0 && bytes.Equal(a.value, b.value):
		lines = append(lines, "(no path changed: the same value; another expiry or stamp)")
	case len(list) == 0:
		// The row comparison compares the stored bytes: the same members
		// in another order are another value to it, and no path.
		lines = append(lines, "(no path changed: the same value in another member order)")
	}
	return lines
}
