package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
)

// Quitting never drops work without a word. The rule, one for q, :quit
// and ctrl+c: while nothing is held, they quit at once. While a tab holds
// work a quit gives up (views.Holder: an edit not saved, a batch claimed
// out of a queue, a composition not committed), they ask first, naming
// each; y quits, n stays, and ctrl+c again quits (ctrl+c twice always
// ends the TUI). Whatever was still held when the TUI ended, by a key or
// by SIGTERM/SIGHUP, is kept or named on the way out (exit.go): the last
// lines printed say how to get each back.

// quitTitle is the quit dialog's title.
const quitTitle = "Quit and give up what is not saved?"

// held is the work the tabs hold that a quit would give up, tab by tab.
func (m model) held() []views.Held {
	var out []views.Held
	for t := range numTabs {
		if h, ok := tabTable[t].view(&m.tabs).(views.Holder); ok {
			out = append(out, h.Held()...)
		}
	}
	return out
}

// quit quits at once when nothing is held, else opens the quit dialog
// (the root's own: a second ctrl+c answers it).
func (m *model) quit() tea.Cmd {
	held := m.held()
	if len(held) == 0 {
		return tea.Quit
	}
	lines := make([]string, 0, len(held)+3)
	writes, texts := false, false
	for _, h := range held {
		lines = append(lines, "• "+h.What)
		writes = writes || h.Op != ""
		texts = texts || h.Op == "" && len(h.Keep) > 0
	}
	stay := "n stays; ctrl+c again quits."
	if texts {
		lines = append(lines, "Typed text is kept in a private file: the last line printed on exit says how to save it.")
	}
	if writes {
		lines = append(lines, "Claimed messages stay out of their queue: the last line printed on exit names the kvdeck undo that puts them back.")
		stay = "n stays (then u gives the batch back, enter applies); ctrl+c again quits."
	}
	lines = append(lines, stay)
	m.ask(views.ConfirmMsg{Title: quitTitle, Yes: "quit", Do: tea.Quit, Lines: lines}, true)
	return nil
}

// forceQuit is ctrl+c: it asks as q does, and quits at once when the
// quit dialog is already open.
func (m model) forceQuit() (model, tea.Cmd) {
	if d := m.dialog(); d != nil && d.quit {
		return m, tea.Quit
	}
	cmd := m.quit()
	return m, cmd
}
