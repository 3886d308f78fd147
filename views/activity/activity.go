// Package activity is the Activity tab: a live feed of the store's writes
// in versionstamp order (read through store.Changes only when the store
// moved, bounded), with the rows that vanished from what kvdeck had read
// said as deletions or expiries, a mark that pins a point, a prefix
// filter, and enter to show a key in Browse.
package activity

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/changefeed"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Keys are the Activity view's key bindings.
type Keys struct {
	widgets.NavKeys
	Browse key.Binding // the selected key in Browse
	Mark   key.Binding // pin a point: show what changed since
	Filter key.Binding // limit the feed to a key prefix
	Clear  key.Binding // clear the filter, then the mark
	Reload key.Binding
	Marks  widgets.MarkKeys // space, ctrl+a, B (bulk.go)
}

// DefaultKeys returns the Activity view's default key bindings.
func DefaultKeys() Keys {
	return Keys{
		NavKeys: widgets.DefaultNavKeys(),
		Browse:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "the key in Browse")),
		Mark:    key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "since-mark: show only what changes from now on")),
		Filter:  key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter: a word in the key, or a key prefix")),
		Clear:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear the filter, then the mark")),
		Reload:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "read the feed now")),
		Marks:   widgets.DefaultMarkKeys(),
	}
}

// mark is a pinned point of the feed.
type mark struct {
	n  int   // events from n on are after it
	at int64 // the clock when it was set
	// seq is where the feed had read to.
	seq int64
}

// Model is the Activity tab.
type Model struct {
	deps views.Deps
	// odd counts the rows with a malformed stamp when the tab opened
	// (store.OddStamps), said under the list; -1: not known.
	odd     int64
	styles  themes.Styles
	keys    Keys
	input   widgets.InputKeys
	focused bool
	width   int
	height  int

	f       feed
	gen     int
	loading bool
	err     error
	behind  bool          // the last refresh stopped after pagesPerRefresh pages: a tick reads on
	endedAt store.Version // seq and rows where the last refresh ended

	// pinned: the user moved the cursor, which keeps its event as newer
	// ones arrive above it; else the list follows the newest event.
	pinned bool
	// While following, read is the event the cursor was on before the
	// newest arrived (at movedAt, wall clock): an enter within followGrace
	// of the move acts on it, the row the user was reading.
	read    int
	movedAt time.Time

	mark      *mark
	filter    codec.Key // shown: keys under it (a text starting with [)
	filterTxt string    // the filter in force; a plain word matches key texts
	filtering bool
	filterIn  textinput.Model
	filterErr string
	before    struct { // the filter in force when / was pressed (esc puts it back)
		filter codec.Key
		text   string
	}

	list widgets.ListCursor // over the shown events, newest first; id: event n

	diffs *diffMemo // the detail's diff of the selected event, made once

	marks widgets.Marks // the keys marked for a bulk action (bulk.go)

	tune tuning // bounds and clocks; New sets the tab's, tests their own
}

// tuning holds what the tab reads its feed with and measures a reader's
// reaction on: New sets the values the tab runs with (defaultTuning); a
// test sets its own on its model (shorter paces, smaller pages, a wall
// clock it moves).
type tuning struct {
	// pageRows bounds one read of the feed (readFeed's page).
	pageRows int
	// walkPace is how often a paced walk, a recheck or a backlog goes on
	// without a refresh.
	walkPace time.Duration
	// followGrace is how long after the newest event took the cursor an
	// enter still acts on the row the user was reading.
	followGrace time.Duration
	// wallNow is the wall clock (what a reader's reaction is measured on).
	wallNow func() time.Time
}

// New returns the Activity view over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	return Model{
		deps: deps, styles: styles, keys: DefaultKeys(), input: widgets.DefaultInputKeys(),
		filterIn: widgets.NewInput("/", filterHint, styles),
		diffs:    &diffMemo{},
		f:        newFeed(),
		tune:     defaultTuning(),
	}
}

// defaultTuning is the tuning the tab runs with.
func defaultTuning() tuning {
	return tuning{pageRows: 200, walkPace: time.Second, followGrace: time.Second, wallNow: time.Now}
}

// filterHint is the filter input's placeholder: what it takes.
const filterHint = `a word in the key, or a key prefix: ["dwk_lease"]`

// Init reads where seq stands and the last commits before it (under
// generation 0, which the model holds until its first Refresh).
func (m Model) Init() tea.Cmd {
	return readFeed(m.deps.Store, m.deps.Session, 0, changefeed.Request{}, m.tune.pageRows, m.deps.Now(), true, 1)
}

// Refresh reads the feed after the position (the root calls it when seq
// or the row count moved); a read in flight is not doubled.
func (m Model) Refresh() (Model, tea.Cmd) {
	if m.loading {
		return m, nil
	}
	s := m.deps.Store
	m.loading = true
	m.gen++
	batch := recheckFile
	if s.Info().Transport.Remote() {
		batch = recheckRemote
	}
	return m, readFeed(s, m.deps.Session, m.gen, m.f.c.Next(batch), m.tune.pageRows, m.deps.Now(), !m.f.started, 1)
}

