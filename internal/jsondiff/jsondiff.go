// Package jsondiff compares two JSON documents structurally: the paths
// changed, added and removed between an old and a new value, each with
// its old and new JSON text. Both documents are first normalized as the
// store keeps values (codec.NormalizeJSON: JavaScript's JSON.stringify),
// so two values equal as JavaScript reads them have no difference, key
// order included. Arrays are compared by index: an element inserted at
// the front changes every index after it. The Activity tab's detail and
// `kvdeck diff --paths` both use it; it knows no terminal (callers escape
// paths and values for display).
package jsondiff

import (
	"bytes"
	"strconv"
	"strings"

	"kvdeck/codec"
)

// Kind says what happened at a path.
type Kind int

// The kinds of change, in the words kvdeck diff uses for rows.
const (
	Changed Kind = iota // in both, another value (or another type)
	Added               // in new only
	Removed             // in old only
)

func (k Kind) String() string {
	switch k {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Changed:
	}
	return "changed"
}

// Step is one step of a path: an object member's name or an array index.
type Step struct {
	// Name is the member's name as normalized JSON string text (quotes
	// included), when Index < 0.
	Name  string
	Index int
}

// Path is where a change is, from the document's root.
type Path []Step

// String is the path as jq writes it: "." for the root, .name for a name
// that is an identifier, .["other name"] otherwise (JSON string text),
// [2] for an index. It is not escaped for a terminal.
func (p Path) String() string {
	if len(p) == 0 {
		return "."
	}
	var b strings.Builder
	for _, s := range p {
		switch {
		case s.Index >= 0:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case identifier(s.Name):
			b.WriteString("." + s.Name[1:len(s.Name)-1])
		default:
			b.WriteString(".[" + s.Name + "]")
		}
	}
	return b.String()
}

// Steps is the path as jq's getpath takes it: names as strings, indexes
// as numbers (JSON text of an array).
func (p Path) Steps() []byte {
	b := []byte{'['}
	for i, s := range p {
		if i > 0 {
			b = append(b, ',')
		}
		if s.Index >= 0 {
			b = strconv.AppendInt(b, int64(s.Index), 10)
		} else {
			b = append(b, s.Name...)
		}
	}
	return append(b, ']')
}

// identifier reports whether quoted (JSON string text) names a member jq
// can write as .name: [A-Za-z_][A-Za-z0-9_]*.
func identifier(quoted string) bool {
	s := quoted[1 : len(quoted)-1]
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		if c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// Change is one difference: at Path, Old became New (normalized JSON
// text; nil on the side that has no value there).
type Change struct {
	Path     Path
	Kind     Kind
	Old, New []byte
}

// Result is what Diff found.
type Result struct {
	// Whole: a side is not JSON (or does not decode): there are no paths,
	// and Changes holds one Change at the root with both sides' bytes as
	// they are (unless they are the same bytes).
	Whole   bool
	Changes []Change // in document order, at most the limit given
	More    int      // changes past the limit, counted, not listed
	Same    int      // members and elements compared equal where the walk looked (folded)
}

// Diff compares old and new, listing at most limit changes (limit <= 0:
// all). It never fails: a side that is not JSON makes a Whole result.
func Diff(old, new []byte, limit int) Result {
	a, errA := codec.NormalizeJSON(old)
	b, errB := codec.NormalizeJSON(new)
	if errA != nil || errB != nil {
		r := Result{Whole: true}
		if !bytes.Equal(old, new) {
			r.Changes = []Change{{Kind: Changed, Old: old, New: new}}
		}
		return r
	}
	d := differ{limit: limit}
	if !bytes.Equal(a, b) {
		d.walk(nil, a, b)
	}
	return d.r
}

type differ struct {
	limit int
	r     Result
}

func (d *differ) add(p Path, k Kind, old, new []byte) {
	if d.limit > 0 && len(d.r.Changes) >= d.limit {
		d.r.More++
		return
	}
	d.r.Changes = append(d.r.Changes, Change{Path: append(Path(nil), p...), Kind: k, Old: old, New: new})
}

// walk compares two values (normalized JSON text) at path p. Each level
// is split as the walk reaches it (split), so memory stays at the levels
// on the path, whatever the documents' size.
func (d *differ) walk(p Path, a, b []byte) {
	switch {
	case bytes.Equal(a, b):
		d.r.Same++
	case a[0] == '{' && b[0] == '{':
		d.objects(p, a, b)
	case a[0] == '[' && b[0] == '[':
		ea, eb := split(a), split(b)
		for i := range max(len(ea), len(eb)) {
			q := append(p, Step{Index: i})
			switch {
			case i >= len(eb):
				d.add(q, Removed, ea[i].value, nil)
			case i >= len(ea):
				d.add(q, Added, nil, eb[i].value)
			default:
				d.walk(q, ea[i].value, eb[i].value)
			}
		}
	default:
		// Another scalar, or another type: normalized text is canonical,
		// so equal scalars are equal bytes; objects with their members in
		// another order are the one case of equal values in other bytes,
		// and both are objects then.
		d.add(p, Changed, a, b)
	}
}

// objects compares two objects member by member: old's members in its
// order (changed or removed), then the members only new has, in its
// order.
func (d *differ) objects(p Path, a, b []byte) {
	ma, mb := split(a), split(b)
	inB := make(map[string][]byte, len(mb))
	for _, m := range mb {
		inB[m.name] = m.value
	}
	inA := make(map[string]bool, len(ma))
	for _, m := range ma {
		inA[m.name] = true
		q := append(p, Step{Name: m.name, Index: -1})
		if v, ok := inB[m.name]; ok {
			d.walk(q, m.value, v)
		} else {
			d.add(q, Removed, m.value, nil)
		}
	}
	for _, m := range mb {
		if !inA[m.name] {
			d.add(append(p, Step{Name: m.name, Index: -1}), Added, nil, m.value)
		}
	}
}

// member is one element of an array or member of an object: its name
// (JSON string text; "" in an array) and value, slices of the document.
type member struct {
	name  string
	value []byte
}

// split cuts an array or object in normalized JSON text (no white space,
// names unique: codec.NormalizeJSON's output) into its elements or
// members.
func split(v []byte) []member {
	var out []member
	obj := v[0] == '{'
	for i := 1; i < len(v)-1; {
		var m member
		if obj {
			end := skip(v, i)
			m.name = string(v[i:end])
			i = end + 1 // the colon
		}
		end := skip(v, i)
		m.value = v[i:end]
		out = append(out, m)
		i = end + 1 // the comma, or the closing bracket
	}
	return out
}

// skip returns the index just past the value starting at i.
func skip(v []byte, i int) int {
	depth := 0
	for j := i; j < len(v); j++ {
		switch v[j] {
		case '"':
			for j++; j < len(v) && v[j] != '"'; j++ {
				if v[j] == '\\' {
					j++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j // the end of a scalar in its container
			}
			depth--
		case ',', ':':
			if depth == 0 {
				return j
			}
		}
		if depth == 0 && (v[j] == '"' || v[j] == '}' || v[j] == ']') {
			return j + 1
		}
	}
	return len(v)
}
