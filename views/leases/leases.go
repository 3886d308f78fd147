// Package leases is the Leases tab: every lease row with its holder, expiry
// and findings, acquire, release and break (with confirmation), and the cron
// jobs built on leases.
package leases

import (
	"sort"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// Keys are the Leases view's key bindings.
type Keys struct {
	coordkit.Keys           // o: the row's raw key in Browse
	Sort                    key.Binding
	Acquire, Release, Break key.Binding
}

// DefaultKeys returns the Leases view's default key bindings.
func DefaultKeys() Keys {
	return Keys{
		Keys:    coordkit.DefaultKeys(),
		Sort:    key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "sort by key / time left")),
		Acquire: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new lease: acquire as kvdeck")),
		Release: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "release (kvdeck's own)")),
		Break:   key.NewBinding(key.WithKeys("B"), key.WithHelp("B", "break (confirm, CAS)")),
	}
}

// actions is the Leases tab's table of keys: n opens the acquire form,
// d and B ask.
func (k *Keys) actions() views.Actions[Model] {
	nav := func(m *Model, msg tea.KeyMsg) tea.Cmd {
		m.list.Handle(msg, m.keys.NavKeys, m.ids(), m.tableRows())
		return nil
	}
	filter := func(m *Model, msg tea.KeyMsg) tea.Cmd {
		_, changed, cmd := m.filter.Start(msg, &m.keys.FilterKeys)
		if changed {
			m.list.Follow(m.ids(), m.tableRows())
		}
		return cmd
	}
	as := append(views.Together(0, nav, k.NavKeys.All()...), views.Action[Model]{Binding: &k.Sort, Do: views.Run((*Model).toggleSort), Col: 1, Short: 4})
	as = append(as, coordkit.ReadActions[Model](&k.Keys, filter, (*Model).showInBrowse, 5)...)
	as = append(as, views.Actions[Model]{
		{Binding: &k.Acquire, What: "acquire a lease", Asks: views.AskForm, Do: views.Run((*Model).startAcquire), Col: 2, Short: 1},
		{Binding: &k.Release, What: "release a lease", Asks: views.AskDialog, Do: views.Run((*Model).askRelease), Off: Model.releaseOff, Col: 2, Short: 2},
		{Binding: &k.Break, What: "break a lease", Asks: views.AskDialog, Do: views.Run((*Model).askBreak), Off: Model.breakOff, Col: 2, Short: 3},
	}...)
	return coordkit.FleetOff(as, Model.InFleet, &k.Fleet)
}

// Model lists every lease and cron tick-lease with a live time-to-expiry
// bar, and acquires, releases and breaks leases.
type Model struct {
	coordkit.Base
	keys Keys

	rows   []coord.LeaseRow
	cron   []coord.CronSchedule
	finds  coordkit.Findings
	others []coord.Finding // findings on rows with no line (malformed keys)
	// removed is the row kvdeck itself just released or broke: its going
	// needs no "is gone" note.
	removed string

	byLeft bool // sort by time left instead of key
	filter widgets.Filter
	list   widgets.ListCursor

	// mine are the leases kvdeck acquired in this session, by key text:
	// the proof (stamp) Release needs, and the TTL the store does not
	// record. Replaced, never changed in place: copies of the model share
	// the map.
	mine map[string]heldLease
	// acquired are the leases kvdeck acquired in this session, by key
	// text, kept after they are released: a row at the key with the same
	// holder (a random id per acquisition, so kvdeck's alone) is kvdeck's
	// lease again, under a new stamp (an undo put it back), and a load
	// takes it into mine at that stamp. Replaced, never changed in place.
	acquired map[string]heldLease

	churn churn // new and ended rows at each load, charted in the footer
}

// New returns the Leases view over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	m := Model{
		Base: coordkit.NewBase(deps, styles, coordkit.Load(inspectLeases), fleetDef(styles)), keys: DefaultKeys(),
		filter: widgets.NewFilter("filter: key, holder, stamp or state", styles),
		mine:   map[string]heldLease{},
	}
	m.acquired = map[string]heldLease{}
	return m
}

// Init loads the leases.
func (m Model) Init() tea.Cmd { return m.InitCmd() }

