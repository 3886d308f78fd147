package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
)

// A tab's news: what a tab that is not shown says of its own accord (a
// lease gone after a background reload, a queue message delivered) goes
// to the message log, named after its tab, and marks that tab's label in
// the tab bar; it never takes the flash line, which shows the hints and
// outcomes of the tab in use. The mark goes when its tab is shown.

// tabNews is a flash of tab, sent while another tab was shown.
type tabNews struct {
	tab tab
	msg views.FlashMsg
}

// newsOf tags the flashes cmd sends (alone or in a batch) as tab t's
// news; its other messages go as they are.
func newsOf(t tab, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		switch msg := cmd().(type) {
		case views.FlashMsg:
			return tabNews{tab: t, msg: msg}
		case tea.BatchMsg:
			out := make(tea.BatchMsg, len(msg))
			for i, c := range msg {
				out[i] = newsOf(t, c)
			}
			return out
		default:
			return msg
		}
	}
}

// newsMarks are the tabs with news not yet seen: the most severe level
// each had.
type newsMarks struct {
	on    [numTabs]bool
	level [numTabs]views.FlashLevel
}

func (n *newsMarks) note(t tab, level views.FlashLevel) {
	if !n.on[t] || level == views.FlashError {
		n.level[t] = level
	}
	n.on[t] = true
}

func (n *newsMarks) clear(t tab) { n.on[t] = false }

// onNews takes a tab's news: the flash line when its tab is shown now
// (it was switched to meanwhile), else the log and the tab's mark.
func (m model) onNews(n tabNews) (model, tea.Cmd) {
	if n.tab == m.tab {
		out := m.flash.show(n.msg)
		return m, out
	}
	n.msg.Text = n.tab.String() + ": " + n.msg.Text
	m.flash.record(n.msg)
	m.news.note(n.tab, n.msg.Level)
	return m, nil
}
