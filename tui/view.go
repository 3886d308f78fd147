package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// View draws the tab bar, the body (the view, with the overlays open
// drawn over it, bottom first), the message line and the status bar.
func (m model) View() string {
	if m.width == 0 {
		return ""
	}
	body := m.drawOverlays(m.tabs.view(m.tab).View(), max(m.height-3, 1))
	return strings.Join([]string{m.tabBar(), body, m.messageLine(), m.statusBar()}, "\n")
}

// tabBar shows the tabs; the active one is bracketed as well as styled,
// so it shows without colour too.
func (m model) tabBar() string {
	parts, sep := m.tabBarParts()
	return fit(strings.Join(parts, sep), m.width)
}

// tabBarParts are the tab bar's pieces (the name, then one per tab) and
// what separates them. When the names do not fit, the other tabs show
// their number only, so the active one is never cut off the end.
func (m model) tabBarParts() ([]string, string) {
	parts := []string{m.styles.AppName.Render("kvdeck")}
	for t := range numTabs {
		label := fmt.Sprintf("%d %s", t+1, t)
		if t == m.tab {
			parts = append(parts, m.styles.TabActive.Render("["+label+"]"))
		} else {
			parts = append(parts, m.styles.TabInactive.Render(label)+m.newsMark(t))
		}
	}
	if ansi.StringWidth(strings.Join(parts, "  ")) <= m.width {
		return parts, "  "
	}
	// Eight tabs with their names fit 80 columns one space apart, without
	// the program's name.
	if named := append([]string{""}, parts[1:]...); ansi.StringWidth(strings.Join(named, " ")) <= m.width {
		return named, " "
	}
	parts = parts[:1]
	for t := range numTabs {
		if t == m.tab {
			parts = append(parts, m.styles.TabActive.Render(fmt.Sprintf("[%d %s]", t+1, t)))
		} else {
			parts = append(parts, m.styles.TabInactive.Render(fmt.Sprint(int(t)+1))+m.newsMark(t)) // the number, not tab(t+1).String()
		}
	}
	return parts, " "
}

// newsMark is the mark after the label of a tab with news in the log
// (news.go): "•", red for an error; "" when it has none.
func (m model) newsMark(t tab) string {
	if !m.news.on[t] {
		return ""
	}
	if m.news.level[t] == views.FlashError {
		return m.styles.FlashError.Render("•")
	}
	return m.styles.Accent.Render("•")
}

// tabAt is the tab whose label is at column x of the tab bar.
func (m model) tabAt(x int) (tab, bool) {
	parts, sep := m.tabBarParts()
	at := ansi.StringWidth(parts[0]) + len(sep)
	for t := range numTabs {
		w := ansi.StringWidth(parts[t+1])
		if x >= at && x < at+w {
			return t, true
		}
		at += w + len(sep)
	}
	return 0, false
}

// messageLine is the top overlay's line (a run's progress, the command
// line), else the flash, else the help of the top overlay that has help,
// else the short help of the focused view.
func (m model) messageLine() string {
	if line, ok := m.overlayLine(); ok {
		return line
	}
	if m.flash.on {
		return m.flashLine()
	}
	if h, ok := m.overlayHelp(); ok {
		return fit(m.help.ShortHelpView(h), m.width)
	}
	v := m.tabs.view(m.tab)
	short := v.ShortHelp()
	if !v.Capturing() {
		short = append(short, m.keys.Help, m.keys.Command)
		if !keeps(v, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'q'}}) {
			short = append(short, m.keys.Quit)
		}
	}
	return fit(m.help.ShortHelpView(short), m.width)
}

// flashLine is the flash, in its level's colour, cut to the width.
func (m model) flashLine() string {
	st := m.styles.FlashInfo
	switch m.flash.msg.Level {
	case views.FlashOK:
		st = m.styles.FlashOK
	case views.FlashError:
		st = m.styles.FlashError
	case views.FlashInfo:
	}
	text := usertext.Sanitize(m.flash.msg.Text)
	if ansi.StringWidth(text) > m.width {
		// Cut (keys first, so that the verb stays), but say where the
		// whole text is.
		text = widgets.FitMessage(text, max(m.width-15, 10)) + " (all in :log)"
	}
	return fit(st.Render(text), m.width)
}

