package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	kvhist "kvdeck/internal/history"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// A key's history (Browse's H): the key's row at the first restore point
// and at each point where it changed (kvhist.Machine.KeyChanges: a
// recording's versions, or a bisection that restores as few points as
// it can, at most keyHistoryReads), with how many points were read, the
// source, and what the source cannot know. The cursor's row is diffed
// against the pinned one (space; unpinned: the change before it), and r
// puts the cursor's row back in the live store as Browse's P does.

// keyHistoryState is the overlay.
type keyHistoryState struct {
	opaque
	gen      int
	of       codec.Key
	raw      []byte
	loading  bool
	err      error
	res      kvhist.KeyHistoryResult
	restored bool
	points   []kvhist.Point
	src      kvhist.Source
	cursor   int
	pin      int // the change the cursor is diffed against; -1: the one before it
}

// keyHistoryKeys are the overlay's keys.
type keyHistoryKeys struct {
	Nav                 widgets.NavKeys
	Pin, Restore, Close key.Binding
}

func defaultKeyHistoryKeys() keyHistoryKeys {
	return keyHistoryKeys{
		Nav:     widgets.DefaultNavKeys(),
		Pin:     key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pin: diff the others against it (again: unpin)")),
		Restore: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "put this row back now (asks)")),
		Close:   key.NewBinding(key.WithKeys("esc", "q", "H"), key.WithHelp("esc", "close")),
	}
}

// keyHistoryRead answers the overlay's read.
type keyHistoryRead struct {
	gen      int
	machine  *kvhist.Machine
	src      kvhist.Source
	points   []kvhist.Point
	res      kvhist.KeyHistoryResult
	restored bool
	err      error
}

func (a keyHistoryRead) overlayGen() int { return a.gen }

// orphaned keeps the machine made for a history closed before it came.
// It sends nothing, but has overlayAnswer's shape.
func (a keyHistoryRead) orphaned(m model) (model, tea.Cmd) { //nolint:unparam // overlayAnswer's method
	if a.machine != nil && m.tm.machine == nil && !m.tm.other {
		m.tm.machine = a.machine
	}
	return m, nil
}

func (*keyHistoryState) layer() layer { return layerKeyHistory }

func (*keyHistoryState) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handleKeyHistory(msg))
}

func (o *keyHistoryState) draw(m model, body string, h int) string {
	return m.keyHistoryView(o, body, h)
}

func (*keyHistoryState) help(model) ([]key.Binding, bool) {
	k := defaultKeyHistoryKeys()
	return []key.Binding{k.Nav.Up, k.Nav.Down, k.Pin, k.Restore, k.Close}, true
}

func (o *keyHistoryState) generation() int { return o.gen }

func (o *keyHistoryState) answer(m model, msg tea.Msg) (model, tea.Cmd) {
	return answerWith(m, msg, func(m model, a keyHistoryRead) (model, tea.Cmd) {
		m, _ = a.orphaned(m)
		n := *o
		n.loading, n.err, n.res, n.restored, n.points, n.src = false, a.err, a.res, a.restored, a.points, a.src
		n.cursor = max(len(a.res.Changes)-1, 0)
		m.overlays.put(&n)
		return m, nil
	})
}

// openKeyHistory opens the overlay on msg's key and reads its history
// in a command.
func (m model) openKeyHistory(msg views.KeyHistoryMsg) (model, tea.Cmd) {
	switch {
	case m.cfg.Past != "":
		return m, views.Flash(views.FlashError, "H: this session shows the point --at opened; kvdeck history KEY lists a key's history")
	case m.tm.other:
		return m, views.Flash(views.FlashError, "H reads the past of the store kvdeck started on; start kvdeck on this one to see its keys' history")
	}
	o := &keyHistoryState{gen: m.overlays.newGen(), of: msg.Key, raw: msg.Raw, loading: true, pin: -1}
	m.overlays.put(o)
	gen, made, make, raw := o.gen, m.tm.machine, m.cfg.TimeMachine, msg.Raw
	return m, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
		defer cancel()
		mach, err := machineOf(ctx, made, make)
		if err != nil {
			return keyHistoryRead{gen: gen, err: err}
		}
		out := keyHistoryRead{gen: gen, machine: mach, src: mach.Source}
		if kvhist.Continuous(mach.Source) {
			out.err = fmt.Errorf("%s restores any instant and lists no points: :at TIME opens one", mach.Source.Describe())
			return out
		}
		if out.points, out.err = mach.Source.Points(ctx); out.err != nil {
			return out
		}
		out.res, out.restored, out.err = mach.KeyChanges(ctx, out.points, raw, keyHistoryReads)
		return out
	}
}

// keyHistory is the overlay open, nil when none is.
func (m model) keyHistory() *keyHistoryState { return opened[*keyHistoryState](m.overlays) }

// handleKeyHistory handles the overlay's keys.
func (m model) handleKeyHistory(msg tea.KeyMsg) (model, tea.Cmd) {
	o, k := *m.keyHistory(), defaultKeyHistoryKeys()
	n := len(o.res.Changes)
	switch cur, moved := k.Nav.UpDown(msg, o.cursor, n); {
	case key.Matches(msg, k.Close):
		m.overlays.drop(layerKeyHistory)
		return m, nil
	case moved:
		o.cursor = cur
	case key.Matches(msg, k.Pin) && n > 0:
		if o.pin == o.cursor {
			o.pin = -1
		} else {
			o.pin = o.cursor
		}
	case key.Matches(msg, k.Restore) && n > 0:
		return m.restoreChange(o)
	}
	m.overlays.put(&o)
	return m, nil
}

