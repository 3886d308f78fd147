package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/internal/tuiconfig"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// The store switcher: :store NAME, or the picker (O,
// or :store alone), opens a saved store in place of the one shown,
// keeping the tab. The open runs in a command (Config.OpenStore: the
// store's own token, read-only as saved, its own write journal) while
// the status bar says "connecting to NAME…"; on success onOpened swaps
// every view onto it under a new session (answers of the old store are
// dropped), on failure the old store stays and the error names the one
// that failed.

// switchState is the switcher's part of the root.
type switchState struct {
	current    tuiconfig.SavedStore // the saved store shown; zero after :open URL
	connecting string               // the store being opened, "" when none
	gen        int                  // tags the opens; older answers are dropped
}

// pickerState is the picker, an overlay (overlay.go), while it is open.
type pickerState struct {
	opaque
	gen     int // tags its listing
	loading bool
	stores  []tuiconfig.SavedStore
	err     error
	cursor  int
}

// pickerKeys are the picker's keys: up and down as in every list.
type pickerKeys struct {
	Nav           widgets.NavKeys
	Switch, Close key.Binding
}

func defaultPickerKeys() pickerKeys {
	return pickerKeys{
		Nav:    widgets.DefaultNavKeys(),
		Switch: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "switch to it")),
		Close:  key.NewBinding(key.WithKeys("esc", "q", "O"), key.WithHelp("esc", "close")),
	}
}

func (*pickerState) layer() layer { return layerPicker }

func (*pickerState) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handlePicker(msg))
}

func (p *pickerState) draw(m model, body string, h int) string { return m.pickerView(body, h) }

func (*pickerState) help(model) ([]key.Binding, bool) { return pickerHelp(), true }

func (p *pickerState) generation() int { return p.gen }

// answer takes the saved stores read.
func (p *pickerState) answer(m model, msg tea.Msg) (model, tea.Cmd) {
	if l, ok := msg.(storesListed); ok {
		p.loading, p.stores, p.err = false, l.stores, l.err
		p.cursor = 0
		for i, st := range l.stores {
			if st.Name == m.sw.current.Name {
				p.cursor = i
			}
		}
	}
	return m, nil
}

// picker is the picker open, nil when none is.
func (m model) picker() *pickerState { return opened[*pickerState](m.overlays) }

// Answers of the switcher's commands: the picker's listing, tagged with
// the picker's generation; an open, tagged with the switcher's.
type (
	storesListed struct {
		gen    int
		stores []tuiconfig.SavedStore
		err    error
	}
	storeSwitched struct {
		gen   int
		name  string
		entry tuiconfig.SavedStore
		s     *store.Store
		err   error
	}
)

func (a storesListed) overlayGen() int { return a.gen }

// listStores reads the saved stores (config.toml) in a command.
func listStores(list func() ([]tuiconfig.SavedStore, error), gen int) tea.Cmd {
	return func() tea.Msg {
		stores, err := list()
		return storesListed{gen: gen, stores: stores, err: err}
	}
}

// openSaved opens the saved store name in a command.
func openSaved(open func(context.Context, string) (*store.Store, tuiconfig.SavedStore, error), name string, gen int) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		s, entry, err := open(ctx, name)
		return storeSwitched{gen: gen, name: name, entry: entry, s: s, err: err}
	}
}

// openPicker opens the picker and lists the saved stores.
func (m model) openPicker() (model, tea.Cmd) {
	if m.cfg.Stores == nil || m.cfg.OpenStore == nil {
		return m, views.Flash(views.FlashError, "no saved stores here (kvdeck stores add NAME URL saves one)")
	}
	p := &pickerState{gen: m.overlays.newGen(), loading: true}
	m.overlays.put(p)
	return m, listStores(m.cfg.Stores, p.gen)
}

// switchStore starts opening the saved store name.
func (m model) switchStore(name string) (model, tea.Cmd) {
	if m.cfg.OpenStore == nil {
		return m, views.Flash(views.FlashError, ":store is not available here")
	}
	m.sw.gen++
	m.sw.connecting = name
	// The note is shown now, not by a command: a command could land
	// after a fast failure and hide its error.
	note := m.flash.show(views.FlashMsg{Level: views.FlashInfo, Text: fmt.Sprintf("connecting to %s…", name)})
	return m, tea.Batch(openSaved(m.cfg.OpenStore, name, m.sw.gen), note)
}

// onSwitched takes an open's answer: the store it opened is shown, or
// the error says which store failed.
func (m model) onSwitched(msg storeSwitched) (model, tea.Cmd) {
	if msg.gen != m.sw.gen {
		// A switch asked for later won: this one is not shown.
		if msg.s != nil {
			return m, closeStore(msg.s)
		}
		return m, nil
	}
	m.sw.connecting = ""
	m = m.fleetSwitched(msg)
	if msg.err != nil {
		still := m.storeLabel()
		out := m.flash.show(views.FlashMsg{Level: views.FlashError,
			Text: fmt.Sprintf("cannot switch to store %s (still on %s): %v", msg.name, still, msg.err)})
		return m, out
	}
	nm, cmd := m.onOpened(storeOpened{url: msg.entry.URL, s: msg.s})
	nm.sw.current = msg.entry
	nm = nm.afterSwitch(msg.name)
	text := "switched to store " + nm.storeLabel()
	if nm.info.ReadOnly {
		text += " (read-only)"
	}
	return nm, tea.Batch(cmd, nm.flash.show(views.FlashMsg{Level: views.FlashOK, Text: text}))
}