// statusBar: database, backend, read-only badge, the rollback journal's
// mark, seq, commit rate, clock, a remote store's cost (withCost),
// refresh, last error. Below 110 columns the items get shorter; the
// database URL gets what room is left, cut from the left (its end names
// the file).
func (m model) statusBar() string {
	st := m.styles
	narrow := m.width < 110
	items, mark := m.statusBadges(narrow)
	rateAt := len(items) + 1 // after seq
	// Rows < 0: a rollback-journal file, where the refresh counts no rows
	// (each count held the live writer's lock: store.Version).
	if v := m.refresh.version; m.refresh.known && (narrow || v.Rows < 0) {
		items = append(items, fmt.Sprintf("seq %d", v.Seq))
	} else if m.refresh.known {
		items = append(items, fmt.Sprintf("seq %d · %d %s", v.Seq, v.Rows, plural(v.Rows, "row", "rows")))
	}
	if d := m.cfg.Clock.Describe(); d != "" {
		d = "clock " + d
		if narrow {
			d = strings.Replace(d, "clock fixed ", "@", 1)
		}
		items = append(items, st.Warn.Render(d))
	}
	refresh := m.refreshText()
	items = append(items, refresh)
	if m.sw.connecting != "" {
		items = append(items, st.Warn.Render("connecting to "+usertext.Sanitize(m.sw.connecting)+"…"))
	}
	if m.lastErr != "" {
		items = append(items, st.Error.Render("✗ "+usertext.Sanitize(m.lastErr)))
	}
	sep := st.StatusSep.Render(" │ ")
	items = m.withRate(items, rateAt, sep, narrow)
	items = m.withCost(items, refresh, sep, narrow)
	if mark >= 0 {
		items = m.withRollbackMark(items, mark, sep)
	}
	right := strings.Join(items, sep)
	room := max(m.width-ansi.StringWidth(right)-4, 10)
	db := usertext.Sanitize(m.storeLabel()) // the saved store's name (group), else the URL
	if n := ansi.StringWidth(db); n > room {
		db = "…" + ansi.TruncateLeft(db, n-room+1, "")
	}
	return fit(st.StatusBar.Render(" "+db+sep+right), m.width)
}

// statusBadges are the status bar's first items: the backend, then the
// badges (read-only, a restore of the past, a rollback-journal file's
// mark, whose index is mark; -1 when not marked).
func (m model) statusBadges(narrow bool) (items []string, mark int) {
	st, info := m.styles, m.info
	backend := "embedded"
	if info.Transport.Remote() {
		backend = "remote " + info.Transport.String()
	}
	items = []string{backend}
	if info.ReadOnly {
		items = append(items, st.Badge.Render(" READ-ONLY "))
	}
	if m.cfg.JournalOff && !info.ReadOnly {
		// --no-journal: the writes made now cannot be undone.
		badge := " NO JOURNAL: no undo "
		if narrow {
			badge = " NO JOURNAL "
		}
		items = append(items, st.Warn.Bold(true).Reverse(true).Render(badge))
	}
	if past := m.pastShown(); past != "" {
		// The store is a restore of its past (--at): said in the error
		// colour, reversed, so that it is never taken for the live store.
		badge := " AS OF " + usertext.Sanitize(past) + " "
		if narrow {
			badge = " PAST "
		}
		items = append(items, st.Error.Bold(true).Reverse(true).Render(badge))
	}
	mark = -1
	if info.Journal == store.JournalRollback && m.pastShown() == "" {
		// A restore of the past is kvdeck's own copy: no service commits
		// there.
		forms := rollbackMarks()
		mark, items = len(items), append(items, st.Warn.Render(forms[len(forms)-1]))
	}
	return items, mark
}

// withRate puts the commit rate into the status bar's items at index at
// (after seq), when the database name keeps its 10 cells.
func (m model) withRate(items []string, at int, sep string, narrow bool) []string {
	rate := m.rate.text(narrow, m.styles.Accent)
	if rate == "" {
		return items
	}
	at = min(at, len(items))
	with := append(append(append([]string{}, items[:at]...), rate), items[at:]...)
	if ansi.StringWidth(strings.Join(with, sep))+14 <= m.width {
		return with
	}
	return items
}

