package viewtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
)

// coordModel is what the coordination views have in common for the
// harness: Init, Update returning their own type, and View.
type coordModel[V any] interface {
	Init() tea.Cmd
	Update(tea.Msg) (V, tea.Cmd)
	Refresh() (V, tea.Cmd)
	View() string
}

// sizable is the pointer side of a view: SetSize and Focus.
type sizable[V any] interface {
	*V
	SetSize(w, h int)
	Focus()
}

// StartCoord builds a focused view of w x h cells over s with build and
// loads it.
func StartCoord[V coordModel[V], P sizable[V]](t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int, build func(views.Deps, themes.Styles) V) *CoordHarness[V] {
	t.Helper()
	return newCoordHarness(t, s, clock, func(d views.Deps, st themes.Styles) V {
		m := build(d, st)
		P(&m).SetSize(w, h)
		P(&m).Focus()
		return m
	})
}

// CoordHarness drives a coordination view like the bubbletea runtime:
// every command runs on its own goroutine and its message comes back to
// Update on the test's goroutine. settle waits until no command is left
// but the ones parked() says may stay (a poll waiting for the user's
// decisions).
type CoordHarness[V coordModel[V]] struct {
	t        *testing.T
	M        V
	S        *store.Store
	Clock    *store.VirtualClock
	Flashes  []views.FlashMsg
	Confirms []views.ConfirmMsg
	msgs     chan tea.Msg
	pending  int
	Parked   func(V) int
}

// newCoordHarness builds a view with build over s (session 1) and loads it.
func newCoordHarness[V coordModel[V]](t *testing.T, s *store.Store, clock *store.VirtualClock, build func(views.Deps, themes.Styles) V) *CoordHarness[V] {
	t.Helper()
	h := &CoordHarness[V]{t: t, S: s, Clock: clock, msgs: make(chan tea.Msg, 64), Parked: func(V) int { return 0 }}
	h.M = build(views.Deps{Store: s, Now: clock.Now, Session: 1}, themes.NewStyles(themes.Dark()))
	h.Settle(h.M.Init())
	return h
}

// run starts cmd on its own goroutine.
func (h *CoordHarness[V]) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	h.pending++
	go func() { h.msgs <- cmd() }()
}

// Settle runs cmd and feeds the view every answer until it is idle.
func (h *CoordHarness[V]) Settle(cmd tea.Cmd) {
	h.t.Helper()
	h.run(cmd)
	for h.pending > h.Parked(h.M) {
		select {
		case msg := <-h.msgs:
			h.pending--
			h.handle(msg)
		case <-time.After(20 * time.Second):
			h.t.Fatalf("%d command(s) still running after 20s\n%s", h.pending, h.M.View())
		}
	}
}

// handle routes one message: batches run, the root's messages are kept,
// the rest go to the view.
func (h *CoordHarness[V]) handle(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case views.FlashMsg:
		h.Flashes = append(h.Flashes, msg)
	case views.ConfirmMsg:
		h.Confirms = append(h.Confirms, msg)
	default:
		var cmd tea.Cmd
		h.M, cmd = h.M.Update(msg)
		h.run(cmd)
	}
}

// send delivers one message to the view and settles.
func (h *CoordHarness[V]) send(msg tea.Msg) {
	h.t.Helper()
	var cmd tea.Cmd
	h.M, cmd = h.M.Update(msg)
	h.Settle(cmd)
}

// Refresh does what the root does on a live-refresh tick that saw a
// change, and settles.
func (h *CoordHarness[V]) Refresh() {
	h.t.Helper()
	m, cmd := h.M.Refresh()
	h.M = m
	h.Settle(cmd)
}

// Keys sends key presses, settling after each.
func (h *CoordHarness[V]) Keys(names ...string) {
	h.t.Helper()
	for _, n := range names {
		h.send(Key(n))
	}
}

// TypeText types text into whatever has the keys.
func (h *CoordHarness[V]) TypeText(text string) {
	h.t.Helper()
	for _, r := range text {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// ClearInput empties the focused one-line input.
func (h *CoordHarness[V]) ClearInput() { h.Keys("end", "ctrl+u") }

// Confirm answers the newest confirmation dialog with yes.
func (h *CoordHarness[V]) Confirm() views.ConfirmMsg {
	h.t.Helper()
	if len(h.Confirms) == 0 {
		h.t.Fatalf("no confirmation was asked; flashes %v\n%s", h.Flashes, h.M.View())
	}
	c := h.Confirms[len(h.Confirms)-1]
	h.Settle(c.Do)
	return c
}

// lastFlash is the text of the newest flash ("" when none).
func (h *CoordHarness[V]) lastFlash() string {
	if len(h.Flashes) == 0 {
		return ""
	}
	return h.Flashes[len(h.Flashes)-1].Text
}

// RequireView fails unless the view shows every text.
func (h *CoordHarness[V]) RequireView(texts ...string) {
	h.t.Helper()
	v := h.M.View()
	for _, s := range texts {
		if !strings.Contains(v, s) {
			h.t.Fatalf("view lacks %q:\n%s\nflashes: %v", s, v, h.Flashes)
		}
	}
}

// RequireFlash fails unless the newest flash holds every text.
func (h *CoordHarness[V]) RequireFlash(texts ...string) {
	h.t.Helper()
	for _, s := range texts {
		if !strings.Contains(h.lastFlash(), s) {
			h.t.Fatalf("flash %q lacks %q", h.lastFlash(), s)
		}
	}
}

var Ctx = context.Background()

// RequireNoHelp fails when help offers one of the keys.
func RequireNoHelp(t *testing.T, groups [][]key.Binding, keys ...string) {
	t.Helper()
	for _, g := range groups {
		for _, b := range g {
			for _, k := range keys {
				if b.Enabled() && b.Help().Key == k {
					t.Errorf("help offers %s in read-only mode", k)
				}
			}
		}
	}
}
