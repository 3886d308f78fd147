package tui

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// model is the root: tabs, global keys, help, the command line, the flash
// line, the status bar and the live refresh. It never calls the store
// itself; every store call runs in a command.
type model struct {
	cfg     Config
	store   *store.Store
	info    store.Info // read once at open: View never calls the store
	owned   bool       // opened by :open, so the root closes it
	session int        // raised by :open; answers of older sessions are dropped
	styles  themes.Styles
	keys    GlobalKeys
	input   widgets.InputKeys
	// jumpKeys are each tab's key that asks for another tab (jump.go);
	// undoKeys and finderKeys the keys of those overlays.
	jumpKeys   [numTabs]key.Binding
	undoKeys   undoKeys
	finderKeys finderKeys
	clip       func(string) error

	tab  tab
	tabs tabs
	seen [numTabs]store.Version // the store version each tab last showed
	help help.Model
	// overlays are the dialogs, prompts, lists and runs open over the
	// tabs (overlay.go): the top one takes the keys.
	overlays overlayStack
	flash    flashState
	// news marks the tabs whose news went to the log (news.go).
	news newsMarks
	// sw is the store switcher (switcher.go): the saved store shown and
	// a switch in flight.
	sw switchState
	// finds are the texts the key finder found this session, the latest
	// first (finder.go).
	finds []string
	// bulkLimits bound each commit of a bulk run (zero: the store's
	// defaults; a test sets small ones so that a small action takes
	// several commits).
	bulkLimits store.BulkLimits
	// fl is the Fleet view (fleet.go), kept while closed.
	fl fleetState
	// hist is the back stack (history.go); browseAt is the key the root
	// last sent Browse to.
	hist     history
	browseAt codec.Key

	refresh refreshState
	lastErr string
	// lockNoted is the store's LockedReadNote the flash line showed
	// (refresh.go: noteLockedReads).
	lockNoted string
	rate      commitRate       // commits per second, from the refresh's reads
	wall      func() time.Time // when a read arrived (the rate's clock)
	// busySince is when the version read or the visible tab's load in
	// flight began (zero when none is): the status bar says "loading…"
	// only for a slow one.
	busySince time.Time
	cost      costMeter // the status bar's cost segment (cost.go)
	// tm is the time machine (timemachine.go): the point of the past
	// shown by :at, and the live store beside it.
	tm timeMachine

	width, height int
}

// newModel builds the root over s.
func newModel(s *store.Store, cfg Config, st themes.Styles, clip func(string) error) model {
	if cfg.Refresh <= 0 {
		cfg.Refresh = time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = store.NewVirtualClock(s.Now)
	}
	m := model{
		cfg: cfg, store: s, info: s.Info(), session: 1, styles: st, clip: clip,
		keys:       DefaultGlobalKeys(),
		jumpKeys:   jumpKeys(),
		undoKeys:   defaultUndoKeys(),
		finderKeys: defaultFinderKeys(),
		input:      widgets.DefaultInputKeys(),
		help:       help.New(),
		refresh:    refreshState{interval: cfg.Refresh, clock: true}, // Init arms the clock tick
		rate:       newCommitRate(),
		wall:       time.Now,
	}
	m.help.Styles = help.Styles{
		ShortKey: st.HelpKey, ShortDesc: st.HelpDesc, ShortSeparator: st.HelpSep,
		FullKey: st.HelpKey, FullDesc: st.HelpDesc, FullSeparator: st.HelpSep, Ellipsis: st.HelpSep,
	}
	m.sw.current = cfg.Current
	if cfg.FleetGroup != "" {
		m.tab = tabAlarms // --fleet: the most overdue alarm of the fleet first
	}
	m.tabs = newTabs(m.deps(), st)
	m.focusTab()
	m.keys.Undo.SetEnabled(m.undoKeyOn())
	return m
}

