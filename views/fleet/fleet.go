// Package fleet is the TUI's Fleet view: one row per
// saved store with its coordination health (coord.ReadPulse: one request
// per store and refresh), read on the TUI's tick, every store in its own
// command under a concurrency bound, each answer its own message, so a
// store that is down or slow shows as such and never holds up the others.
package fleet

import (
	"context"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Bounds of the reads.
const (
	// Concurrency is how many stores are read at once.
	Concurrency = 16
	// SlowAfter is how long a read may take before its row says slow.
	SlowAfter = time.Second
	// ReadTimeout is how long a store may take (token, connection, the
	// read) before its row says unreachable.
	ReadTimeout = 10 * time.Second
	// trendLen is how many refreshes a sparkline keeps.
	trendLen = 12
)

// Deps is what the view needs from the TUI.
type Deps struct {
	// Stores lists the saved stores (config.toml, read again each time
	// the view opens).
	Stores func() ([]tuiconfig.SavedStore, error)
	// Open opens the saved store name read-only and unchecked
	// (store.Options.Unchecked: no request), with its own token.
	Open func(ctx context.Context, name string) (*store.Store, error)
	// Done, when set, takes back the store Open returned once it was read
	// (err: the read's error), which the view then does not close
	// (tuiconfig.Config.ProbeDone); nil: the view closes it.
	Done func(name string, err error)
	// Platform reads what the store's platform says of it, in a few
	// words (tuiconfig.Config.Platform), after its pulse; nil: nothing.
	Platform func(ctx context.Context, name string) (string, error)
	// Now is the store clock (the pulse's now); Wall the time an answer
	// arrived (the commit rate's clock).
	Now  func() int64
	Wall func() time.Time
}

// Keys are the view's keys: a list's, as in the store picker and the
// undo list (q and esc close it).
type Keys struct {
	Nav               widgets.NavKeys
	Sort, Open, Close key.Binding
	widgets.FilterKeys
}

// DefaultKeys returns the view's keys.
func DefaultKeys() Keys {
	return Keys{
		Nav:        widgets.DefaultNavKeys(),
		Sort:       key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "sort")),
		Open:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the store (esc comes back)")),
		Close:      key.NewBinding(key.WithKeys("esc", "q", "F"), key.WithHelp("esc/q", "back to the tabs")),
		FilterKeys: widgets.DefaultFilterKeys(),
	}
}

// pageStep is how far pgup and pgdown move the cursor.
const pageStep = 10

// row is one store's row.
type row struct {
	saved tuiconfig.SavedStore
	// read: a read is in flight since since; done: one answered.
	reading, done bool
	since         time.Time
	pulse         coord.Pulse
	rtt           time.Duration
	err           error
	// platform is what the store's platform said at the last read.
	platform string
	// The commit rate: seq and when it was read; rate is the last one
	// (nil before two reads).
	lastSeq               *int64
	lastAt                time.Time
	rate                  *float64
	rates, ready, overdue widgets.Series
	// saidLocked: the flash line said that a read of the store took
	// SQLite's locks (read.locked).
	saidLocked bool
}

// Model is the Fleet view.
type Model struct {
	deps    Deps
	keys    Keys
	styles  themes.Styles
	listGen int
	listErr error
	listing bool
	names   []string
	rows    map[string]*row
	sem     chan struct{}
	sortBy  sortKey
	filter  widgets.Filter
	cursor  int
	// current is the saved store the tabs show (marked ●); note says
	// why the last enter opened nothing (said in the view).
	current string
	note    string
	// slotEnd, when set (tests), runs as a read gives its slot back.
	slotEnd func()
}

// Answers of the view's commands.
type (
	listed struct {
		gen    int
		stores []tuiconfig.SavedStore
		err    error
	}
	// read is one store's answer.
	read struct {
		name     string
		pulse    coord.Pulse
		rtt      time.Duration
		err      error
		platform string
		// locked is what the store said when it read its file with
		// SQLite's locks (store.LockedReadNote), "" when it did not.
		locked string
	}
)

// New returns the view; Open lists the stores and reads them.
func New(d Deps, st themes.Styles) Model {
	if d.Wall == nil {
		d.Wall = time.Now
	}
	return Model{deps: d, keys: DefaultKeys(), styles: st, rows: map[string]*row{},
		sem: make(chan struct{}, Concurrency), filter: widgets.NewFilter("store, group or state", st)}
}

// Open (re)lists the saved stores; their reads follow the listing.
func (m Model) Open() (Model, tea.Cmd) {
	m.listGen++
	m.listing = true
	gen, list := m.listGen, m.deps.Stores
	return m, func() tea.Msg {
		stores, err := list()
		return listed{gen: gen, stores: stores, err: err}
	}
}

