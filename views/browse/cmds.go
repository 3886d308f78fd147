package browse

import (
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
}

// loadChildren reads one page of the children of prefix.
func loadChildren(src *store.Store, session, gen int, prefix codec.Key, at int, after []byte, limit int, replace bool) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		cp, err := src.Children(ctx, prefix, store.ChildrenOptions{After: after, Limit: limit})
		return childrenLoaded{session: session, gen: gen, prefix: prefix, at: at, replace: replace, after: after, limit: limit, page: cp, err: err}
	})
}

// entryLoaded answers loadEntry.
type entryLoaded struct {
	session, gen int
	row          entry.Row
}

// loadEntry reads the selected row as the entry pane shows it
// (entry.Read: the head of its value).
func loadEntry(src *store.Store, session, gen int, raw []byte) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		return entryLoaded{session: session, gen: gen, row: entry.Read(ctx, src, raw)}
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
