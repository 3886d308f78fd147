package browse

import (
	"bytes"
	"encoding/hex"
	"strings"

	"kvdeck/codec"
	"kvdeck/store"
)

// nodeKind tells the tree's nodes apart.
type nodeKind uint8

const (
	// nodePart is one decoded key part: a prefix, a stored key, or both.
	nodePart nodeKind = iota
	// nodeUndecodable groups the rows under a prefix whose next part does
	// not decode; it is shown as "(undecodable)".
	nodeUndecodable
	// nodeRaw is one undecodable row, shown as its raw hex.
	nodeRaw
)

// node is one node of the key tree. The tree is shared by every copy of
// the Browse model (nodes are pointers) and only Update changes it;
// commands receive plain values, never nodes.
type node struct {
	kind   nodeKind
	key    codec.Key // the full key of a nodePart (nil for the root)
	raw    []byte    // the encoded key (nodePart) or the row's raw key (nodeRaw)
	count  int64     // physical rows under the node, the key itself included
	capped bool      // count stopped at the bound: show "N+"
	isKey  bool      // a row with exactly this key exists
	exp    *int64    // that row's expiry (nil: none): past it, the row is struck through
	depth  int
	parent *node

	expanded bool
	loaded   bool   // at least one page arrived
	loading  bool   // a request for this node's children is in flight
	gen      int    // tag of the newest request; older answers are dropped
	err      error  // the last load failed (shown inline)
	retry    bool   // a refresh asked to try a failed load again
	pages    []page // the loaded children, in key order
	more     []byte // store cursor after the last page; nil when complete
	filter   string // client-side filter of this level's children
	undec    *node  // the (undecodable) group, once one was seen
	// size is the level's child count, counted by the store (level.go):
	// the tree loads a large level page by page and says how far it got.
	size levelSize
	// spare holds the children of pages dropped by a reload (applyPage),
	// by raw key, so that a child coming back keeps its subtree.
	spare map[string]*node
}

// page is one store.Children page of a node: the unit of loading and of
// refreshing (a refresh re-reads only the pages that are on screen).
type page struct {
	after []byte // the seek position it was read from; nil = the first child
	limit int
	kids  []*node
	raws  []*node // its undecodable rows (listed under the group node)
	stale bool
}

// hasChildren reports whether the node can be expanded.
func (n *node) hasChildren() bool {
	switch n.kind {
	case nodeUndecodable:
		return true
	case nodeRaw:
		return false
	case nodePart:
	}
	return n.count > 1 || (n.count == 1 && !n.isKey)
}

// label is the node's text without styling: the part as key text, the
// group's name, or a raw row's hex.
func (n *node) label() string {
	switch n.kind {
	case nodeUndecodable:
		return "(undecodable)"
	case nodeRaw:
		return hex.EncodeToString(n.raw)
	case nodePart:
	}
	return n.key[len(n.key)-1].String()
}

// part is the node's own key part (only for nodePart nodes).
func (n *node) part() codec.Part { return n.key[len(n.key)-1] }

// rawRows returns the undecodable rows of every loaded page.
func (n *node) rawRows() []*node {
	var out []*node
	for _, p := range n.pages {
		out = append(out, p.raws...)
	}
	return out
}

// loadedKids counts the decodable children loaded so far.
func (n *node) loadedKids() int {
	c := 0
	for _, p := range n.pages {
		c += len(p.kids)
	}
	return c
}

// find returns the loaded child with the given part, or nil.
func (n *node) find(part codec.Part) *node {
	for _, p := range n.pages {
		for _, k := range p.kids {
			if k.part() == part {
				return k
			}
		}
	}
	return nil
}

// lastKid returns the last loaded decodable child, or nil.
func (n *node) lastKid() *node {
	for i := len(n.pages) - 1; i >= 0; i-- {
		if kids := n.pages[i].kids; len(kids) > 0 {
			return kids[len(kids)-1]
		}
	}
	return nil
}

// matches reports whether the child passes the node's filter.
func (n *node) matches(child *node) bool {
	if n.filter == "" {
		return true
	}
	return strings.Contains(strings.ToLower(child.label()), strings.ToLower(n.filter))
}

// markStale marks every loaded page of the subtree as needing a re-read.
func (n *node) markStale() {
	n.retry = n.err != nil
	for i := range n.pages {
		n.pages[i].stale = true
		for _, k := range n.pages[i].kids {
			k.markStale()
		}
	}
}

// anyStale reports whether a loaded page of n waits for a re-read: a child
// missing from what was read may exist now.
func (n *node) anyStale() bool {
	for _, p := range n.pages {
		if p.stale {
			return true
		}
	}
	return false
}

// lookup finds the node of key under root by walking the loaded levels.
func lookup(root *node, key codec.Key) *node {
	n := root
	for _, part := range key {
		if n = n.find(part); n == nil {
			return nil
		}
	}
	return n
}

// applyPage stores a loaded page into the node: at index at (replacing
// it), or appended when at == len(pages). Children already known keep their
// subtrees; when the page now ends elsewhere than the next one starts, the
// pages after it are dropped (they load again on scroll) and their
// children kept as spares, which keep their subtrees when they come back.
func (n *node) applyPage(at int, after []byte, limit int, cp store.ChildPage) {
	old := map[string]*node{}
	if at < len(n.pages) {
		for _, k := range n.pages[at].kids {
			old[string(k.raw)] = k
		}
	}
	pg := page{after: after, limit: limit}
	for _, c := range cp.Children {
		if c.Undecodable {
			pg.raws = append(pg.raws, &node{kind: nodeRaw, raw: c.Raw, count: 1, isKey: true, depth: n.depth + 2})
			continue
		}
		k := old[string(c.Raw)]
		if k == nil {
			k = n.spare[string(c.Raw)]
			delete(n.spare, string(c.Raw))
		}
		if k == nil {
			k = &node{kind: nodePart, key: append(append(codec.Key{}, n.key...), c.Part), raw: c.Raw, depth: n.depth + 1, parent: n}
		}
		k.count, k.capped, k.isKey, k.exp = c.Count, c.Capped, c.IsKey, c.ExpiresAt
		pg.kids = append(pg.kids, k)
	}
	if at < len(n.pages) {
		n.pages[at] = pg
		if at+1 < len(n.pages) && !bytes.Equal(n.pages[at+1].after, cp.Next) {
			for _, p := range n.pages[at+1:] {
				for _, k := range p.kids {
					if n.spare == nil {
						n.spare = map[string]*node{}
					}
					n.spare[string(k.raw)] = k
				}
			}
			n.pages = n.pages[:at+1]
			n.more = cp.Next
		} else if at+1 == len(n.pages) {
			n.more = cp.Next
		}
	} else {
		n.pages = append(n.pages, pg)
		n.more = cp.Next
	}
	n.loaded = true
	if raws := n.rawRows(); len(raws) > 0 {
		if n.undec == nil {
			n.undec = &node{kind: nodeUndecodable, depth: n.depth + 1, parent: n, raw: n.raw, loaded: true}
		}
		n.undec.count = int64(len(raws))
		for _, r := range raws {
			r.parent = n.undec
		}
	} else {
		n.undec = nil
	}
}

// resetPages forgets the loaded children (before loading from another
// position, e.g. a jump past the loaded range).
func (n *node) resetPages() {
	n.pages, n.more, n.undec, n.loaded, n.spare = nil, nil, nil, false, nil
}
