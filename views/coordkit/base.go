// Package coordkit is the small kit the three coordination tabs (Leases,
// Alarms, Queues) share: Base, the state each embeds (engine, load
// generation, focus, size, form, an action in flight), the load and its
// answer (Load, Loaded), the keys they all have and their table rows
// (Keys, ReadActions), the messages they all route alike and what covers
// their view (Route, Base.Cover), the findings of store/coord drawn by
// key, and for the two-list tabs (Alarms, Queues) Lists over each tab's
// Sides (ListActions, ClickAt) and the pieces of their panes (Fold,
// GroupsHead, Position).
package coordkit

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Base is the state the coordination views (Leases, Alarms, Queues)
// share: the engine, the generation of the newest load, focus, size, the
// form and an action in flight. Each view embeds it.
type Base struct {
	Deps     views.Deps
	Store    *store.Store // nil when Deps.Store is not one (err says so)
	Styles   themes.Styles
	ReadOnly bool
	Focused  bool

	tags    int  // source of generation tags
	Gen     int  // tag of the newest load; older answers are dropped
	Loading bool // a load is in flight
	Loaded  bool
	Err     error // the last load failed (shown inline)

	Form   *widgets.Form // the view's form, when open
	Acting bool          // an action is in flight

	Width, Height int

	// Fleet is the tab's fleet mode (fleet.go): every store of a group
	// at once.
	Fleet Fleet

	load LoadFunc // reads the view's rows (NewBase)
}

// LoadFunc reads a view's rows from s at now (epoch ms), its answer
// tagged with session and gen.
type LoadFunc func(s *store.Store, session, gen int, now int64) tea.Cmd

// NewBase takes the engine of deps and tags the
// first load here, not in Init (Init's receiver is a copy); load reads
// the view's rows, fleet the fleet mode's.
func NewBase(deps views.Deps, styles themes.Styles, load LoadFunc, fleet FleetDef) Base {
	b := Base{Deps: deps, Styles: styles, ReadOnly: deps.Store.ReadOnly(), load: load, Fleet: NewFleet(fleet, deps)}
	b.Store = deps.Store
	b.Gen, b.Loading = b.NextTag(), true
	return b
}

// Resize sets the view's size (and its fleet mode's).
func (b *Base) Resize(w, h int) {
	b.Width, b.Height = w, h
	b.Fleet.SetHeight(h)
}

// InFleet reports whether the tab shows its fleet mode.
func (b Base) InFleet() bool { return b.Fleet.On }

// FleetTick reads the fleet again on a live tick (nil when the mode is
// off): the fleet's stores change without the store shown changing.
func (b Base) FleetTick() tea.Cmd { return b.Fleet.Refresh() }

// ToggleFleet switches between this store and the fleet; back on this
// store it reads the store again (the fleet mode did not).
func (b *Base) ToggleFleet() tea.Cmd {
	cmd := b.Fleet.Toggle()
	if b.Fleet.On {
		return cmd
	}
	return tea.Batch(cmd, b.Reload())
}

// LeaveFleet shows this store again (enter on a row of the store shown).
func (b *Base) LeaveFleet() tea.Cmd {
	b.Fleet.On = false
	return b.Reload()
}

// SetFleetGroup sets the group the fleet mode shows.
func (b *Base) SetFleetGroup(group string) { b.Fleet.SetGroup(group) }

// Focus gives the view the keys.
func (b *Base) Focus() { b.Focused = true }

// Blur takes the keys away; a blurred view ignores keys.
func (b *Base) Blur() { b.Focused = false }

// NextTag returns a fresh generation tag.
func (b *Base) NextTag() int {
	b.tags++
	return b.tags
}

// Busy reports whether a load or an action is in flight.
func (b Base) Busy() bool { return b.Loading || b.Acting }

// Failed reports whether the last load failed: the root re-reads the
// tab at its next tick that reaches the store.
func (b Base) Failed() bool { return b.Err != nil }

// LoadCmd returns the load of the newest generation (Init's first load);
// nil when there is no store to load from.
func (b Base) LoadCmd() tea.Cmd {
	if b.Store == nil {
		return nil
	}
	return b.load(b.Store, b.Deps.Session, b.Gen, b.Deps.Now())
}

// InitCmd is the view's Init: its first load, and the fleet mode's
// listing when it starts on (--fleet).
func (b Base) InitCmd() tea.Cmd { return tea.Batch(b.LoadCmd(), b.Fleet.StartCmd()) }

// Reload tags a new load and returns it (Refresh); nil when there is no
// store to load from.
func (b *Base) Reload() tea.Cmd {
	if !b.StartLoad() {
		return nil
	}
	return b.LoadCmd()
}

