package coordkit

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// A coordination tab's fleet mode: the rows of every saved store of a
// group at once, with a STORE column, sorted by urgency across stores
// with the rule the tab uses for one store. Each refresh reads every
// store once (the tab's own inspection), each in its own command under a
// concurrency bound and a deadline, each answer its own message: a store
// that is down or slow is a row that says so and holds up no other. The
// stores are opened as the Fleet view opens them (views.Members: read-
// only, unchecked, kept open from one read to the next). The fleet mode
// never writes: enter opens the row's store in the tab, where the tab's
// writes ask as usual.

// Bounds of the fleet mode's reads (as the Fleet view's).
const (
	// FleetConcurrency is how many stores are read at once.
	FleetConcurrency = 16
	// FleetSlowAfter is how long a store's first read may take before its
	// row says slow.
	FleetSlowAfter = time.Second
	// FleetReadTimeout bounds one store's read (open, token, inspection).
	FleetReadTimeout = 10 * time.Second
)

// FleetDef is what a tab's fleet mode reads and shows.
type FleetDef struct {
	// Tab names the tab: it tags the answers (every tab sees every
	// message) and titles the screen.
	Tab string
	// Order says how the rows are sorted ("most overdue first").
	Order string
	// Columns are the columns after STORE.
	Columns []widgets.Column
	// Read reads one store's rows at now: the tab's own inspection, one
	// read of the store.
	Read func(ctx context.Context, s *store.Store, now int64) ([]FleetRow, error)
	// None names what an empty fleet has none of ("alarm").
	None string
}

// FleetRow is one row of the fleet mode.
type FleetRow struct {
	Store string
	// Key is the row's key: enter selects it in its store.
	Key codec.Key
	// Rank and At order the rows across stores: Rank first (lower first),
	// then At (earlier first), then store and key.
	Rank int
	At   int64
	// Cells are the row's cells after STORE, one per FleetDef.Columns.
	Cells []widgets.Line
	// state, for a store's row that is no row of its own: down, slow or
	// not read yet, and the error.
	state string
	err   error
}

// FleetKeys are the fleet mode's own keys; the tab's key that turns the
// mode on turns it off.
type FleetKeys struct {
	widgets.NavKeys
	Open, Reload key.Binding
}

// DefaultFleetKeys returns the fleet mode's keys.
func DefaultFleetKeys() FleetKeys {
	return FleetKeys{
		NavKeys: widgets.DefaultNavKeys(),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the row in its store")),
		Reload:  key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "read every store again")),
	}
}

// Fleet is a tab's fleet mode. The members are pointers shared by the
// copies of the tab's model (as the Fleet view's rows): a read in flight
// is marked where every copy sees it.
type Fleet struct {
	On   bool
	def  FleetDef
	src  views.Members
	keys FleetKeys
	now  func() int64
	wall func() time.Time

	session, gen int
	listing      bool
	listErr      error
	names        []string
	members      map[string]*fleetMember
	sem          chan struct{}
	list         widgets.ListCursor
	moved        bool // a key moved the cursor: it follows its row; else it stays on the first
	height       int  // rows of the list shown (SetHeight), for paging
}

// fleetMember is one store's last read.
type fleetMember struct {
	reading, done bool
	since         time.Time
	rows          []FleetRow
	err           error
}

// Answers of the fleet mode's commands, tagged with the tab, the
// session and the generation (a toggle starts a new one).
type (
	fleetListed struct {
		tab          string
		session, gen int
		members      []views.Member
		err          error
	}
	fleetRead struct {
		tab          string
		session, gen int
		name         string
		rows         []FleetRow
		err          error
	}
)

// NewFleet returns def's fleet mode over deps (off).
func NewFleet(def FleetDef, deps views.Deps) Fleet {
	f := Fleet{def: def, src: deps.Fleet, keys: DefaultFleetKeys(), now: deps.Now, wall: time.Now,
		session: deps.Session, members: map[string]*fleetMember{}, sem: make(chan struct{}, FleetConcurrency)}
	if f.src.Start && f.src.List != nil && f.src.Open != nil {
		f.On, f.listing, f.gen = true, true, 1
	}
	return f
}

