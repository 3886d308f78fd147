package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/store"
	"kvdeck/views"
)

// View draws the tab bar, the body (the view, or help, or a dialog), the
// flash / command line and the status bar.
func (m model) View() string {
	if m.width == 0 {
		return ""
	}
	body := m.tabs.view(m.tab).View()
	bodyH := max(m.height-3, 1)
	switch {
	case m.confirm.Open():
		body = lipgloss.Place(m.width, bodyH, lipgloss.Center, lipgloss.Center, m.confirm.View())
	case m.helping:
		body = m.helpView(bodyH)
	}
	return strings.Join([]string{m.tabBar(), body, m.messageLine(), m.statusBar()}, "\n")
}

// tabBar shows the tabs; the active one is bracketed as well as styled,
// so it shows without colour too.
func (m model) tabBar() string {
	parts := []string{m.styles.AppName.Render("kvdeck")}
	for t := range numTabs {
		label := fmt.Sprintf("%d %s", t+1, t)
		if t == m.tab {
			parts = append(parts, m.styles.TabActive.Render("["+label+"]"))
		} else {
			parts = append(parts, m.styles.TabInactive.Render(" "+label+" "))
		}
	}
	return fit(strings.Join(parts, " "), m.width)
}

// messageLine is the command line while typing, else the flash, else the
// short help of the focused view.
func (m model) messageLine() string {
	switch {
	case m.typing:
		return fit(m.cmdline.View(), m.width)
	case m.flash.on:
		st := m.styles.FlashInfo
		switch m.flash.msg.Level {
		case views.FlashOK:
			st = m.styles.FlashOK
		case views.FlashError:
			st = m.styles.FlashError
		}
		return fit(st.Render(m.flash.msg.Text), m.width)
	case m.confirm.Open():
		return fit(m.help.ShortHelpView(m.confirm.Keys()), m.width)
	}
	short := append(m.tabs.view(m.tab).ShortHelp(), m.keys.Help, m.keys.Command, m.keys.Quit)
	return fit(m.help.ShortHelpView(short), m.width)
}

// statusBar: database, backend, read-only badge, seq, clock, refresh,
// last error.
func (m model) statusBar() string {
	st := m.styles
	info := m.store.Info()
	backend := "embedded"
	if info.Transport.Remote() {
		backend = "remote " + info.Transport.String()
	}
	items := []string{backend}
	if info.ReadOnly {
		items = append(items, st.Badge.Render(" READ-ONLY "))
	}
	if m.refresh.known {
		items = append(items, fmt.Sprintf("seq %d · %d rows", m.refresh.version.Seq, m.refresh.version.Rows))
	}
	if d := m.cfg.Clock.Describe(); d != "" {
		items = append(items, st.Warn.Render("clock "+d))
	}
	items = append(items, m.refreshText())
	if m.lastErr != "" {
		items = append(items, st.Error.Render("✗ "+m.lastErr))
	}
	right := strings.Join(items, st.StatusSep.Render(" │ "))
	room := m.width - ansi.StringWidth(right) - 3
	db := info.Display
	if room < ansi.StringWidth(db) {
		db = ansi.TruncateLeft(db, ansi.StringWidth(db)-max(room-1, 0), "…")
	}
	return fit(st.StatusBar.Render(" "+db+st.StatusSep.Render(" │ ")+right), m.width)
}

// refreshText is the live refresh state for the status bar.
func (m model) refreshText() string {
	r := m.refresh
	switch {
	case r.interval <= 0:
		return "refresh off"
	case r.paused:
		return "paused (p resumes)"
	case r.reading || m.tabs.view(m.tab).Busy():
		return "loading…"
	}
	return "live " + r.interval.String()
}

// helpView is the full help: the global keys and every live key of the
// focused view.
func (m model) helpView(h int) string {
	groups := append([][]key.Binding{m.keys.bindings()}, m.tabs.view(m.tab).FullHelp()...)
	title := m.styles.PaneTitle.Render("HELP · " + m.tab.String())
	notes := []string{
		"Writes are CAS-guarded: e and d act only if the key still has the stamp shown, so a change by another writer is never overwritten.",
		"Commands: " + strings.TrimPrefix(commandUsage, "commands: "),
		"Store: " + storeLine(m.store.Info()) + ". ? or esc closes this help.",
	}
	lines := []string{title, "", m.help.FullHelpView(groups), ""}
	for _, n := range notes {
		lines = append(lines, m.styles.Muted.Render(ansi.Wordwrap(n, m.width-6, " ")))
	}
	box := m.styles.PaneFocused
	inner := strings.Split(strings.Join(lines, "\n"), "\n")
	w := m.width - box.GetHorizontalFrameSize()
	ih := h - box.GetVerticalFrameSize()
	for i := range inner {
		inner[i] = fit(inner[i], w)
	}
	for len(inner) < ih {
		inner = append(inner, strings.Repeat(" ", w))
	}
	return box.Render(strings.Join(inner[:max(ih, 0)], "\n"))
}

func storeLine(info store.Info) string {
	s := info.Display + " over " + info.Transport.String()
	if info.ReadOnly {
		s += ", read-only"
	}
	return s
}

// fit cuts or pads s to exactly w cells.
func fit(s string, w int) string {
	n := ansi.StringWidth(s)
	if n > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-n)
}
