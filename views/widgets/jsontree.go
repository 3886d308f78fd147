package widgets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"kvdeck/themes"
)

// JSONTree is a JSON value as a tree whose objects and arrays fold and
// unfold, one node a line (large objects). The value is
// parsed once (ParseJSONTree, off the UI goroutine for a large one); a
// fold only recounts the visible lines. Keys and strings are shown as
// JSON text, sanitized: nothing stored reaches the terminal raw.
type JSONTree struct {
	nodes []treeNode // in document order
	vis   []int      // the visible nodes
	cur   int        // index into vis
	off   int        // first visible line shown
}

// treeNode is one value of the tree.
type treeNode struct {
	depth  int
	parent int    // -1 for the root
	label  string // `"key": ` or `[3] `, sanitized
	text   string // a scalar's JSON text, sanitized; "" for a container
	open   byte   // '{' or '[' for a container, 0 for a scalar
	kids   int
	end    int // the node after its subtree
	folded bool
}

// JSONTreeMaxBytes and JSONTreeMaxNodes bound what the tree parses: an 8
// MiB value of small numbers is a million nodes (~100 MB); past either,
// the reader's text view and | read the value whole.
const (
	JSONTreeMaxBytes = 8 << 20
	JSONTreeMaxNodes = 1 << 20
)

// ErrTreeTooLarge: the value is past the tree's bounds.
var ErrTreeTooLarge = errors.New("too large for the tree")

// ParseJSONTree parses value; the root is unfolded, every other container
// folded.
func ParseJSONTree(value []byte) (*JSONTree, error) {
	if len(value) > JSONTreeMaxBytes {
		return nil, fmt.Errorf("%w: %s (the tree parses up to %s)", ErrTreeTooLarge, BytesText(int64(len(value))), BytesText(JSONTreeMaxBytes))
	}
	d := json.NewDecoder(bytes.NewReader(value))
	d.UseNumber()
	t := &JSONTree{}
	if err := t.parse(d, -1, 0, ""); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("not one JSON value")
	}
	for i := 1; i < len(t.nodes); i++ {
		t.nodes[i].folded = t.nodes[i].open != 0
	}
	t.relist()
	return t, nil
}

// parse adds the value d reads next, and its subtree.
func (t *JSONTree) parse(d *json.Decoder, parent, depth int, label string) error {
	if len(t.nodes) >= JSONTreeMaxNodes {
		return fmt.Errorf("%w: over %d nodes", ErrTreeTooLarge, JSONTreeMaxNodes)
	}
	tok, err := d.Token()
	if err != nil {
		return err
	}
	at := len(t.nodes)
	t.nodes = append(t.nodes, treeNode{depth: depth, parent: parent, label: label})
	delim, ok := tok.(json.Delim)
	if !ok {
		t.nodes[at].text = scalarText(tok)
		t.nodes[at].end = at + 1
		return nil
	}
	t.nodes[at].open = byte(delim)
	for i := 0; d.More(); i++ {
		label := "[" + strconv.Itoa(i) + "] "
		if delim == '{' {
			k, err := d.Token()
			if err != nil {
				return err
			}
			label = quote(k.(string)) + ": "
		}
		if err := t.parse(d, at, depth+1, label); err != nil {
			return err
		}
		t.nodes[at].kids++
	}
	if _, err := d.Token(); err != nil { // the closing delimiter
		return err
	}
	t.nodes[at].end = len(t.nodes)
	return nil
}

// scalarText is a scalar token as JSON text, sanitized.
func scalarText(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return quote(v)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return "null"
}

// quote is s as a JSON string, its control characters escaped, then
// sanitized (a bidi override or a C1 control shows as an escape).
func quote(s string) string {
	b, _ := json.Marshal(s)
	return Sanitize(string(b))
}

// relist recounts the visible nodes: those under no folded container.
func (t *JSONTree) relist() {
	t.vis = t.vis[:0]
	for i := 0; i < len(t.nodes); {
		t.vis = append(t.vis, i)
		if t.nodes[i].folded {
			i = t.nodes[i].end
		} else {
			i++
		}
	}
	t.cur = min(t.cur, len(t.vis)-1)
}

// Lines is how many lines the tree shows now; Nodes how many values it
// holds.
func (t *JSONTree) Lines() int { return len(t.vis) }
func (t *JSONTree) Nodes() int { return len(t.nodes) }

// Cursor is the line of the node under the cursor.
func (t *JSONTree) Cursor() int { return t.cur }

// Move moves the cursor by delta lines, within the tree.
func (t *JSONTree) Move(delta int) {
	t.cur = max(0, min(t.cur+delta, len(t.vis)-1))
}

// Toggle folds or unfolds the container under the cursor.
func (t *JSONTree) Toggle() {
	n := &t.nodes[t.vis[t.cur]]
	if n.open != 0 && n.kids > 0 {
		n.folded = !n.folded
		t.relist()
	}
}

// Unfold opens the folded container under the cursor, or steps into an
// open one.
func (t *JSONTree) Unfold() {
	n := t.nodes[t.vis[t.cur]]
	switch {
	case n.open == 0 || n.kids == 0:
	case n.folded:
		t.Toggle()
	default:
		t.Move(1)
	}
}

// Fold closes the open container under the cursor, or goes to the
// parent of anything else.
func (t *JSONTree) Fold() {
	i := t.vis[t.cur]
	n := t.nodes[i]
	if n.open != 0 && n.kids > 0 && !n.folded {
		t.Toggle()
		return
	}
	if n.parent < 0 {
		return
	}
	for j, v := range t.vis {
		if v == n.parent {
			t.cur = j
			return
		}
	}
}

// View draws h lines of at most w cells, the cursor's line on screen and
// marked (❯, as the key tree marks its cursor, colour or not).
func (t *JSONTree) View(st themes.Styles, w, h int) []string {
	t.off = ScrollTo(t.off, t.cur, h, len(t.vis))
	var out []string
	for j := t.off; j < min(t.off+h, len(t.vis)); j++ {
		if j == t.cur {
			out = append(out, st.Selected.Render(FitWidth("❯ "+t.line(t.vis[j]), w)))
		} else {
			out = append(out, st.Text.Render(FitWidth("  "+t.line(t.vis[j]), w)))
		}
	}
	return out
}

// line is node i's text: indent, fold mark, label, and its value or a
// summary of its contents.
func (t *JSONTree) line(i int) string {
	n := t.nodes[i]
	mark := "  "
	if n.open != 0 && n.kids > 0 {
		mark = "▾ "
		if n.folded {
			mark = "▸ "
		}
	}
	body := n.text
	if n.open != 0 {
		closer, what := "}", "key"
		if n.open == '[' {
			closer, what = "]", "item"
		}
		switch {
		case n.kids == 0:
			body = string(n.open) + closer
		case n.folded:
			body = fmt.Sprintf("%c…%s %d %s", n.open, closer, n.kids, plural(n.kids, what))
		default:
			body = fmt.Sprintf("%c %d %s", n.open, n.kids, plural(n.kids, what))
		}
	}
	return strings.Repeat("  ", n.depth) + mark + n.label + body
}

// plural is word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
