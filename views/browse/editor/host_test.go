package editor

import (
	"context"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
	"kvdeck/views/viewtest"
)

// host stands in for Browse in the editor's tests. E on the selected row
// (read as Browse's entry read takes it: entry.Read) goes to the editor
// while nothing is open; every other message goes to it too. What the
// editor asks, the host does: it reads the row again and hands it over,
// and rechecks the conflict screen as Browse's refresh does. The editor
// has Browse's entry pane.
type host struct {
	editor Model
	deps   views.Deps
	row    entry.Row
}

func (h host) Update(msg tea.Msg) (host, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && !h.editor.Open() {
		if k.String() == "E" {
			return h, h.editor.External(h.row)
		}
		return h, nil
	}
	if r, ok := msg.(rowRead); ok {
		h.row = r.row
		h.editor.Reloaded(h.row)
		return h, nil
	}
	var cmd tea.Cmd
	h.editor, cmd = h.editor.Update(msg)
	ask := h.editor.TakeAsk()
	switch {
	case ask.Refresh:
		var c tea.Cmd
		h, c = h.Refresh()
		cmd = tea.Batch(cmd, c)
	case ask.Reread:
		cmd = tea.Batch(cmd, readRow(h.deps.Store, h.row.E.Raw))
	}
	return h, cmd
}

// Refresh reads the row again and rechecks the conflict screen.
func (h host) Refresh() (host, tea.Cmd) {
	return h, tea.Batch(readRow(h.deps.Store, h.row.E.Raw), h.editor.Recheck())
}

func (h host) View() string { return h.editor.View() }

// Held is the editor's.
func (h host) Held() []views.Held { return h.editor.Held() }

// SetSize gives the editor Browse's entry pane at w x ht.
func (h *host) SetSize(w, ht int) { h.editor.SetSize(w-min(max(w*2/5, 24), 60, w), ht) }

func (h *host) Focus() { h.editor.Focus() }

func (h host) Init() tea.Cmd { return nil }

// rowRead answers readRow: the row read as Browse's entry read does.
type rowRead struct{ row entry.Row }

func readRow(src *store.Store, raw []byte) tea.Cmd {
	return func() tea.Msg { return rowRead{entry.Read(context.Background(), src, raw)} }
}

// newHarness opens a fresh copy of the reference store and hosts an
// editor of 120 x 40 cells on it.
func newHarness(t *testing.T) *viewtest.Harness[host] {
	t.Helper()
	s, clock, _ := viewtest.Reference(t, false)
	return viewtest.Start[host, *host](t, s, clock, 120, 40, func(deps views.Deps, styles themes.Styles) host {
		return host{editor: New(deps, styles), deps: deps}
	})
}

// rawKey is the encoded key of text.
func rawKey(t *testing.T, text string) []byte {
	t.Helper()
	raw, err := codec.Encode(storetest.Key(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// goTo selects the row at text, read as Browse reads it.
func goTo(h *viewtest.Harness[host], text string) {
	h.T.Helper()
	h.Settle(readRow(h.S, rawKey(h.T, text)))
}

// getRaw reads the physical row at text (expired rows too).
func getRaw(t *testing.T, s *store.Store, text string) (store.Entry, bool) {
	t.Helper()
	e, ok, err := s.GetRaw(viewtest.Ctx, rawKey(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return e, ok
}

// setBig writes ["big", "value"] = value in the harness's store.
func setBig(t *testing.T, h *viewtest.Harness[host], value []byte) {
	t.Helper()
	if _, err := h.S.Commit(viewtest.Ctx, nil, []store.Mutation{{Type: store.MutationSet, Key: storetest.Key(t, `["big", "value"]`), Value: value}}); err != nil {
		t.Fatal(err)
	}
}