// SetSize sets the view's rectangle.
func (m *Model) SetSize(w, h int) {
	m.Resize(w, h)
	m.filter.SetWidth(w)
	if m.Form != nil {
		m.Form.SetWidth(m.detailInner())
	}
}

// Capturing reports whether a text input has the keys.
func (m Model) Capturing() bool { return m.filter.Typing() || m.Form != nil }

// Update handles a message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if cmd, ok := coordkit.Route(&m, msg, Model.Update, Model.onClick, m.keys.actions); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case leasesLoaded:
		return m.onLoaded(msg)
	case leaseActed:
		return m.onActed(msg)
	case tea.KeyMsg:
		switch {
		case m.Form != nil:
			return m.handleForm(msg)
		case m.filter.Typing():
			if m.filter.Type(msg, &m.keys.FilterKeys) {
				m.list.Follow(m.ids(), m.tableRows())
			}
			return m, nil
		}
		return m.keys.actions().Handle(m, msg, m.ReadOnly) // the table
	}
	return m, nil
}

// Refresh re-reads the leases: the store changed (coordkit's RefreshCmd).
func (m Model) Refresh() (Model, tea.Cmd) {
	cmd := m.RefreshCmd()
	return m, cmd
}

// ShortHelp returns the bindings for the one-line help.
func (m Model) ShortHelp() []key.Binding {
	return coordkit.ShortHelp(m.Base, m.filter, m.keys.Fleet, m.keys.actions())
}

// FullHelp returns every live binding, in columns.
func (m Model) FullHelp() [][]key.Binding {
	return coordkit.FullHelp(m.Base, m.filter, m.keys.Fleet, m.keys.actions())
}

// heldLease is a lease kvdeck acquired, with the TTL it asked for.
type heldLease struct {
	coord.Lease
	ttl time.Duration
}

// Acquired reports whether kvdeck acquired the lease at key as holder in
// this session (for the undo preview: an undo that puts it back gives
// kvdeck its lease again).
func (m Model) Acquired(key codec.Key, holder string) bool {
	l, ok := m.acquired[codec.Format(key)]
	return ok && holder != "" && l.Holder == holder
}

// visible returns the rows the filter lets through, in the chosen order.
func (m Model) visible() []coord.LeaseRow {
	now := m.Deps.Now()
	out := make([]coord.LeaseRow, 0, len(m.rows))
	for _, r := range m.rows {
		if m.filter.Match(leaseSearchText(r, now)) {
			out = append(out, r)
		}
	}
	if m.byLeft {
		sort.SliceStable(out, func(i, j int) bool { return expiresBefore(out[i].ExpiresAt, out[j].ExpiresAt) })
	}
	return out
}

// ids returns the key texts of the visible rows.
// Select puts the cursor on the row of key k (now, or when the rows come),
// for a jump from Browse.
func (m *Model) Select(k codec.Key) {
	m.filter.Set("", &m.keys.FilterKeys)
	m.list.ID = codec.Format(k)
	// Before the first load the rows are not there to follow: the load
	// finds the row by this ID (onLoaded), as Alarms and Queues wait.
	if m.Loaded {
		m.list.Follow(m.ids(), m.tableRows())
	}
}

// Selected is the key of the selected row.
func (m Model) Selected() (codec.Key, bool) {
	r, ok := m.selected()
	return r.Key, ok
}

func (m Model) ids() []string {
	return widgets.IDs(m.visible(), func(r coord.LeaseRow) string { return codec.Format(r.Key) })
}

// selected returns the row under the cursor.
func (m Model) selected() (coord.LeaseRow, bool) {
	return widgets.Selected(m.list, m.visible())
}

// leaseSearchText is what the filter matches a row against: its key,
// holder, stamp and state at now.
func leaseSearchText(r coord.LeaseRow, now int64) string {
	return codec.Format(r.Key) + " " + r.Holder + " " + r.Versionstamp + " " + string(leaseStateAt(r, now))
}

// expiresBefore orders expiry times, rows without expiry last.
func expiresBefore(a, b *int64) bool {
	switch {
	case a == nil:
		return false
	case b == nil:
		return true
	}
	return *a < *b
}