// deps is what the views get.
func (m model) deps() views.Deps {
	var open func(context.Context) (*store.Store, error)
	cfgOpen := m.cfg.OpenWorkload // the Race tab's workers: not journaled, as kvdeck race
	if cfgOpen == nil {
		cfgOpen = m.cfg.Open
	}
	if cfgOpen != nil {
		// Another connection to the database shown: its URL (Display holds
		// no secret; the token comes with main's options).
		url := m.info.Display
		open = func(ctx context.Context) (*store.Store, error) { return cfgOpen(ctx, url) }
	}
	var live *store.Store
	if m.tm.past != nil {
		// A point of the past: no workload on its restore; Browse shows
		// each key now too.
		open, live = nil, m.tm.live
	}
	return views.Deps{Store: m.store, Now: m.cfg.Clock.Now, Clipboard: m.clip, Session: m.session, Open: open, Edits: m.cfg.Edits, Live: live, StateDir: m.cfg.StateDir, Fleet: m.members()}
}

// Init starts the views, reads the store version and arms the ticks.
func (m model) Init() tea.Cmd {
	return tea.Batch(m.tabs.init(m.tab), readVersion(m.store, m.session), tickAfter(m.refresh.interval, m.refresh.gen, nil), secondTick())
}

// Update routes a message: keys through the overlays, the root's own
// messages to their handlers, everything else to every view. Keys held
// while a jump was in flight are replayed once it has landed.
func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	gen := 0 // the key whose commands' answers the cost meter follows
	switch a := msg.(type) {
	case tea.KeyMsg:
		if !m.info.Transport.Remote() {
			break // a file store costs no requests
		}
		m.cost.pressed(m.store, m.wall())
		gen = m.cost.gen
	case keyAnswer:
		msg = a.msg
		switch a.msg.(type) {
		case refreshTick, flashExpired, clockTick: // timers, not answers
		default:
			m.cost.answered(a.gen, m.store, m.wall())
		}
	}
	next, cmd := m.update(msg)
	next.noteBusy()
	next, cmd = next.settleJump(cmd)
	if gen != 0 {
		cmd = trackKey(cmd, gen)
	}
	return next, cmd
}

// noteBusy keeps busySince: when the version read or the visible tab's
// load began, zero when neither is in flight.
func (m *model) noteBusy() {
	switch busy := m.refresh.reading || m.tabs.view(m.tab).Busy(); {
	case !busy:
		m.busySince = time.Time{}
	case m.busySince.IsZero():
		m.busySince = m.wall()
	}
}

// update routes one message: the screen's own, then those that move
// between places and stores; any other is an answer to a view (the
// Fleet's once built, every tab's).
func (m model) update(msg tea.Msg) (model, tea.Cmd) {
	if next, cmd, ok := m.updateScreen(msg); ok {
		return next, cmd
	}
	if next, cmd, ok := m.updateStore(msg); ok {
		return next, cmd
	}
	fl := m.fleetUpdate(msg)
	out := m.tabs.updateAll(msg, m.tab)
	return m, tea.Batch(fl, out)
}

// updateScreen takes the messages of the screen itself: the terminal's
// (size, keys, mouse), the clocks', the flash line's and the dialogs';
// ok is false for any other message.
func (m model) updateScreen(msg tea.Msg) (next model, cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case overlayAnswer:
		next, cmd = m.deliver(msg)
	case tea.WindowSizeMsg:
		m.setSize(msg.Width, msg.Height)
		next = m
	case tea.KeyMsg:
		next, cmd = m.handleKey(msg)
		next = next.takeBrowsePlaces()
	case tea.MouseMsg:
		next, cmd = m.handleMouse(msg)
	case refreshTick:
		tm, tick := m.onTick(msg)
		next, cmd = tm.(model), tea.Batch(tick, m.fleetTick(msg))
	case versionRead:
		tm, c := m.onVersion(msg)
		next, cmd = tm.(model), c
	case clockTick:
		next, cmd = m, m.refresh.onClock() // re-rendering is the point: countdowns move
	case flashExpired:
		m.flash.expire(msg)
		next = m
	case views.FlashMsg:
		cmd = m.flash.show(msg)
		next = m
	case tabNews:
		next, cmd = m.onNews(msg)
	case views.ConfirmMsg:
		m.ask(msg, false)
		next = m
	default:
		return m, nil, false
	}
	return next, cmd, true
}

