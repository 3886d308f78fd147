package browse

// rowKind tells the lines of the flattened tree apart.
type rowKind uint8

const (
	rowNode    rowKind = iota // a node
	rowLoading                // "loading…" under a node being expanded
	rowError                  // a failed load, inline
	rowEmpty                  // "(no keys)": an empty level
	rowMore                   // "… more": the level continues; scrolling here loads it
	rowEarlier                // "↑ earlier": the level was entered past its start (:goto)
)

// row is one line of the tree pane.
type row struct {
	kind   rowKind
	n      *node // the node (rowNode) or the level the line belongs to
	page   int   // for rowNode: the page of n.parent holding n
	depth  int
	hidden int // for rowMore with a filter: how many loaded children it hides
}

// ref identifies a row across reloads, which replace the rows slice.
type ref struct {
	kind rowKind
	node nodeKind
	raw  string
}

func (r row) ref() ref {
	if r.kind == rowNode {
		return ref{kind: rowNode, node: r.n.kind, raw: string(r.n.raw)}
	}
	return ref{kind: r.kind, raw: string(r.n.raw)}
}

// flatten lists the visible lines of the tree under root, depth first.
func flatten(root *node) []row {
	var out []row
	var walk func(n *node)
	walk = func(n *node) {
		d := n.depth + 1
		switch {
		case n.err != nil && !n.loaded:
			out = append(out, row{kind: rowError, n: n, depth: d})
			return
		case !n.loaded:
			out = append(out, row{kind: rowLoading, n: n, depth: d})
			return
		}
		if n.kind == nodeUndecodable {
			for _, r := range n.parent.rawRows() {
				if n.parent.matches(r) {
					out = append(out, row{kind: rowNode, n: r, depth: d})
				}
			}
			return
		}
		if len(n.pages) > 0 && n.pages[0].after != nil {
			out = append(out, row{kind: rowEarlier, n: n, depth: d})
		}
		hidden, shown := 0, 0
		for pi, p := range n.pages {
			for _, k := range p.kids {
				if !n.matches(k) {
					hidden++
					continue
				}
				shown++
				out = append(out, row{kind: rowNode, n: k, page: pi, depth: d})
				if k.expanded {
					walk(k)
				}
			}
		}
		if n.undec != nil {
			out = append(out, row{kind: rowNode, n: n.undec, page: len(n.pages) - 1, depth: d})
			if n.undec.expanded {
				walk(n.undec)
			}
		}
		switch {
		case n.err != nil:
			out = append(out, row{kind: rowError, n: n, depth: d})
		case n.more != nil:
			out = append(out, row{kind: rowMore, n: n, depth: d, hidden: hidden})
		case shown == 0 && n.undec == nil:
			out = append(out, row{kind: rowEmpty, n: n, depth: d})
		}
	}
	walk(root)
	return out
}
