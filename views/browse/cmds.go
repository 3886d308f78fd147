package browse

import (
	"bytes"
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
)

// childrenLoaded answers loadChildren.
type childrenLoaded struct {
	session, gen int
	prefix       codec.Key
	at           int // page index to store the page at
	replace      bool
	after        []byte
	limit        int
	page         store.ChildPage
	err          error
	// fromStart: a seek's page starts at the level's first child, so
	// nothing is earlier than it (no "earlier" line).
	fromStart bool
}

// loadChildren reads one page of the children of prefix. A seek (a page
// that replaces the level's, from after) also reads the level's first
// child, one request more on a jump only, to know whether keys come
// before the page.
func loadChildren(src *store.Store, session, gen int, prefix codec.Key, at int, after []byte, limit int, replace bool) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		cp, err := src.Children(ctx, prefix, store.ChildrenOptions{After: after, Limit: limit})
		msg := childrenLoaded{session: session, gen: gen, prefix: prefix, at: at, replace: replace, after: after, limit: limit, page: cp, err: err}
		if err == nil && replace && after != nil && len(cp.Children) > 0 {
			first, ferr := src.Children(ctx, prefix, store.ChildrenOptions{Limit: 1, CountBound: 1})
			msg.fromStart = ferr == nil && len(first.Children) > 0 && bytes.Equal(first.Children[0].Raw, cp.Children[0].Raw)
		}
		return msg
	})
}

// entryLoaded answers loadEntry.
type entryLoaded struct {
	session, gen int
	row          entry.Row
	// now is the row in the live store when src is a point of its past
	// (views.Deps.Live), read in the same command.
	now *entry.Row
}

// loadEntry reads the selected row as the entry pane shows it
// (entry.Read: the head of its value), and, at a point of the past, the
// row now in live (nil: the live store is shown).
func loadEntry(src, live *store.Store, session, gen int, raw []byte) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		out := entryLoaded{session: session, gen: gen, row: entry.Read(ctx, src, raw)}
		if live != nil {
			now := entry.Read(ctx, live, raw)
			out.now = &now
		}
		return out
	})
}

// copied answers copyText.
type copied struct {
	text string
	err  error
}

// copyText puts text on the clipboard (OSC 52, through the root's writer).
func copyText(clip func(string) error, text string) tea.Cmd {
	return func() tea.Msg { return copied{text: text, err: clip(text)} }
}