// updateStore takes the messages that move between places and stores:
// a tab's hand-over to another (compose, goto, a record, a key's
// history, the bulk menu, a fleet row's store), store opens and
// switches, the past and its put-back; ok is false for any other
// message.
func (m model) updateStore(msg tea.Msg) (next model, cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case views.ComposeMsg:
		// "Compose from here": show the Compose tab with the staged ops.
		sw := m.switchTab(tabCompose)
		var staged tea.Cmd
		m.tabs.compose, staged = m.tabs.compose.Update(msg)
		next, cmd = m, tea.Batch(sw, staged)
	case views.GotoMsg:
		// A lease, alarm or queue row's raw key, in Browse.
		next, cmd = m.gotoKey(msg.Key)
	case views.ShowRecordMsg:
		next, cmd = m.showRecord(msg.Key)
	case views.OpenInStoreMsg:
		next, cmd = m.openInStore(msg)
	case storeOpened:
		next, cmd = m.onOpened(msg)
	case storeSwitched:
		next, cmd = m.onSwitched(msg)
	case pastOpened:
		next, cmd = m.onPastOpened(msg)
	case views.PutBackMsg:
		next, cmd = m.putBack(msg)
	case putBackPlanned:
		next, cmd = m.onPutBackPlanned(msg)
	case putBackDone:
		next, cmd = m.onPutBackDone(msg)
	case views.KeyHistoryMsg:
		next, cmd = m.openKeyHistory(msg)
	case views.BulkMsg, bulkStart, bulkCopied:
		next, cmd = m.onBulkMsg(msg)
	default:
		return m, nil, false
	}
	return next, cmd, true
}

// handleKey: ctrl+c quits (asking first while work is held, quit.go);
// then the overlays, top first (overlay.go: a dialog, a run, a menu, a
// jump in flight holding every key but q, help, a list, the command
// line); then a view's text input; then the global keys; then the
// focused view.
func (m model) handleKey(msg tea.KeyMsg) (model, tea.Cmd) {
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		return m.splitRunes(msg)
	}
	if key.Matches(msg, m.keys.ForceQuit) {
		return m.forceQuit()
	}
	if next, cmd, ok := m.overlayKey(msg); ok {
		return next, cmd
	}
	if v := m.tabs.view(m.tab); v.Capturing() || keeps(v, msg) {
		out := m.tabs.update(m.tab, msg)
		return m, out
	}
	return m.handleGlobalKey(msg)
}

// keeper is a view with a screen of its own that keeps a key the root
// would take (Browse's value reader: q goes back to the tree, as it
// closes the undo list, while the other global keys stay global).
type keeper interface{ Keeps(tea.KeyMsg) bool }

// keeps reports whether v keeps msg from the global keys.
func keeps(v tabView, msg tea.KeyMsg) bool {
	k, ok := v.(keeper)
	return ok && k.Keeps(msg)
}