// Refresh starts a read of every store whose last read is answered: a
// slow store is not asked again (nor waited for).
func (m Model) Refresh() tea.Cmd {
	var cmds []tea.Cmd
	now := m.deps.Wall()
	for _, name := range m.names {
		r := m.rows[name]
		if r.reading {
			continue
		}
		r.reading, r.since = true, now
		cmds = append(cmds, m.readCmd(name))
	}
	return tea.Batch(cmds...)
}

// readCmd reads one store's pulse, waiting for a slot of the bound; the
// read (token, open, statement) has ReadTimeout.
func (m Model) readCmd(name string) tea.Cmd {
	sem, open, done, now, slotEnd, platform := m.sem, m.deps.Open, m.deps.Done, m.deps.Now, m.slotEnd, m.deps.Platform
	return func() tea.Msg {
		// The timeout starts with the slot: stores queued behind slow
		// ones are not failed for the wait (a store has at most one read
		// in flight, so the queue is bounded by the saved stores).
		sem <- struct{}{}
		ctx, cancel := context.WithTimeout(context.Background(), ReadTimeout)
		defer cancel()
		defer func() {
			if slotEnd != nil {
				slotEnd()
			}
			<-sem
		}()
		s, err := open(ctx, name)
		if err != nil {
			return read{name: name, err: err}
		}
		start := time.Now()
		p, err := coord.ReadPulse(ctx, s, now())
		rtt, locked := time.Since(start), s.LockedReadNote()
		if done != nil {
			done(name, err)
		} else {
			s.Close()
		}
		r := read{name: name, pulse: p, rtt: rtt, err: err, locked: locked}
		if platform != nil {
			var perr error
			if r.platform, perr = platform(ctx, name); perr != nil {
				r.platform = "? " + perr.Error()
			}
		}
		return r
	}
}

// Update handles the view's answers; keys go to HandleKey.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case listed:
		if msg.gen != m.listGen {
			return m, nil
		}
		m.listing, m.listErr = false, msg.err
		m.setStores(msg.stores)
		return m, m.Refresh()
	case read:
		if r := m.rows[msg.name]; r != nil {
			r.note(msg, m.deps.Wall())
			if msg.locked != "" && !r.saidLocked {
				// Said once a row: a store is opened afresh each read.
				r.saidLocked = true
				return m, views.Flash(views.FlashError, "%s: %s", r.saved.Name, msg.locked)
			}
		}
	}
	return m, nil
}

// setStores keeps the rows of stores still saved and adds the new ones.
func (m *Model) setStores(stores []tuiconfig.SavedStore) {
	rows := map[string]*row{}
	m.names = m.names[:0]
	for _, s := range stores {
		r := m.rows[s.Name]
		if r == nil {
			r = &row{rates: widgets.NewSeries(trendLen), ready: widgets.NewSeries(trendLen), overdue: widgets.NewSeries(trendLen)}
		}
		r.saved = s
		rows[s.Name] = r
		m.names = append(m.names, s.Name)
	}
	m.rows = rows
}

// note takes a read's answer in.
func (r *row) note(msg read, at time.Time) {
	r.reading, r.done, r.rtt, r.err, r.platform = false, true, msg.rtt, msg.err, msg.platform
	if msg.err != nil {
		return
	}
	r.pulse = msg.pulse
	ms := at.UnixMilli()
	if seq := msg.pulse.Seq; seq != nil {
		if r.lastSeq != nil && at.After(r.lastAt) {
			v := max(float64(*seq-*r.lastSeq), 0) / at.Sub(r.lastAt).Seconds()
			r.rate = &v
			r.rates.Add(ms, v)
		}
		s := *seq
		r.lastSeq, r.lastAt = &s, at
	}
	r.ready.Add(ms, float64(msg.pulse.QueueReady))
	r.overdue.Add(ms, float64(msg.pulse.AlarmsOverdue))
}

// state is a row's state word: ok, slow, unreachable, missing file, not
// a store, unauthorized, error, or reading (no answer yet).
func (r *row) state(now time.Time) string {
	switch {
	case r.reading && now.Sub(r.since) >= SlowAfter:
		return "slow"
	case !r.done:
		return "reading"
	case r.err == nil:
		return "ok"
	}
	return store.Trouble(r.err)
}

// Capturing reports whether the filter input has the keys.
func (m Model) Capturing() bool { return m.filter.Typing() }

// Action is what a key asks of the TUI beyond the view.
type Action int