// rollbackMarks are the forms of a rollback-journal file's mark, longest
// first; ? (the help) explains it.
func rollbackMarks() []string {
	return []string{"rollback journal: reads can fail the service's commits (? explains)", "rollback journal (? explains)", "rollback journal ?"}
}

// withRollbackMark puts the longest form of the rollback journal's mark
// at items[at] that leaves the database name its width up to 20 cells;
// the shortest stays otherwise. It is one steady item, from the mode the
// store read at open (store.Info), never a flash.
func (m model) withRollbackMark(items []string, at int, sep string) []string {
	name := min(ansi.StringWidth(usertext.Sanitize(m.storeLabel())), 20)
	for _, f := range rollbackMarks() {
		with := append([]string{}, items...)
		with[at] = m.styles.Warn.Render(f)
		if ansi.StringWidth(strings.Join(with, sep))+4+name <= m.width {
			return with
		}
	}
	return items
}

// withCost puts a remote store's cost segment (cost.go) into the status
// bar's items, before the refresh state: the longest form that leaves the
// database name whole (none but the short one below 110 columns), else
// the short one where the name keeps its 10 cells, else none.
func (m model) withCost(items []string, refresh, sep string, narrow bool) []string {
	at := max(len(items)-1, 0)
	for at > 0 && items[at] != refresh {
		at--
	}
	name := ansi.StringWidth(usertext.Sanitize(m.storeLabel()))
	forms := []costForm{costLong, costNoTime, costShort}
	if narrow {
		forms = forms[2:]
	}
	for _, f := range forms {
		c := m.cost.text(m.store, f)
		if c == "" {
			return items
		}
		with := append(append(append([]string{}, items[:at]...), m.styles.Muted.Render(c)), items[at:]...)
		if f == costShort {
			name = min(name, 10)
		}
		if ansi.StringWidth(strings.Join(with, sep))+4+name <= m.width {
			return with
		}
	}
	return items
}

// refreshText is the live refresh state for the status bar. A read that
// every tick makes is the refresh working, not news: "loading…" shows
// only once a read or the tab's load has taken longer than slowLoad (over
// a slow link the bar flipped between "live 1s" and "loading…" every
// second).
func (m model) refreshText() string {
	r := m.refresh
	switch {
	case r.interval <= 0:
		return "refresh off"
	case r.paused:
		return "paused (p resumes)"
	case !m.busySince.IsZero() && m.wall().Sub(m.busySince) >= slowLoad:
		return "loading…"
	}
	return "live " + r.interval.String()
}

// slowLoad is how long a read or load runs before the status bar says
// "loading…".
const slowLoad = 1500 * time.Millisecond

// plural picks the singular or the plural for n.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// logLines is the log below its title, one screen line each.
func (m model) logLines() []string {
	text := []string{""}
	if len(m.flash.log) == 0 {
		text = append(text, m.styles.Muted.Render("No messages yet: errors and notices of this session land here, in full."))
	}
	for _, e := range m.flash.log {
		mark, st := "·", m.styles.FlashInfo
		switch e.msg.Level {
		case views.FlashOK:
			mark, st = "✓", m.styles.FlashOK
		case views.FlashError:
			mark, st = "✗", m.styles.FlashError
		case views.FlashInfo:
		}
		head := e.at.Format("15:04:05") + " " + mark + " "
		for i, l := range widgets.Wrap(e.msg.Text, max(m.width-6-ansi.StringWidth(head), 10)) {
			if i > 0 {
				head = strings.Repeat(" ", ansi.StringWidth(head))
			}
			text = append(text, m.styles.Muted.Render(head)+st.Render(l))
		}
	}
	return append(text, "", m.styles.Muted.Render(fmt.Sprintf("The last %d messages are kept. esc closes the log.", maxLog)))
}

// scrolled draws lines in a framed page under title, from line off, with
// the position in the title when they do not all fit.
func (m model) scrolled(title string, lines []string, h, off int) string {
	page := max(h-3, 1) // the frame and the title line
	off = clampHelp(off, len(lines), page)
	if len(lines) > page {
		title += fmt.Sprintf("  lines %d-%d of %d · ↑↓ pgup pgdn scroll", off+1, min(off+page, len(lines)), len(lines))
	}
	shown := append([]string{m.styles.PaneTitle.Render(title)}, lines[off:min(off+page, len(lines))]...)
	return widgets.Pane(m.styles.PaneFocused, strings.Join(shown, "\n"), m.width, h)
}

