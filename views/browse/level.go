package browse

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
)

// A level is loaded a page at a time; its title said "KEYS 5445/5445",
// the rows loaded, as if that were the level. The
// store counts the level's children (a bounded count: "10000+" past
// it), once when a partly loaded level shows and again after a refresh,
// and the title shows loaded/total.

// countBound is where a level's count stops being exact.
const countBound = 10000

// levelSize is what the store said of a level's size.
type levelSize struct {
	n        int64
	capped   bool // more than n
	known    bool
	counting bool
	stale    bool // a refresh came after the count: count again
	gen      int
}

// levelCounted answers countLevel.
type levelCounted struct {
	session, gen int
	prefix       codec.Key
	n            int64
	capped       bool
	err          error
}

// countLevel asks the store how many children prefix has, up to the bound.
func countLevel(c *store.Store, session, gen int, prefix codec.Key) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		n, capped, err := c.CountChildren(ctx, prefix, countBound)
		return levelCounted{session: session, gen: gen, prefix: prefix, n: n, capped: capped, err: err}
	})
}

// wantCount counts lvl when it is partly loaded and its size is unknown
// or stale, and no count is in flight.
func (m *Model) wantCount(lvl *node) tea.Cmd {
	sz := &lvl.size
	if lvl.kind != nodePart || sz.counting || lvl.more == nil && lvl.pagesFromStart() || sz.known && !sz.stale {
		return nil
	}
	sz.counting, sz.gen = true, m.nextTag()
	return countLevel(m.deps.Store, m.deps.Session, sz.gen, lvl.key)
}

// onCounted stores a level's size.
func (m Model) onCounted(msg levelCounted) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	lvl := lookup(m.root, msg.prefix)
	if lvl == nil || lvl.size.gen != msg.gen {
		return m, nil
	}
	lvl.size.counting = false
	if msg.err == nil {
		lvl.size = levelSize{n: msg.n, capped: msg.capped, known: true, gen: msg.gen}
	}
	return m, nil
}

// pagesFromStart reports whether the loaded pages start at the level's
// first child (no "earlier" line).
func (n *node) pagesFromStart() bool { return len(n.pages) == 0 || n.pages[0].after == nil }

// complete reports whether every child of the level is loaded.
func (n *node) complete() bool { return n.loaded && n.more == nil && n.pagesFromStart() }

// sizeText is the level's loaded/total: "5445/55000", "5445/10000+" past
// the bound, "5445/…" while it is counted, "5445+" when no count can be
// had; a complete level is its count.
func (n *node) sizeText() string {
	loaded := n.loadedKids() + len(n.rawRows())
	sz := n.size
	switch {
	case n.complete():
		return fmt.Sprint(loaded)
	case sz.known && sz.capped:
		return fmt.Sprintf("%d/%d+", loaded, sz.n)
	case sz.known:
		return fmt.Sprintf("%d/%d", loaded, max(sz.n, int64(loaded)))
	case sz.counting:
		return fmt.Sprintf("%d/…", loaded)
	}
	return fmt.Sprintf("%d+", loaded)
}

// markSizesStale marks the counts of the subtree for a recount.
func (n *node) markSizesStale() {
	n.size.stale = n.size.known
	for _, p := range n.pages {
		for _, k := range p.kids {
			if k.loaded {
				k.markSizesStale()
			}
		}
	}
}