// handlePicker handles keys while the picker is open.
func (m model) handlePicker(msg tea.KeyMsg) (model, tea.Cmd) {
	p, k := m.picker(), defaultPickerKeys()
	switch cur, moved := k.Nav.UpDown(msg, p.cursor, len(p.stores)); {
	case key.Matches(msg, k.Close):
		m.overlays.drop(layerPicker)
	case moved:
		p.cursor = cur
	case key.Matches(msg, k.Switch) && len(p.stores) > 0:
		m.overlays.drop(layerPicker)
		return m.switchStore(p.stores[p.cursor].Name)
	}
	return m, nil
}

// storeLabel names the store shown: the saved store's name and group,
// else its URL (store.Info.Display holds no secret).
func (m model) storeLabel() string {
	c := m.sw.current
	switch {
	case m.pastShown() != "" && m.cfg.PastOf != "":
		return m.cfg.PastOf
	case c.Name == "" && m.tm.past != nil:
		return m.tm.liveInfo.Display
	case c.Name == "":
		return m.info.Display
	case c.Group == "":
		return c.Name
	}
	return c.Name + " (" + c.Group + ")"
}

// pickerHelp are the picker's keys for the message line.
func pickerHelp() []key.Binding {
	k := defaultPickerKeys()
	return []key.Binding{k.Nav.Up, k.Nav.Down, k.Switch, k.Close}
}

// listMark is the mark before a row of a picker's list: › on the
// cursor's row (it shows without colour too), then sign on the row it
// marks (the one shown, the one pinned), else blanks as wide.
func listMark(cursor, marked bool, sign string) string {
	mark := " "
	if cursor {
		mark = "›"
	}
	if marked {
		return mark + sign
	}
	return mark + strings.Repeat(" ", ansi.StringWidth(sign))
}

// pickerView draws the picker: one line per saved store, the one shown
// marked, in a pane over the dimmed screen.
func (m model) pickerView(back string, h int) string {
	p, st := m.picker(), m.styles
	w := min(max(m.width-4, 20), 100)
	inner := w - 4 // the pane's border and padding
	lines := []string{st.PaneTitle.Render("STORES") + st.Muted.Render(" · saved in config.toml · the tab stays"), ""}
	switch {
	case p.loading:
		lines = append(lines, st.Muted.Render("reading the saved stores…"))
	case p.err != nil:
		lines = append(lines, st.Error.Render(fit(usertext.Sanitize(p.err.Error()), inner)))
	case len(p.stores) == 0:
		lines = append(lines, st.Muted.Render("No saved store: kvdeck stores add NAME URL saves one."))
	}
	nameW, groupW := 4, 5
	for _, s := range p.stores {
		nameW = max(nameW, ansi.StringWidth(usertext.Sanitize(s.Name)))
		groupW = max(groupW, ansi.StringWidth(usertext.Sanitize(s.Group)))
	}
	nameW, groupW = min(nameW, 24), min(groupW, 16)
	if len(p.stores) > 0 {
		lines = append(lines, st.Label.Render(fit(fmt.Sprintf("   %-*s  %-*s  %-9s  %s", nameW, "NAME", groupW, "GROUP", "MODE", "URL"), inner)))
	}
	page := max(h-len(lines)-4, 1)
	from, to := widgets.Centered(p.cursor, len(p.stores), page)
	for i := from; i < to; i++ {
		s := p.stores[i]
		// The cursor shows without colour too (›); ● is the store shown.
		mark := listMark(i == p.cursor, s.Name == m.sw.current.Name && m.sw.current.Name != "", "● ")
		mode := "writable"
		if s.ReadOnly {
			mode = "read-only"
		}
		line := mark + fit(usertext.Sanitize(s.Name), nameW) + "  " + fit(usertext.Sanitize(s.Group), groupW) + "  " +
			fit(mode, 9) + "  " + usertext.Sanitize(store.RedactURL(s.URL))
		line = fit(line, inner)
		if i == p.cursor {
			line = st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	box := st.PaneFocused.Width(w - 2).Render(strings.Join(lines, "\n"))
	return m.over(back, box, h)
}

// readOnlyWhy says why a saved store shown is read-only: saved so (the
// default), or the whole session is, by --read-only.
func (m model) readOnlyWhy() string {
	return fmt.Sprintf("store %s is read-only (saved so, unless kvdeck was started with --write; or --read-only was given)", usertext.Sanitize(m.sw.current.Name))
}

// savedPrefix names the saved store shown for the help screen's store
// line ("prod-eu (prod): "), "" when it was opened by URL.
func (m model) savedPrefix() string {
	if m.sw.current.Name == "" {
		return ""
	}
	return usertext.Sanitize(m.storeLabel()) + ": "
}

// pastShown names the point of the store's past the TUI shows (--at),
// "" once another store was opened (:open, :store) or for the live store.
func (m model) pastShown() string {
	if m.tm.past != nil {
		return m.pastLabel()
	}
	if m.owned || m.tm.other {
		return ""
	}
	return m.cfg.Past
}