// FormKey hands msg to the open form: esc closes it. On a submission
// (submit) it reads the form's values: when a field is not valid it says
// why in the form; else the action starts (the form waits, busy, until
// ActionAnswered) and ok is true: the view acts on vals (the form's own
// command is then dropped, as the action answers).
func (b *Base) FormKey(msg tea.KeyMsg) (vals []string, ok bool, cmd tea.Cmd) {
	act, cmd := b.Form.Handle(msg)
	switch act {
	case widgets.FormCancel:
		b.Form = nil
	case widgets.FormSubmit:
		vals, ok = b.submit()
		return vals, ok, nil
	}
	return nil, false, cmd
}

// submit reads the open form's values (FormKey).
func (b *Base) submit() ([]string, bool) {
	f := b.Form
	vals, err := f.Values()
	if err != nil {
		f.Err = err.Error()
		return nil, false
	}
	f.Busy, f.Err = true, ""
	b.Acting = true
	return vals, true
}

// StartLoad tags a new load; false when there is no store to load from.
func (b *Base) StartLoad() bool {
	if b.Store == nil {
		return false
	}
	b.Gen, b.Loading = b.NextTag(), true
	return true
}

// LoadAnswered takes a load's answer of session and gen: false when it is
// stale (another session, or superseded by a newer load) or failed, so
// its rows must not be used.
func (b *Base) LoadAnswered(session, gen int, err error) bool {
	if session != b.Deps.Session || gen != b.Gen {
		return false
	}
	b.Loading, b.Loaded, b.Err = false, true, err
	return err == nil
}

// ActionAnswered ends an action of session: false when the answer belongs
// to an older session.
func (b *Base) ActionAnswered(session int) bool {
	if session != b.Deps.Session {
		return false
	}
	b.Acting = false
	if b.Form != nil {
		b.Form.Busy = false
	}
	return true
}

// MinRows is the fewest rows a coordination tab's list shows: on a short
// screen its notes and hints fold away first (at 60x18 the
// permanent notes took the room and left one row).
const MinRows = 5

// Raced says what became of the rows a dialog counted due (asked) that
// an action then did not get (got fewer): another poller or consumer (a
// live service's replicas, the demo's) took them between the dialog and
// the yes. "" when it got them all.
func Raced(got, asked int, what, who string) string {
	switch {
	case got >= asked:
		return ""
	case got == 0:
		return fmt.Sprintf("nothing was due any more: the %d %s due when asked went to another %s meanwhile", asked, what, who)
	}
	return fmt.Sprintf("%d of the %d %s due when asked went to another %s meanwhile", asked-got, asked, what, who)
}

// DueSummary is an action's summary over rows that were due: counts
// (what it did to the got rows) and, when it got fewer than the asked
// its dialog counted, what became of the others (Raced); "nothing was
// due" when it got none and was asked none.
func DueSummary(counts string, got, asked int, what, who string) string {
	raced := Raced(got, asked, what, who)
	switch {
	case got == 0 && raced != "":
		return raced
	case got == 0:
		return "nothing was due"
	case raced != "":
		return counts + "; " + raced
	}
	return counts
}

// TitleAndSummary is a report's title and its summary on one line when
// they fit in w, else the summary wrapped under the title: a summary
// that says what another replica took must not be cut.
func TitleAndSummary(st themes.Styles, title, summary string, w int) []string {
	if ansi.StringWidth(title+" · "+summary) <= w {
		return []string{st.PaneTitle.Render(title) + st.Muted.Render(" · "+summary)}
	}
	return append([]string{st.PaneTitle.Render(title)}, widgets.ProseLines(summary, st.Muted, w)...)
}

// ShortHelp is a coordination tab's one-line help, in the order the tab
// takes keys: the fleet mode's (toggle leaves it), the open form's, the
// filter's while it is typed, else the tab's table's.
func ShortHelp[M any](b Base, filter widgets.Filter, toggle key.Binding, as views.Actions[M]) []key.Binding {
	switch {
	case b.Fleet.On:
		return b.Fleet.Help(toggle)
	case b.Form != nil:
		return b.Form.Help()
	case filter.Typing():
		return filter.Help()
	}
	return as.ShortHelp(b.ReadOnly)
}

// FullHelp is a coordination tab's every key, in columns (as ShortHelp:
// a form or a filter typed shows only its own keys).
func FullHelp[M any](b Base, filter widgets.Filter, toggle key.Binding, as views.Actions[M]) [][]key.Binding {
	switch {
	case b.Fleet.On:
		return b.Fleet.FullHelp(toggle)
	case b.Form != nil || filter.Typing():
		return [][]key.Binding{ShortHelp(b, filter, toggle, as)}
	}
	return as.FullHelp(b.ReadOnly)
}

// RefreshCmd re-reads the tab's store when it changed; nil in the fleet
// mode, which the live tick reads (FleetTick).
func (b *Base) RefreshCmd() tea.Cmd {
	if b.Fleet.On {
		return nil
	}
	return b.Reload()
}