// SetSize sets the view's rectangle.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Focus gives the view the keys.
func (m *Model) Focus() { m.focused = true }

// Blur takes the keys away.
func (m *Model) Blur() { m.focused = false }

// Busy reports whether a read is in flight.
func (m Model) Busy() bool { return m.loading }

// Capturing reports whether the filter input takes every key.
func (m Model) Capturing() bool { return m.filtering }

// UsesEsc reports whether esc has something to clear: the filter, then
// the mark (views.EscUser).
func (m Model) UsesEsc() bool { return m.filterTxt != "" || m.mark != nil }

// Update handles a message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case fed:
		return m.onFed(msg)
	case walkTick:
		if msg.session != m.deps.Session || msg.gen != m.gen || (!m.f.c.Pending() && !m.behind) {
			return m, nil // a refresh came first
		}
		return m.Refresh()
	case located:
		return m.onLocated(msg)
	case views.BulkDoneMsg:
		if m.focused {
			m.marks.Clear()
		}
	case tea.MouseMsg:
		if k, ok := widgets.WheelKey(msg); ok {
			return m.Update(k)
		}
		if _, y, ok := widgets.LeftClick(msg); ok && m.focused {
			return m.onClick(y), nil
		}
	case tea.KeyMsg:
		if !m.focused {
			return m, nil
		}
		if m.filtering {
			return m.handleFilter(msg)
		}
		return m.keys.actions().Handle(m, msg, m.deps.Store.ReadOnly()) // the list
	}
	return m, nil
}

// onFed takes a page: events in stamp order, then the vanished rows; a
// page cut by its bounds chains the next one, up to pagesPerRefresh.
func (m Model) onFed(msg fed) (Model, tea.Cmd) {

	if msg.session != m.deps.Session || msg.gen != m.gen {
		return m, nil
	}
	if msg.err != nil {
		m.loading, m.err = false, msg.err
		return m, nil
	}
	m.err = nil
	if msg.start {
		// The first read starts at the backlog's position.
		m.f.c.Start(msg.head, msg.req.After)
		m.f.openSeq, m.odd = msg.head.Version.Seq, msg.odd
	}
	m.f.apply(msg.page, msg.req, msg.now)
	if m.pinned {
		m.list.Follow(m.ids(), m.listRows())
	} else {
		// Following the newest: remember the row the user was reading.
		was := m.list.ID
		m.list.Set(0, m.ids(), m.listRows())
		if was != "" && was != m.list.ID {
			// Heads that came and went within followGrace were not read:
			// the row read stays the one before them.
			if m.movedAt.IsZero() || m.tune.wallNow().Sub(m.movedAt) >= m.tune.followGrace {
				m.read, _ = strconv.Atoi(was)
			}
			m.movedAt = m.tune.wallNow()
		}
	}
	limit := pagesPerRefresh
	if m.behind && msg.page.Version == m.endedAt {
		limit = pagesIdle // catching up on a still store
	}
	if msg.page.More && msg.chained < limit {
		return m, readFeed(m.deps.Store, m.deps.Session, m.gen, m.f.c.Continue(), m.tune.pageRows, m.deps.Now(), false, msg.chained+1)
	}
	m.loading = false
	m.behind, m.endedAt = msg.page.More, msg.page.Version
	if m.f.c.Pending() || m.behind {
		// A walk under way, rows kept still to recheck since the last
		// commit, or a backlog left to read: go on at a pace even if the
		// store stays still.
		session, gen := m.deps.Session, m.gen
		return m, tea.Tick(m.tune.walkPace, func(time.Time) tea.Msg { return walkTick{session: session, gen: gen} })
	}
	return m, nil
}

// actions is the Activity tab's table of keys. It writes nothing itself:
// the bulk menu over the marked keys asks for each of its actions.
func (k *Keys) actions() views.Actions[Model] {
	nav := func(m *Model, msg tea.KeyMsg) tea.Cmd {
		m.list.Handle(msg, m.keys.NavKeys, m.ids(), m.listRows())
		// Moving pins the cursor to its event; the top follows again.
		m.pinned = !key.Matches(msg, m.keys.Top)
		m.movedAt = time.Time{}
		return nil
	}
	do := views.Run[Model]
	as := views.Together(0, nav, k.NavKeys.All()...)
	as = append(as, views.Actions[Model]{
		{Binding: &k.Browse, Do: do((*Model).showInBrowse), Col: 1, Short: 1},
		{Binding: &k.Mark, Do: do((*Model).toggleMark), Col: 1, Short: 2},
		{Binding: &k.Filter, Do: do((*Model).startFilter), Col: 1, Short: 3},
		{Binding: &k.Clear, Do: do((*Model).clear), Col: 1, Short: 4},
		{Binding: &k.Reload, Do: do((*Model).reload), Col: 1},
	}...)
	return append(as, views.Together(2, views.Step(Model.handleMarks), k.Marks.All()...)...)
}

