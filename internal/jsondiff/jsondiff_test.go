package jsondiff

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"kvdeck/codec"
)

// show writes a result as one line per change: kind path old new.
func show(r Result) string {
	var b strings.Builder
	for _, c := range r.Changes {
		fmt.Fprintf(&b, "%s %s %s %s\n", c.Kind, c.Path, c.Old, c.New)
	}
	if r.More > 0 {
		fmt.Fprintf(&b, "%d more\n", r.More)
	}
	return b.String()
}

// TestDiff: changed, added and removed paths with their old and new
// values, in document order; arrays by index; key order and number
// spelling make no difference (values are compared normalized); a side
// that is not JSON makes one whole change.
func TestDiff(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"same", `{"a":1}`, `{"a":1}`, ""},
		{"key order and spelling", `{"a":1.0,"b":[1,2]}`, ` { "b" : [1, 2e0], "a" : 1 }`, ""},
		{"scalar root", `1`, `2`, "changed . 1 2\n"},
		{"type", `{"a":{"x":1}}`, `{"a":[1]}`, `changed .a {"x":1} [1]` + "\n"},
		{"members", `{"plan":"gold","seats":12,"tags":["a"],"gone":true}`, `{"plan":"silver","seats":12,"tags":["a","b"],"new":null}`,
			"changed .plan \"gold\" \"silver\"\nadded .tags[1]  \"b\"\nremoved .gone true \nadded .new  null\n"},
		{"arrays by index", `[1,2,3]`, `[0,1,2,3]`, "changed [0] 1 0\nchanged [1] 2 1\nchanged [2] 3 2\nadded [3]  3\n"},
		{"shorter", `[1,2,3]`, `[1]`, "removed [1] 2 \nremoved [2] 3 \n"},
		{"deep", `{"a":{"b":[{"c":1}]}}`, `{"a":{"b":[{"c":2}]}}`, "changed .a.b[0].c 1 2\n"},
		{"odd names", `{"a b":1,"":1,"1x":1,"é":1}`, `{"a b":2,"":2,"1x":2,"é":2}`,
			"changed .[\"a b\"] 1 2\nchanged .[\"\"] 1 2\nchanged .[\"1x\"] 1 2\nchanged .[\"é\"] 1 2\n"},
		{"strings with brackets", `{"a":"x\"]}{,","b":1}`, `{"a":"x\"]}{,","b":2}`, "changed .b 1 2\n"},
		{"not JSON", `{"a":1}`, `not json`, "changed . {\"a\":1} not json\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Diff([]byte(tc.old), []byte(tc.new), 0)
			if got := show(r); got != tc.want {
				t.Errorf("Diff(%s, %s):\n got %q\nwant %q", tc.old, tc.new, got, tc.want)
			}
			if r.Whole != (tc.name == "not JSON") {
				t.Errorf("Whole = %v", r.Whole)
			}
		})
	}
}

// TestDiffLimit: past the limit changes are counted, not listed.
func TestDiffLimit(t *testing.T) {
	var a, b []string
	for i := range 500 {
		a, b = append(a, fmt.Sprint(i)), append(b, fmt.Sprint(i+1))
	}
	r := Diff([]byte("["+strings.Join(a, ",")+"]"), []byte("["+strings.Join(b, ",")+"]"), 100)
	if len(r.Changes) != 100 || r.More != 400 || r.Changes[99].Path.String() != "[99]" {
		t.Errorf("%d changes, %d more, last %s", len(r.Changes), r.More, r.Changes[len(r.Changes)-1].Path)
	}
}

// TestSteps: a path as jq's getpath takes it.
func TestSteps(t *testing.T) {
	p := Path{{Name: `"a"`, Index: -1}, {Index: 2}, {Name: `"x y"`, Index: -1}}
	if got := string(p.Steps()); got != `["a",2,"x y"]` {
		t.Errorf("Steps %s", got)
	}
	if got := p.String(); got != `.a[2].["x y"]` {
		t.Errorf("String %s", got)
	}
}

// tree is a decoded document for the tests: a scalar's text, or members
// (names as JSON text) or elements.
type tree struct {
	scalar  []byte
	obj     bool
	names   []string
	kids    []*tree
	isArray bool
}

func build(v []byte) *tree {
	if v[0] != '{' && v[0] != '[' {
		return &tree{scalar: v}
	}
	t := &tree{obj: v[0] == '{', isArray: v[0] == '['}
	for _, m := range split(v) {
		t.names = append(t.names, m.name)
		t.kids = append(t.kids, build(m.value))
	}
	return t
}

