package browse

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// harness drives a Browse view synchronously and records what it asked
// of the root.
type harness struct {
	t        *testing.T
	m        Model
	s        *store.Store
	clock    *store.VirtualClock
	flashes  []views.FlashMsg
	confirms []views.ConfirmMsg
	copied   []string
}

func newHarness(t *testing.T, readOnly bool, w, h int) *harness {
	t.Helper()
	s, clock, _ := viewtest.Reference(t, readOnly)
	return startHarness(t, s, clock, w, h)
}

func startHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *harness {
	t.Helper()
	hs := &harness{t: t, s: s, clock: clock}
	deps := views.Deps{Store: s, Now: clock.Now, Session: 1, Clipboard: func(text string) error {
		hs.copied = append(hs.copied, text)
		return nil
	}}
	hs.m = New(deps, themes.NewStyles(themes.Dark()))
	hs.m.SetSize(w, h)
	hs.settle(hs.m.Init())
	return hs
}

// settle runs cmd and feeds the view its answers until it is idle.
func (h *harness) settle(cmd tea.Cmd) {
	rest := viewtest.Settle(cmd, func(msg tea.Msg) (tea.Cmd, bool) {
		switch msg.(type) {
		case childrenLoaded, entryLoaded, committed, copied:
			var c tea.Cmd
			h.m, c = h.m.Update(msg)
			return c, true
		}
		return nil, false
	})
	for _, msg := range rest {
		switch msg := msg.(type) {
		case views.FlashMsg:
			h.flashes = append(h.flashes, msg)
		case views.ConfirmMsg:
			h.confirms = append(h.confirms, msg)
		default:
			h.t.Fatalf("unexpected message %T %+v", msg, msg)
		}
	}
}

// keys sends key presses, settling after each.
func (h *harness) keys(names ...string) {
	for _, name := range names {
		var cmd tea.Cmd
		h.m, cmd = h.m.Update(viewtest.Key(name))
		h.settle(cmd)
	}
}

// typeText types text into whatever has the keys.
func (h *harness) typeText(text string) {
	for _, r := range text {
		h.keys(string(r))
	}
}

func (h *harness) lastFlash() string {
	if len(h.flashes) == 0 {
		return ""
	}
	return h.flashes[len(h.flashes)-1].Text
}

func (h *harness) requireView(contains ...string) {
	h.t.Helper()
	v := h.m.View()
	for _, c := range contains {
		if !strings.Contains(v, c) {
			h.t.Fatalf("view lacks %q:\n%s", c, v)
		}
	}
}

func TestBrowseShow(t *testing.T) {
	h := newHarness(t, false, 120, 37)
	h.keys("enter", "j")
	t.Log("\n" + h.m.View())
}