// StartCmd lists the stores of a mode on from the start (views.Members'
// Start); nil otherwise.
func (f Fleet) StartCmd() tea.Cmd {
	if !f.On || !f.listing {
		return nil
	}
	return f.listCmd()
}

// listCmd lists the saved stores for the generation now.
func (f Fleet) listCmd() tea.Cmd {
	tab, session, gen, list := f.def.Tab, f.session, f.gen, f.src.List
	return func() tea.Msg {
		ms, err := list()
		return fleetListed{tab: tab, session: session, gen: gen, members: ms, err: err}
	}
}

// SetHeight sets the height the mode is drawn in.
func (f *Fleet) SetHeight(h int) { f.height = max(h-3, 1) }

// SetGroup sets the group the mode shows from its next turn on.
func (f *Fleet) SetGroup(group string) { f.src.Group = group }

// Group is the group the mode shows ("" every saved store).
func (f Fleet) Group() string { return f.src.Group }

// Toggle turns the mode on (listing the saved stores, then reading them)
// or off.
func (f *Fleet) Toggle() tea.Cmd {
	if f.On {
		f.On = false
		return nil
	}
	if f.src.List == nil || f.src.Open == nil {
		return views.Flash(views.FlashError, "no saved stores here: the fleet mode shows saved stores (kvdeck stores add NAME URL saves one)")
	}
	f.On, f.listing, f.listErr, f.moved = true, true, nil, false
	f.gen++
	return f.listCmd()
}

// Update takes the mode's answers; ok is false for any other message.
func (f *Fleet) Update(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case fleetListed:
		if msg.tab != f.def.Tab || msg.session != f.session || msg.gen != f.gen {
			return nil, msg.tab == f.def.Tab
		}
		f.listing, f.listErr = false, msg.err
		f.setMembers(msg.members)
		return f.Refresh(), true
	case fleetRead:
		if msg.tab != f.def.Tab {
			return nil, false
		}
		if r := f.members[msg.name]; r != nil && msg.session == f.session {
			r.reading, r.done, r.err = false, true, msg.err
			r.rows = nil
			if msg.err == nil {
				r.rows = msg.rows
			}
			f.follow()
		}
		return nil, true
	}
	return nil, false
}

// setMembers keeps the group's stores, in name order.
func (f *Fleet) setMembers(ms []views.Member) {
	members := map[string]*fleetMember{}
	f.names = f.names[:0]
	for _, m := range ms {
		if f.src.Group != "" && m.Group != f.src.Group {
			continue
		}
		r := f.members[m.Name]
		if r == nil {
			r = &fleetMember{}
		}
		members[m.Name] = r
		f.names = append(f.names, m.Name)
	}
	slices.Sort(f.names)
	f.members = members
}

// Refresh reads every store whose last read answered (a slow store is
// not asked again, nor waited for); nil when the mode is off.
func (f Fleet) Refresh() tea.Cmd {
	if !f.On {
		return nil
	}
	var cmds []tea.Cmd
	for _, name := range f.names {
		r := f.members[name]
		if r.reading {
			continue
		}
		r.reading, r.since = true, f.wall()
		cmds = append(cmds, f.readCmd(name))
	}
	return tea.Batch(cmds...)
}

// readCmd reads one store's rows once a slot of the bound is free; the
// deadline starts with the slot.
func (f Fleet) readCmd(name string) tea.Cmd {
	src, read, sem, now := f.src, f.def.Read, f.sem, f.now
	msg := fleetRead{tab: f.def.Tab, session: f.session, gen: f.gen, name: name}
	return func() tea.Msg {
		sem <- struct{}{}
		defer func() { <-sem }()
		ctx, cancel := context.WithTimeout(context.Background(), FleetReadTimeout)
		defer cancel()
		s, err := src.Open(ctx, name)
		if err != nil {
			msg.err = err
			return msg
		}
		msg.rows, msg.err = read(ctx, s, now())
		if src.Done != nil {
			src.Done(name, msg.err)
		} else {
			s.Close()
		}
		for i := range msg.rows {
			msg.rows[i].Store = name
		}
		return msg
	}
}