// showInBrowse shows the key of the event read in Browse (enter).
func (m *Model) showInBrowse() tea.Cmd {
	ev, ok := m.reading()
	if sel, _ := m.selected(); ok && sel.n != ev.n {
		// The newest came as enter was pressed: back to the row read,
		// pinned, so that the screen shows what enter acts on.
		m.list.ID, m.pinned, m.movedAt = strconv.Itoa(ev.n), true, time.Time{}
		m.list.Follow(m.ids(), m.listRows())
	}
	switch {
	case !ok:
		return nil
	case ev.key == nil:
		return views.Flash(views.FlashInfo, "this row's key does not decode: Browse shows it under (undecodable)")
	}
	// Deleted, expired, or a set whose row may be gone since: look
	// where the key stands now, say so, and show it (or where it was).
	return locate(m.deps.Store, m.deps.Session, ev, m.deps.Now())
}

// toggleMark pins a point of the feed, or clears the one pinned (M).
func (m *Model) toggleMark() tea.Cmd {
	if m.mark != nil {
		m.mark = nil
		return views.Flash(views.FlashInfo, "mark cleared: the whole feed shows")
	}
	m.mark = &mark{n: m.f.next, at: m.deps.Now(), seq: m.f.c.After()}
	m.pinned = false
	m.list.Set(0, m.ids(), m.listRows())
	return views.Flash(views.FlashInfo, "marked at seq %d: only what changes from now on shows (%s again clears)", m.f.c.After(), views.KeyName(m.keys.Mark))
}

// startFilter opens the filter input (/).
func (m *Model) startFilter() tea.Cmd {
	m.filterIn.Placeholder = filterHint
	m.filtering = true
	m.before.filter, m.before.text = m.filter, m.filterTxt
	m.filterIn.SetValue(m.filterTxt)
	m.filterIn.CursorEnd()
	return m.filterIn.Focus()
}

// clear drops the filter, then the mark (esc).
func (m *Model) clear() tea.Cmd {
	switch {
	case m.filterTxt != "":
		m.filter, m.filterTxt = nil, ""
	case m.mark != nil:
		m.mark = nil
	}
	m.list.Follow(m.ids(), m.listRows())
	return nil
}

// reload reads the feed now (r).
func (m *Model) reload() tea.Cmd {
	var cmd tea.Cmd
	*m, cmd = m.Refresh()
	return cmd
}

// handleFilter handles the keys while the filter is typed. It applies as
// it is typed, as Browse's does: a plain word matches the keys whose text
// holds it (any case), a text starting with [ is a key prefix in kvdeck's
// key syntax (applied once it parses; enter on one that does not says
// why). enter keeps it, esc puts back the one in force before /.
func (m Model) handleFilter(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.input.Cancel):
		m.filtering, m.filterErr = false, ""
		m.filterIn.Blur()
		m.filter, m.filterTxt = m.before.filter, m.before.text
		m.list.Follow(m.ids(), m.listRows())
		return m, nil
	case key.Matches(msg, m.input.Accept):
		if err := m.setFilter(m.filterIn.Value()); err != nil {
			m.filterErr = err.Error()
			return m, nil
		}
		m.filtering, m.filterErr = false, ""
		m.filterIn.Blur()
		return m, nil
	}
	var cmd tea.Cmd
	m.filterIn, cmd = m.filterIn.Update(msg)
	if m.setFilter(m.filterIn.Value()) == nil {
		m.filterErr = ""
	}
	return m, cmd
}

// setFilter puts text in force when it is a filter: a word, or a key
// prefix that parses.
func (m *Model) setFilter(text string) error {
	var k codec.Key
	if strings.HasPrefix(strings.TrimSpace(text), "[") {
		var err error
		if k, err = widgets.ParseKey(text); err != nil {
			return err
		}
	}
	m.filter, m.filterTxt = k, text
	m.pinned = false
	m.list.Set(0, m.ids(), m.listRows())
	return nil
}

// reading is the event enter acts on: the selected one, or, when the list
// follows the newest and it took the cursor less than followGrace ago,
// the one the user was reading before it came.
func (m Model) reading() (event, bool) {
	if !m.pinned && !m.movedAt.IsZero() && m.tune.wallNow().Sub(m.movedAt) < m.tune.followGrace {
		for _, ev := range m.shown() {
			if ev.n == m.read {
				return ev, true
			}
		}
	}
	return m.selected()
}

// ShortHelp lists the keys the message line shows.
func (m Model) ShortHelp() []key.Binding {
	if m.filtering {
		return []key.Binding{m.input.Accept, m.input.Cancel}
	}
	return m.keys.actions().ShortHelp(m.deps.Store.ReadOnly())
}

// FullHelp lists every key of the view.
func (m Model) FullHelp() [][]key.Binding {
	return m.keys.actions().FullHelp(m.deps.Store.ReadOnly())
}
