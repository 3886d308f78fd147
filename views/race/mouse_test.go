package race

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views/viewtest"
)

// clickSelects clicks on the first place the view shows text and requires
// client want to be selected after it.
func clickSelects(t *testing.T, h *viewtest.Harness[Model], text string, want int) {
	t.Helper()
	h.ClickOn(text, 0)
	if got := h.M.step.selected; got != want {
		t.Fatalf("a click on %q selects client %d, want %d", text, got, want)
	}
}

// TestRaceClickSelectsAClient: a click anywhere in a client's box selects
// that client, whose next step space then runs (rows clicks on
// every tab); a click outside the boxes changes nothing.
func TestRaceClickSelectsAClient(t *testing.T) {
	h := newRaceHarness(t, false)
	h.Keys("n") // three clients: A, B, C side by side
	h.RequireView("client C")
	clickSelects(t, h, "client C", 2)
	clickSelects(t, h, "client B", 1)
	h.Keys("enter") // B reads
	if got := h.M.step.clients[1].Snapshot; got == nil {
		t.Fatalf("space after the click did not step client B: %+v", h.M.step.clients)
	}
	// The last line of A's box (its next step), not its title.
	clickSelects(t, h, "enter: read", 0)
	clickSelects(t, h, "LOG", 0)
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
	h.Keys("n", "n", "n", "l", "l") // A..E two to a row; C selected: A and B are scrolled away
	h.RequireView("2 client(s) above", "client C", "client D")
	clickSelects(t, h, "client D", 3)
	clickSelects(t, h, "client(s) above", 3)
}

// TestRaceLiveIgnoresClicks: live mode has no clients to select.
func TestRaceLiveIgnoresClicks(t *testing.T) {
	h := newRaceHarness(t, false)
	h.Keys("m")
	clickSelects(t, h, "attempts", 0)
	if !h.M.live {
		t.Fatal("a click in live mode left live mode")
	}
}