// Rows are the rows of every store, the most urgent first; a store not
// read, slow or down is one row saying so, after the others.
func (f Fleet) Rows() []FleetRow {
	var out, trouble []FleetRow
	now := f.wall()
	for _, name := range f.names {
		r := f.members[name]
		switch {
		case !r.done && r.reading && now.Sub(r.since) >= FleetSlowAfter:
			trouble = append(trouble, FleetRow{Store: name, state: "… slow: no answer yet"})
		case !r.done:
			trouble = append(trouble, FleetRow{Store: name, state: "… reading"})
		case r.err != nil:
			trouble = append(trouble, FleetRow{Store: name, state: "✗ " + store.Trouble(r.err), err: r.err})
		default:
			out = append(out, r.rows...)
		}
	}
	slices.SortStableFunc(out, func(a, b FleetRow) int {
		return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.At, b.At), cmp.Compare(a.Store, b.Store),
			cmp.Compare(codec.Format(a.Key), codec.Format(b.Key)))
	})
	return append(out, trouble...)
}

// rowID names a row for the cursor: its store and key.
func rowID(r FleetRow) string { return r.Store + "\x00" + codec.Format(r.Key) }

// follow keeps the cursor on its row as rows come and go.
func (f *Fleet) follow() {
	if !f.moved {
		f.list = widgets.ListCursor{} // the most urgent row, until a key moves
	}
	f.list.Follow(widgets.IDs(f.Rows(), rowID), f.height)
}

// Selected is the row under the cursor.
func (f Fleet) Selected() (FleetRow, bool) { return widgets.Selected(f.list, f.Rows()) }

// HandleKey handles the mode's own keys (moves, enter, r); ok is false
// for any other key, which the tab's table then refuses (FleetOff).
func (f *Fleet) HandleKey(msg tea.KeyMsg) (cmd tea.Cmd, ok bool) {
	rows := f.Rows()
	switch {
	case f.list.Handle(msg, f.keys.NavKeys, widgets.IDs(rows, rowID), f.height):
		f.moved = true
		return nil, true
	case key.Matches(msg, f.keys.Reload):
		return f.Refresh(), true
	case key.Matches(msg, f.keys.Open):
		r, ok := widgets.Selected(f.list, rows)
		if !ok {
			return views.Flash(views.FlashInfo, "no row to open"), true
		}
		return func() tea.Msg { return views.OpenInStoreMsg{Store: r.Store, Key: r.Key} }, true
	}
	return nil, false
}

// Help lists the mode's keys with toggle, the tab's key that leaves it.
func (f Fleet) Help(toggle key.Binding) []key.Binding {
	k := f.keys
	return []key.Binding{k.Up, k.Down, k.Open, k.Reload, toggle}
}

// FullHelp lists every key of the mode.
func (f Fleet) FullHelp(toggle key.Binding) [][]key.Binding {
	k := f.keys
	return [][]key.Binding{k.Bindings(), {k.Open, k.Reload, toggle}}
}

// FleetOff makes every action of a tab's table say, in the fleet mode,
// why it does not act there: the fleet mode reads many stores and writes
// to none (enter opens a row's store, where the key acts and asks as
// usual). on reports whether the mode is on; keep is the key that
// leaves it.
func FleetOff[M any](as views.Actions[M], on func(M) bool, keep *key.Binding) views.Actions[M] {
	out := slices.Clone(as)
	for i, a := range out {
		if a.Binding == keep {
			continue
		}
		off, what := a.Off, "this key"
		if a.What != "" {
			what = a.What
		}
		k, leave := views.KeyName(*a.Binding), views.KeyName(*keep)
		out[i].Off = func(m M) string {
			if on(m) {
				return "fleet mode: " + what + " (" + k + ") acts on one store, not the fleet: enter opens the row's store, where it acts and asks as usual (" + leave + " leaves the fleet mode)"
			}
			if off != nil {
				return off(m)
			}
			return ""
		}
	}
	return out
}

