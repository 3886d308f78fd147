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
	found        bool
	head         store.EntryHead
	err          error
}

// loadEntry reads one physical row by its raw key, expired or not (Browse
// shows expired, unswept rows struck through), with at most entry.HeadCap
// bytes of its value: one statement, and a 50 MB value costs 64 KiB.
func loadEntry(src *store.Store, session, gen int, raw []byte) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		h, found, err := src.GetRawHead(ctx, raw, entry.HeadCap)
		return entryLoaded{session: session, gen: gen, found: found, head: h, err: err}
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