// restoreChange plans putting the cursor's row back in the live store
// (asked first, as P).
func (m model) restoreChange(o keyHistoryState) (model, tea.Cmd) {
	live := m.writeStore()
	if live.ReadOnly() {
		return m, views.Flash(views.FlashError, "r puts the row back in the live store, which is open read-only")
	}
	ch := o.res.Changes[o.cursor]
	label := ch.Point.Label(o.src.Kind()) + " · " + usertext.FormatTimeFixed(ch.Point.At)
	return m, planPutBack(live, label, [][]byte{o.raw}, []*store.RawRow{ch.Row})
}

// keyHistoryView draws the overlay: the changes, then the diff of the
// cursor's row against the pinned one.
func (m model) keyHistoryView(o *keyHistoryState, back string, h int) string {
	st := m.styles
	w := min(max(m.width-4, 20), 110)
	inner := w - 4
	title := st.PaneTitle.Render("HISTORY") + " " + fit(usertext.Sanitize(codec.Format(o.of)), inner-8)
	lines := []string{title}
	switch {
	case o.loading:
		lines = append(lines, st.Muted.Render(fit("reading its history across the restore points (each read restores one)…", inner)))
	case o.err != nil:
		lines = append(lines, widgetsProse(st.Error, "✗ "+o.err.Error(), inner)...)
	default:
		lines = append(lines, m.keyHistoryLines(o, inner, h)...)
	}
	box := st.PaneFocused.Width(w - 2).Render(strings.Join(lines, "\n"))
	return m.over(back, box, h)
}

// keyHistoryLines are the overlay's body once read.
func (m model) keyHistoryLines(o *keyHistoryState, inner, h int) []string {
	st, kind, res := m.styles, o.src.Kind(), o.res
	read := fmt.Sprintf("%d of %d points restored", res.Reads, res.Of)
	if !o.restored {
		read = fmt.Sprintf("none of %d points restored (a recording holds each version it saw)", res.Of)
	}
	lines := capLines(widgetsProse(st.Muted, fmt.Sprintf("%s · %s · %s", keysStates(len(res.Changes)), read, o.src.Describe()), inner), 2, inner)
	lines = append(lines, capLines(widgetsProse(st.Muted, "cannot know: "+o.src.Limits(), inner), max(h/10, 1), inner)...)
	for _, u := range res.Unread {
		text := fmt.Sprintf("not read: %s to %s (%d points): the key may have changed between them", o.points[u.First].Label(kind), o.points[u.Last].Label(kind), u.Last-u.First-1)
		lines = append(lines, st.Warn.Render(fit(text, inner)))
	}
	lines = append(lines, "")
	// The list takes at most half of what is left in the box (its
	// border, the title, a blank and the diff's label); the diff the rest.
	page := max(min(len(res.Changes), (h-len(lines)-5)/2), 1)
	from, to := widgets.Centered(o.cursor, len(res.Changes), page)
	for i := from; i < to; i++ {
		ch := res.Changes[i]
		mark := listMark(i == o.cursor, i == o.pin, "◆")
		line := fmt.Sprintf("%s %-10s %s  %s", mark, ch.Point.Label(kind), usertext.FormatTimeFixed(ch.Point.At), rowText(ch.Row))
		if ch.After >= 0 && ch.After != ch.Index-1 {
			line += fmt.Sprintf("  (after %s)", o.points[ch.After].Label(kind))
		}
		line = fit(line, inner)
		if i == o.cursor {
			line = st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	if len(res.Changes) == 0 {
		return append(lines, st.Muted.Render("no point holds it"))
	}
	return append(append(lines, ""), m.keyHistoryDiff(o, inner, max(h-len(lines)-5, 1))...)
}

// keyHistoryDiff is the cursor's row against the pinned one (unpinned:
// the change before it).
func (m model) keyHistoryDiff(o *keyHistoryState, inner, n int) []string {
	st, kind := m.styles, o.src.Kind()
	from := o.pin
	if from < 0 || from == o.cursor {
		from = o.cursor - 1
	}
	if from < 0 {
		return []string{st.Muted.Render(fit("the first state read: ↓ or space picks another to compare", inner))}
	}
	a, b := o.res.Changes[from], o.res.Changes[o.cursor]
	out := []string{st.Label.Render(fit(fmt.Sprintf("%s → %s", a.Point.Label(kind), b.Point.Label(kind)), inner))}
	switch {
	case a.Row == nil || b.Row == nil:
		return append(out, fit(rowText(a.Row)+"  →  "+rowText(b.Row), inner))
	}
	for _, l := range widgets.DiffLines(st, widgets.NewValueDiff(a.Row.Value, b.Row.Value), inner, n) {
		out = append(out, l.Render(false))
	}
	return out
}

// keysStates is "1 state", "4 states".
func keysStates(n int) string {
	if n == 1 {
		return "1 state"
	}
	return fmt.Sprintf("%d states", n)
}

// widgetsProse wraps text in one style to w cells.
func widgetsProse(style lipgloss.Style, text string, w int) []string {
	return widgets.ProseLines(usertext.Sanitize(text), style, w)
}

// capLines keeps at most n of lines, the last ending in an ellipsis when
// some are left out: a small screen keeps its rows for the list.
func capLines(lines []string, n, w int) []string {
	if len(lines) <= n {
		return lines
	}
	lines = lines[:n]
	lines[n-1] = fit(lines[n-1]+" …", w)
	return lines
}
