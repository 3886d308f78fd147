package reader

import (
	"context"
	"strings"
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

// host is what Browse is to the reader, for the tests: it holds the
// selected row, read as Browse reads it (its head, entry.HeadCap bytes of
// the value), opens the reader on v and the pipe prompt on | while
// neither has the keys, hands the reader every other message, and lays
// it out after each, in the rectangle Browse gives its entry pane.
type host struct {
	reader Model
	deps   views.Deps
	row    entry.Row
}

func newHost(deps views.Deps, styles themes.Styles) host {
	return host{reader: New(deps, styles), deps: deps}
}

func (h host) Init() tea.Cmd { return nil }

// rowRead answers readRow.
type rowRead struct{ row entry.Row }

// readRow reads the row at raw as Browse's entry read does.
func readRow(src *store.Store, raw []byte) tea.Cmd {
	return func() tea.Msg { return rowRead{entry.Read(context.Background(), src, raw)} }
}

func (h host) Update(msg tea.Msg) (host, tea.Cmd) {
	h.reader.SetRow(h.row)
	var cmd tea.Cmd
	k, isKey := msg.(tea.KeyMsg)
	switch {
	case isKey && !h.reader.Capturing() && k.String() == "v":
		cmd = h.reader.Open(h.row)
	case isKey && !h.reader.Capturing() && k.String() == "|":
		cmd = h.reader.OpenPipe(h.row)
	default:
		if r, ok := msg.(rowRead); ok {
			h.row = r.row
		}
		h.reader, cmd = h.reader.Update(msg)
	}
	h.reader.SetRow(h.row)
	return h, tea.Batch(cmd, h.reader.Layout())
}

// Refresh reads the row again, as Browse's refresh does.
func (h host) Refresh() (host, tea.Cmd) { return h, readRow(h.deps.Store, h.row.E.Raw) }

// View is the reader's pane and, under it, the pipe prompt.
func (h host) View() string {
	var out []string
	if h.reader.Reading() {
		out = append(out, h.reader.View())
	}
	return strings.Join(append(out, h.reader.PromptView()), "\n")
}

// Capturing reports whether the reader or its prompt has the keys.
func (h host) Capturing() bool { return h.reader.Capturing() }

// SetSize gives the reader Browse's entry pane at w x ht, and the prompt
// the width of Browse's tree footer.
func (h *host) SetSize(w, ht int) {
	tree := min(max(w*2/5, 24), 60, w)
	h.reader.SetSize(w-tree, ht)
	h.reader.SetPromptWidth(tree - h.reader.styles.Pane.GetHorizontalFrameSize() - 4)
}

func (h *host) Focus() { h.reader.Focus() }

// newHarness opens a fresh copy of the reference store and hosts a
// reader of w x h cells on it.
func newHarness(t *testing.T, w, h int) *viewtest.Harness[host] {
	t.Helper()
	s, clock, _ := viewtest.Reference(t, false)
	return startHarness(t, s, clock, w, h)
}

// startHarness hosts a reader of w x h cells over s.
func startHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *viewtest.Harness[host] {
	t.Helper()
	return viewtest.Start[host, *host](t, s, clock, w, h, newHost)
}

// goTo selects the row at text, read as Browse reads it.
func goTo(h *viewtest.Harness[host], text string) {
	h.T.Helper()
	raw, err := codec.Encode(storetest.Key(h.T, text))
	if err != nil {
		h.T.Fatal(err)
	}
	h.Settle(readRow(h.S, raw))
}

// setValue writes key = value in the harness's store.
func setValue(t *testing.T, h *viewtest.Harness[host], k string, value []byte) {
	t.Helper()
	if _, err := h.S.Commit(viewtest.Ctx, nil, []store.Mutation{{Type: store.MutationSet, Key: storetest.Key(t, k), Value: value}}); err != nil {
		t.Fatal(err)
	}
}
