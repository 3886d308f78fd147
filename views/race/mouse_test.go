package race

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views/viewtest"
)

// clickText clicks on the first place the view shows text.
func clickText(t *testing.T, h *viewtest.Harness[Model], text string) {
	t.Helper()
	click, ok := viewtest.ClickOn(h.M.View(), text, 0)
	if !ok {
		t.Fatalf("the view does not show %q:\n%s", text, h.M.View())
	}
	h.Send(click)
}

// TestRaceClickSelectsAClient: a click anywhere in a client's box selects
// that client, whose next step space then runs (issue 13: rows clicks on
// every tab); a click outside the boxes changes nothing.
func TestRaceClickSelectsAClient(t *testing.T) {
	h := newRaceHarness(t, false)
	h.Keys("a") // three clients: A, B, C side by side
	h.RequireView("client C")
	clickText(t, h, "client C")
	if h.M.step.selected != 2 {
		t.Fatalf("a click on client C's title selects client %d", h.M.step.selected)
	}
	clickText(t, h, "client B")
	if h.M.step.selected != 1 {
		t.Fatalf("a click on client B's title selects client %d", h.M.step.selected)
	}
	h.Keys(" ") // B reads
	if got := h.M.step.clients[1].Snapshot; got == nil {
		t.Fatalf("space after the click did not step client B: %+v", h.M.step.clients)
	}
	// The last line of A's box (its next step), not its title.
	clickText(t, h, "space: read")
	if h.M.step.selected != 0 {
		t.Fatalf("a click on client A's last line selects client %d", h.M.step.selected)
	}
	clickText(t, h, "LOG")
	if h.M.step.selected != 0 {
		t.Fatalf("a click on the log moved the selection to client %d", h.M.step.selected)
	}
	h.Send(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if h.M.step.selected != 1 {
		t.Fatalf("the wheel down from A selects client %d, want B", h.M.step.selected)
	}
}

// TestRaceShortClickSelectsAClient: on a short screen the rows of clients
// are scrolled to the selected one, under a line about the clients above;
// a click picks the box where it is drawn, not where it would be unscrolled.
func TestRaceShortClickSelectsAClient(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	h := viewtest.Start[Model, *Model](t, s, clock, 90, 22-3, New, viewtest.Reopen(path, clock))
	h.Keys("a", "a", "a", "l", "l") // A..E two to a row; C selected: A and B are scrolled away
	h.RequireView("2 client(s) above", "client C", "client D")
	clickText(t, h, "client D")
	if h.M.step.selected != 3 {
		t.Fatalf("a click on client D's title selects client %d", h.M.step.selected)
	}
	clickText(t, h, "client(s) above")
	if h.M.step.selected != 3 {
		t.Fatalf("a click on the line about the clients above selects client %d", h.M.step.selected)
	}
}

// TestRaceLiveIgnoresClicks: live mode has no clients to select.
func TestRaceLiveIgnoresClicks(t *testing.T) {
	h := newRaceHarness(t, false)
	h.Keys("m")
	clickText(t, h, "attempts")
	if h.M.step.selected != 0 || !h.M.live {
		t.Fatalf("a click in live mode changed the theater: selected %d, live %v", h.M.step.selected, h.M.live)
	}
}