// canon writes t with object members sorted by name.
func (t *tree) canon() string {
	if t.scalar != nil {
		return string(t.scalar)
	}
	var parts []string
	for i, k := range t.kids {
		if t.obj {
			parts = append(parts, t.names[i]+":"+k.canon())
		} else {
			parts = append(parts, k.canon())
		}
	}
	if t.obj {
		sort.Strings(parts)
		return "{" + strings.Join(parts, ",") + "}"
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// at returns the child of t a step names, or nil.
func (t *tree) at(s Step) (*tree, int) {
	for i, k := range t.kids {
		if (s.Index >= 0 && t.isArray && i == s.Index) || (s.Index < 0 && t.obj && t.names[i] == s.Name) {
			return k, i
		}
	}
	return nil, -1
}

// apply makes one change in t (the root's replacement is returned).
func apply(t *tree, c Change) (*tree, error) {
	if len(c.Path) == 0 {
		return build(c.New), nil
	}
	parent := t
	for _, s := range c.Path[:len(c.Path)-1] {
		if parent, _ = parent.at(s); parent == nil {
			return nil, fmt.Errorf("%s: no parent", c.Path)
		}
	}
	last := c.Path[len(c.Path)-1]
	old, i := parent.at(last)
	switch c.Kind {
	case Added:
		if old != nil || (last.Index >= 0 && last.Index != len(parent.kids)) {
			return nil, fmt.Errorf("%s: added where something is", c.Path)
		}
		parent.names, parent.kids = append(parent.names, last.Name), append(parent.kids, build(c.New))
	case Removed:
		if old == nil {
			return nil, fmt.Errorf("%s: removed where nothing is", c.Path)
		}
		parent.kids[i] = nil // dropped below, so later indexes stay put
	case Changed:
		if old == nil || old.canon() != build(c.Old).canon() {
			return nil, fmt.Errorf("%s: old value not there", c.Path)
		}
		parent.kids[i] = build(c.New)
	}
	return t, nil
}

func prune(t *tree) {
	var names []string
	var kids []*tree
	for i, k := range t.kids {
		if k != nil {
			prune(k)
			names, kids = append(names, t.names[i]), append(kids, k)
		}
	}
	t.names, t.kids = names, kids
}

// FuzzJSONDiff: Diff never panics; a document against itself has no
// change; otherwise the changes, applied to old at their paths (each
// old value found where the path says), give new.
func FuzzJSONDiff(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":1}`, `{"a":2}`}, {`[1,2,3]`, `[1]`}, {`{"a":{"b":[1,{"c":"x"}]}}`, `{"a":{"b":[1,{"c":"y","d":[]}]},"e":"\u2028"}`},
		{`"x"`, `{"a":[]}`}, {`{"a\"b":"]}"}`, `{"a\"b":"]}x"}`}, {`{"a":1,"a":2}`, `{"a":3}`}, {`nope`, `[]`}, {`{"\ud800":1}`, `{"\ud801":1}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, old, new []byte) {
		if r := Diff(old, old, 0); len(r.Changes) != 0 || r.More != 0 {
			t.Fatalf("Diff(a, a) = %s", show(r))
		}
		r := Diff(old, new, 0)
		a, errA := codec.NormalizeJSON(old)
		b, errB := codec.NormalizeJSON(new)
		if errA != nil || errB != nil {
			if !r.Whole || (len(r.Changes) == 0) != bytes.Equal(old, new) {
				t.Fatalf("not JSON: %+v", r)
			}
			return
		}
		doc := build(a)
		for _, c := range r.Changes {
			var err error
			if doc, err = apply(doc, c); err != nil {
				t.Fatalf("%v\n%s", err, show(r))
			}
			_ = c.Path.String()
		}
		prune(doc)
		if got, want := doc.canon(), build(b).canon(); got != want {
			t.Fatalf("old with the changes applied:\n%s\nnew:\n%s\nchanges:\n%s", got, want, show(r))
		}
	})
}

// benchDocs are two documents of about size bytes: n records, one
// member changed in one of every ten.
func benchDocs(size int) (a, b []byte) {
	var ra, rb []string
	for i := 0; len(strings.Join(ra, ",")) < size; i++ {
		r := fmt.Sprintf(`{"id":%d,"name":"user %d","plan":"gold","tags":["a","b"]}`, i, i)
		ra = append(ra, r)
		if i%10 == 0 {
			r = strings.Replace(r, "gold", "silver", 1)
		}
		rb = append(rb, r)
	}
	return []byte("[" + strings.Join(ra, ",") + "]"), []byte("[" + strings.Join(rb, ",") + "]")
}

// BenchmarkDiff: the diff of two 64 KiB and two 1 MiB documents (the
// TUI's bounds), beside codec.NormalizeJSON of both alone (the floor:
// every diff normalizes both sides first).
func BenchmarkDiff(b *testing.B) {
	for _, size := range []int{64 << 10, 1 << 20} {
		x, y := benchDocs(size)
		b.Run(fmt.Sprintf("normalize/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(x) + len(y)))
			for range b.N {
				_, _ = codec.NormalizeJSON(x)
				_, _ = codec.NormalizeJSON(y)
			}
		})
		b.Run(fmt.Sprintf("diff/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(x) + len(y)))
			for range b.N {
				Diff(x, y, 200)
			}
		})
	}
}