// fleetTitle is the mode's title line's text after the tab's name.
func (f Fleet) fleetTitle() string {
	group := "every saved store"
	if f.src.Group != "" {
		group = "group " + widgets.Sanitize(f.src.Group)
	}
	down, read := 0, 0
	for _, name := range f.names {
		r := f.members[name]
		switch {
		case r.done && r.err != nil:
			down++
		case r.done:
			read++
		}
	}
	parts := []string{"fleet: " + group, fmt.Sprintf("%d store(s)", len(f.names))}
	if down > 0 {
		parts = append(parts, fmt.Sprintf("%d down", down))
	}
	if wait := len(f.names) - down - read; wait > 0 {
		parts = append(parts, fmt.Sprintf("%d reading", wait))
	}
	return strings.Join(append(parts, f.def.Order), " · ")
}

// storeColumn is the STORE column: it tells the rows apart first.
var storeColumn = widgets.Column{Title: "STORE", Width: 8, Grow: true, Max: 20}

// View draws the mode in w×h: a title, the columns' titles, the rows
// (the cursor's marked › as well as coloured), and why there are none
// when there are none.
func (f Fleet) View(st themes.Styles, w, h int) string {
	title := strings.ToUpper(f.def.Tab)
	lines := []string{widgets.FitWidth(st.PaneTitle.Render(title)+st.Muted.Render(" · "+f.fleetTitle()), w)}
	rows := f.Rows()
	switch {
	case f.listing:
		lines = append(lines, st.Muted.Render("reading the saved stores…"))
	case f.listErr != nil:
		lines = append(lines, st.Error.Render(widgets.FitWidth("cannot list the saved stores: "+widgets.Sanitize(f.listErr.Error()), w)))
	case len(f.names) == 0 && f.src.Group != "":
		lines = append(lines, st.Muted.Render(widgets.FitWidth("No saved store in group "+widgets.Sanitize(f.src.Group)+": the fleet is empty (kvdeck stores add NAME URL --group G).", w)))
	case len(f.names) == 0:
		lines = append(lines, st.Muted.Render(widgets.FitWidth("No saved store: the fleet is empty (kvdeck stores add NAME URL saves one).", w)))
	case len(rows) == 0:
		lines = append(lines, st.Muted.Render(widgets.FitWidth(fmt.Sprintf("No %s in the fleet's %d store(s).", f.def.None, len(f.names)), w)))
	}
	if len(rows) == 0 {
		return strings.Join(widgets.FitTo(lines, h), "\n")
	}
	cols := append([]widgets.Column{storeColumn}, f.def.Columns...)
	cells := make([][]widgets.Line, 0, len(rows))
	for _, r := range rows {
		cells = append(cells, append([]widgets.Line{{{Text: widgets.Sanitize(r.Store)}}}, r.Cells...))
	}
	// The gutter: › on the cursor's row.
	t := widgets.FitTable(cols, w-2, cells)
	lines = append(lines, "  "+t.Header(st))
	from, to := f.list.Window(len(rows), max(h-3, 1))
	for i := from; i < to; i++ {
		r, sel := rows[i], i == f.list.Cur
		mark := "  "
		if sel {
			mark = "› "
		}
		var line string
		if r.state != "" {
			sw := t.Width(0)
			text := r.state
			if r.err != nil {
				text += ": " + widgets.Sanitize(r.err.Error())
			}
			style := st.Muted
			if r.err != nil {
				style = st.Error
			}
			name := widgets.FitWidth(widgets.Sanitize(r.Store), sw)
			line = name + " " + style.Render(text)
			if sel {
				line = st.Selected.Render(widgets.FitWidth(name+" "+text, w-2))
			}
		} else {
			line = t.Row(st, cells[i], sel, true)
		}
		lines = append(lines, widgets.FitWidth(mark+line, w))
	}
	return strings.Join(widgets.FitTo(lines, h), "\n")
}

// FleetKey handles a key of a tab in the fleet mode: the mode's own keys
// act; the rest go to the tab's table as, which refuses them (FleetOff)
// but for the key that leaves the mode. The table is asked as if the
// store shown were writable: the fleet's reason, not the store's
// read-only mode, is why a write does not act here (FleetOff refuses
// every write).
func FleetKey[M any](m *M, f *Fleet, msg tea.KeyMsg, as views.Actions[M]) tea.Cmd {
	if cmd, ok := f.HandleKey(msg); ok {
		return cmd
	}
	cmd, _ := as.Dispatch(m, msg, false)
	return cmd
}