// helpLines is the whole help below its title, one screen line each.
func (m model) helpLines() []string {
	groups := append([][]key.Binding{m.keys.bindings()}, m.tabs.view(m.tab).FullHelp()...)
	notes := append(tabNotes(m.tab),
		"Every tab's keys side by side, one meaning per key: the key table in the README.",
		"Commands: "+strings.TrimPrefix(commandUsage, "commands: "),
		"Store: "+m.savedPrefix()+storeLine(m.info)+". ? or esc closes this help.")
	text := []string{""}
	if m.info.Journal == store.JournalRollback {
		// First, as the status bar's mark sends here.
		advice := "Rollback journal. " + store.RollbackAdvice(strings.TrimPrefix(m.info.Display, "file:"))
		text = append(text, widgets.ProseLines(advice, m.styles.Warn, m.width-6)...)
		text = append(text, "")
	}
	text = append(text, m.helpGrid(groups, m.width-4), "")
	for _, n := range notes {
		text = append(text, widgets.ProseLines(n, m.styles.Muted, m.width-6)...)
	}
	return strings.Split(strings.Join(text, "\n"), "\n")
}

// helpPage is how many help lines one screen shows.
func (m model) helpPage() int { return max(m.height-3-3, 1) }

// clampHelp keeps a help offset within the lines.
func clampHelp(off, n, page int) int { return max(min(off, n-page), 0) }

// scrollHelp moves the help offset for a key; the caller clamps it.
func scrollHelp(msg tea.KeyMsg, off, page int) int {
	switch msg.String() {
	case "up", "k":
		return max(off-1, 0)
	case "down", "j":
		return off + 1
	case "pgup", "ctrl+b":
		return max(off-page, 0)
	case "pgdown", "ctrl+f", " ":
		return off + page
	case "home", "g":
		return 0
	case "end", "G":
		return 1 << 20
	}
	return off
}

// scrollHelpWheel moves the help offset for the mouse wheel.
func scrollHelpWheel(msg tea.MouseMsg, off int) int {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		return max(off-3, 0)
	case tea.MouseButtonWheelDown:
		return off + 3
	}
	return off
}

// helpGrid lays the help columns out left to right, starting a new row
// of columns when the next one would not fit, so that no key is cut off.
func (m model) helpGrid(groups [][]key.Binding, w int) string {
	var rows, row []string
	used := 0
	for _, g := range groups {
		col := m.help.FullHelpView([][]key.Binding{g})
		cw := lipgloss.Width(col)
		if col == "" {
			continue
		}
		if used > 0 && used+3+cw > w {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...), "")
			row, used = nil, 0
		}
		if used > 0 {
			row = append(row, "   ")
			used += 3
		}
		row, used = append(row, col), used+cw
	}
	rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	return strings.Join(rows, "\n")
}

// storeLine describes the store for the help screen.
func storeLine(info store.Info) string {
	s := info.Display + " (embedded)"
	if info.Transport.Remote() {
		s = info.Display + " (remote, " + info.Transport.String() + ")"
	}
	if info.ReadOnly {
		s += ", read-only"
	}
	return s
}

// over draws front centred over back, which is shown dimmed (its own
// colours dropped, faint, so that it reads as the background without
// colour too): a dialog over the screen it is about, not on a blank one.
func (m model) over(back, front string, h int) string {
	w, dim := m.width, m.styles.Muted.Faint(true)
	bl := strings.Split(back, "\n")
	fl := strings.Split(front, "\n")
	fw := lipgloss.Width(front)
	x, y := max((w-fw)/2, 0), max((h-len(fl))/2, 0)
	out := make([]string, h)
	for i := range out {
		plain := ""
		if i < len(bl) {
			plain = ansi.Strip(bl[i])
		}
		plain = fit(plain, w)
		if i < y || i >= y+len(fl) {
			out[i] = dim.Render(plain)
			continue
		}
		left := ansi.Truncate(plain, x, "")
		right := ansi.TruncateLeft(plain, x+fw, "")
		out[i] = fit(dim.Render(left)+fit(fl[i-y], fw)+dim.Render(right), w)
	}
	return strings.Join(out, "\n")
}

// fit cuts or pads s to exactly w cells.
func fit(s string, w int) string { return widgets.FitWidth(s, w) }