// The actions.
const (
	None Action = iota
	// OpenStore: open Selected in the usual tabs.
	OpenStore
	// CloseView: back to the tabs.
	CloseView
)

// Selected is the saved store under the cursor (false when none).
func (m Model) Selected() (string, bool) {
	v := m.visible()
	if m.cursor < 0 || m.cursor >= len(v) {
		return "", false
	}
	return v[m.cursor].saved.Name, true
}

// SetCurrent says which saved store the tabs show: its row is marked.
func (m Model) SetCurrent(name string) Model {
	m.current = name
	return m
}

// SetNote says in the view why a store could not be opened from it (""
// clears it); a key clears it too.
func (m Model) SetNote(text string) Model {
	m.note = text
	return m
}

// press is the view as a key press acts on it: the view, and what the
// key asks of the TUI beyond it.
type press struct {
	Model
	act Action
}

// actions is the Fleet view's table of keys: a list's moves, sort and
// filter, enter (open the store under the cursor) and close. It writes
// nothing: a store is read read-only, and enter leaves the open to the
// TUI (the switcher asks what it asks).
func (k *Keys) actions() views.Actions[press] {
	to := func(at func(cur, n int) int) func(*press, tea.KeyMsg) tea.Cmd {
		return func(p *press, _ tea.KeyMsg) tea.Cmd {
			n := len(p.visible())
			p.cursor = max(min(at(p.cursor, n), n-1), 0)
			return nil
		}
	}
	filter := func(p *press, msg tea.KeyMsg) tea.Cmd {
		_, changed, cmd := p.filter.Start(msg, &p.keys.FilterKeys)
		if changed {
			p.cursor = 0
		}
		return cmd
	}
	do := views.Run[press]
	return views.Actions[press]{
		{Binding: &k.Nav.Up, Do: to(func(c, _ int) int { return c - 1 }), Short: 1},
		{Binding: &k.Nav.Down, Do: to(func(c, _ int) int { return c + 1 }), Short: 2},
		{Binding: &k.Nav.PageUp, Do: to(func(c, _ int) int { return c - pageStep })},
		{Binding: &k.Nav.PageDown, Do: to(func(c, _ int) int { return c + pageStep })},
		{Binding: &k.Nav.Top, Do: to(func(int, int) int { return 0 })},
		{Binding: &k.Nav.Bottom, Do: to(func(_, n int) int { return n - 1 })},
		{Binding: &k.Open, Do: do((*press).open), Col: 1, Short: 3},
		{Binding: &k.Sort, Do: do(func(p *press) tea.Cmd { p.sortBy = (p.sortBy + 1) % numSorts; return nil }), Col: 1, Short: 4},
		{Binding: &k.Filter, Do: filter, Col: 1, Short: 5},
		// Before close: esc clears a filter in force first.
		{Binding: &k.ClearFilter, Do: filter, Col: 1, Short: 6},
		{Binding: &k.Close, Do: do(func(p *press) tea.Cmd { p.act = CloseView; return nil }), Col: 1, Short: 7},
	}
}

// open asks the TUI to open the store under the cursor (enter); with no
// row under it, enter does nothing.
func (p *press) open() tea.Cmd {
	if _, ok := p.Selected(); ok {
		p.act = OpenStore
	}
	return nil
}

// Keys are the view's keys, for hints that name them.
func (m Model) Keys() Keys { return m.keys }

// HandleKey handles a key; the action says what the TUI must do. While
// the filter is typed it has every key.
func (m Model) HandleKey(msg tea.KeyMsg) (Model, tea.Cmd, Action) {
	m.note = ""
	if m.filter.Typing() {
		if m.filter.Type(msg, &m.keys.FilterKeys) {
			m.cursor = 0
		}
		return m, nil, None
	}
	p := press{Model: m}
	cmd, _ := p.keys.actions().Dispatch(&p, msg, false)
	return p.Model, cmd, p.act
}

// Help lists the view's keys for the message line.
func (m Model) Help() []key.Binding {
	if m.filter.Typing() {
		return m.filter.Help()
	}
	return m.keys.actions().ShortHelp(false)
}

// FullHelp lists every key of the view, for the help screen.
func (m Model) FullHelp() [][]key.Binding { return m.keys.actions().FullHelp(false) }

// State is the state word of the saved store name's row ("" when it has
// none) and its commit rates over the refreshes kept, oldest first: for
// tests and tools.
func (m Model) State(name string, now time.Time) (string, []float64) {
	r := m.rows[name]
	if r == nil {
		return "", nil
	}
	return r.state(now), slices.Clone(r.rates.Values())
}