// handleGlobalKey: the global keys, else the focused view's (a jump key
// waits for its target tab).
func (m model) handleGlobalKey(msg tea.KeyMsg) (model, tea.Cmd) {
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, m.keys.Quit):
		cmd = m.quit()
	case key.Matches(msg, m.keys.Help):
		m.overlays.put(&textScreen{})
	case key.Matches(msg, m.keys.Command):
		cmd = m.openCommandLine()
	case key.Matches(msg, m.keys.Pause):
		cmd = m.togglePause()
	case key.Matches(msg, enabled(m.keys.Undo)):
		// Matched whether or not it is enabled: when off, z says why.
		return m.openUndo()
	case key.Matches(msg, m.keys.Stores):
		return m.openPicker()
	case key.Matches(msg, m.keys.Find):
		return m.openFinder("")
	case key.Matches(msg, m.keys.Fleet), m.backToFleet(msg):
		return m.openFleet()
	case key.Matches(msg, m.keys.Back, m.keys.Forward):
		return m.travel(key.Matches(msg, m.keys.Back))
	case key.Matches(msg, m.keys.Tab):
		cmd = m.switchTab(tab(msg.Runes[0] - '1'))
	case key.Matches(msg, m.keys.NextTab):
		cmd = m.switchTab((m.tab + 1) % numTabs)
	case key.Matches(msg, m.keys.PrevTab):
		cmd = m.switchTab((m.tab + numTabs - 1) % numTabs)
	case key.Matches(msg, m.jumpKeys[m.tab]):
		cmd = m.awaitJump(m.tabs.update(m.tab, msg))
	default:
		cmd = m.tabs.update(m.tab, msg)
	}
	return m, cmd
}

// enabled is b switched on, to match a key whose refusal must be said.
func enabled(b key.Binding) key.Binding {
	b.SetEnabled(true)
	return b
}

// splitRunes handles keys that arrived in one read (fast typing, key
// repeat, a script) one by one: bubbletea delivers them as one message,
// which would match no binding.
func (m model) splitRunes(msg tea.KeyMsg) (model, tea.Cmd) {
	cmds := make([]tea.Cmd, 0, len(msg.Runes))
	next := m
	for _, r := range msg.Runes {
		var cmd tea.Cmd
		next, cmd = next.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
		cmds = append(cmds, cmd)
	}
	return next, tea.Batch(cmds...)
}

// handleMouse gives the mouse to the overlays, top first; one that
// does not take it lets it through: a click on a tab's label shows that
// tab, and wheel and clicks on the body go to the focused view, in the
// view's coordinates.
func (m model) handleMouse(msg tea.MouseMsg) (model, tea.Cmd) {
	if next, cmd, ok := m.overlayMouse(msg); ok {
		return next, cmd
	}
	if msg.Y == 0 && msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress {
		if t, ok := m.tabAt(msg.X); ok {
			return m, m.switchTab(t)
		}
		return m, nil
	}
	if msg.Y < 1 || msg.Y >= m.height-2 {
		return m, nil
	}
	msg.Y--
	out := m.tabs.update(m.tab, msg)
	return m, out
}

// switchTab focuses tab t, refreshing it when the store changed since it
// last showed.
func (m *model) switchTab(t tab) tea.Cmd {
	if t == m.tab {
		return nil
	}
	m.tabs.view(m.tab).Blur()
	m.tab = t
	m.news.clear(t)
	m.tabs.view(t).Focus()
	if start := m.tabs.show(t); start != nil {
		m.seen[t] = m.refresh.version // its first load reads what is there now
		return start
	}
	if m.refresh.known && m.seen[t] != m.refresh.version {
		m.seen[t] = m.refresh.version
		return m.tabs.refresh(t)
	}
	return nil
}

// focusTab gives the tab shown the keys, and no other tab (new views
// start with Browse's focused).
func (m *model) focusTab() {
	for t := range numTabs {
		if t != m.tab {
			m.tabs.view(t).Blur()
		}
	}
	m.tabs.view(m.tab).Focus()
}

// setSize lays the screen out: tab bar, body, flash line, status bar.
func (m *model) setSize(w, h int) {
	m.width, m.height = w, h
	body := max(h-3, 1)
	for t := range numTabs {
		m.tabs.view(t).SetSize(w, body)
	}
}

// showRecord shows the coordination tab of a dwk_* key: Leases (with the
// row selected), Alarms or Queues.
func (m model) showRecord(k codec.Key) (model, tea.Cmd) {
	t, ok := recordTab(k)
	if !ok {
		out := m.flash.show(notRecord(k))
		return m, out
	}
	m.hist.push(m.here())
	cmd := m.switchTab(t)
	tabTable[t].selectRecord(&m.tabs, k)
	return m, cmd
}
