// Package sweep is the Sweep tab: a census of expired rows by scope, a dry
// run, and a sweep with progress and cancel.
package sweep

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Keys are the Sweep tab's key bindings.
type Keys struct {
	Up, Down, DryRun, Sweep, Cancel, Rescan key.Binding
	widgets.FilterKeys
}

// actions is the Sweep tab's table of keys: d, the one write, asks with
// the count (and, under a clock ahead of the real one, with the rows the
// real clock still sees live); x stops a running sweep.
func (k *Keys) actions() views.Actions[Model] {
	filter := func(m *Model, msg tea.KeyMsg) tea.Cmd {
		var cmd tea.Cmd
		*m, cmd, _ = m.handleFilter(msg)
		return cmd
	}
	do := views.Run[Model]
	return views.Actions[Model]{
		{Binding: &k.Up, Do: do(func(m *Model) tea.Cmd { m.move(-1); return nil }), Short: 1},
		{Binding: &k.Down, Do: do(func(m *Model) tea.Cmd { m.move(1); return nil }), Short: 2},
		{Binding: &k.DryRun, Do: do((*Model).dryRun), Col: 1, Short: 3},
		{Binding: &k.Sweep, What: "sweep expired rows", Asks: views.AskDialog, Do: do((*Model).askSweep), Off: Model.sweepOff, Col: 1, Short: 4},
		// Before the filter's esc: esc stops a running sweep first.
		{Binding: &k.Cancel, Do: do((*Model).cancelSweep), Col: 1, Short: 5},
		{Binding: &k.Rescan, Do: do((*Model).rescan), Col: 1, Short: 6},
		{Binding: &k.Filter, Do: filter, Short: 7},
		{Binding: &k.ClearFilter, Do: filter},
	}
}

// DefaultKeys returns the Sweep tab's default key bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous prefix")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next prefix")),
		DryRun: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "dry run: count what would go")),
		Sweep:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete the expired rows: sweep now (confirm)")),
		Cancel: key.NewBinding(key.WithKeys("x", "esc"), key.WithHelp("x", "cancel the sweep"), key.WithDisabled()),
		Rescan: key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "reload (rescan)")),

		FilterKeys: widgets.DefaultFilterKeys(),
	}
}

// Model shows the expired-but-present rows per top-level prefix with a
// preview, and sweeps them on request in batches with a progress bar, a
// cancel and a receipt.
type Model struct {
	deps     views.Deps
	styles   themes.Styles
	keys     Keys
	readOnly bool
	focused  bool

	census   *census
	scanning bool
	scanErr  error
	cursor   int    // index into census.scopes
	sel      string // the selected scope's name, kept across censuses
	filter   widgets.Filter
	tags     int

	run *sweepRun
	// guard is the open dialog of a sweep under a clock ahead of the real
	// one (guard.go); counting is set while s counts for it.
	guard     *guardAsk
	guardKeys GuardKeys
	counting  bool
	// realNow is the real clock (store.SystemClock; tests set another).
	realNow func() int64
	// swept says the census predates a sweep (from its start until the
	// next census): its preview would list rows already deleted.
	swept    bool
	progress sweepProgress
	receipt  *sweepDone
	dryBusy  bool
	// batch is the rows per sweep step (0: store.DefaultSweepBatch) and
	// pollEvery the progress poll; tests make both smaller.
	batch     int
	pollEvery time.Duration
	// pace, when set (tests), is called on the sweep's goroutine after
	// each batch is counted: a test holds the sweep there to press a key
	// at a known point, whatever the machine's load.
	pace func(store.SweepProgress)
	// The newest census, dry run and confirmation; older answers are dropped.
	scanGen, dryGen, askGen int

	width, height int
}

// sweepConfirmed is what the confirmation dialog's action sends back: the
// view starts the sweep itself, so that it owns the run and its cancel.
type sweepConfirmed struct {
	session, gen int
	scope        sweepScope
	now          int64
	// total is the rows the sweep is expected to remove (its progress
	// bar); includeLive is the explicit yes to the rows the real clock
	// still sees live.
	total       int64
	includeLive bool
}

// New returns the Sweep view over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	m := Model{deps: deps, styles: styles, keys: DefaultKeys(), readOnly: deps.Store.ReadOnly(), pollEvery: progressEvery,
		filter: widgets.NewFilter("filter: prefix", styles), guardKeys: DefaultGuardKeys(), realNow: store.SystemClock}
	m.scanning, m.tags, m.scanGen = true, 1, 1
	return m
}

// Init takes the first census.
func (m Model) Init() tea.Cmd {
	return takeCensus(m.deps.Store, m.deps.Session, m.scanGen, m.deps.Now())
}

// SetSize sets the view's rectangle.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.filter.SetWidth(w / 2)
}

// Focus gives the view the keys.
func (m *Model) Focus() { m.focused = true }

// Blur takes the keys away.
func (m *Model) Blur() { m.focused = false }

// Busy reports whether a census, a dry run or a sweep is in flight.
func (m Model) Busy() bool { return m.scanning || m.run != nil || m.dryBusy || m.counting }

// Capturing reports whether the filter input or the guard's dialog has
// the keys.
func (m Model) Capturing() bool { return m.filter.Typing() || m.guard != nil }

// Refresh takes a new census (the store or the clock changed), unless one
// or a sweep is in flight.
func (m Model) Refresh() (Model, tea.Cmd) {
	if m.scanning || m.run != nil {
		return m, nil
	}
	m.scanning, m.scanGen = true, m.nextTag()
	cmd := takeCensus(m.deps.Store, m.deps.Session, m.scanGen, m.deps.Now())
	return m, cmd
}

// Update handles a message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case censusDone:
		if msg.session == m.deps.Session && msg.gen == m.scanGen {
			m.scanning, m.scanErr = false, msg.err
			m.census = &msg.census
			m.cursor = min(m.cursor, len(msg.census.scopes)-1)
			m.follow()
			m.swept = m.swept && msg.err != nil
		}
	case sweepConfirmed:
		return m.start(msg)
	case guardCounted:
		return m.onGuardCounted(msg)
	case sweepProgress:
		if m.run != nil && msg.session == m.deps.Session && msg.gen == m.run.gen {
			m.progress = msg
			return m, pollSweep(m.deps.Session, m.run, m.pollEvery)
		}
	case sweepDone:
		return m.onDone(msg)
	case tea.MouseMsg:
		if x, y, ok := widgets.LeftClick(msg); ok && m.focused {
			return m.onClick(x, y), nil
		}
	case tea.KeyMsg:
		if m.focused && m.guard != nil {
			return m.guardKey(msg)
		}
		if m.focused && m.filter.Typing() {
			return m.typeFilter(msg), nil
		}
		if m.focused {
			return m.keys.actions().Handle(m, msg, m.readOnly)
		}
	}
	return m, nil
}

// cancelSweep stops the running sweep after its current batch (x).
func (m *Model) cancelSweep() tea.Cmd {
	m.run.cancel()
	return views.Flash(views.FlashInfo, "cancelling: the sweep stops after its current batch")
}

// rescan takes a new census (r).
func (m *Model) rescan() tea.Cmd {
	var cmd tea.Cmd
	*m, cmd = m.Refresh()
	return cmd
}

// scope is the selected scope, if the census is in.
func (m Model) scope() (sweepScope, bool) {
	if m.census == nil || m.cursor >= len(m.census.scopes) {
		return sweepScope{}, false
	}
	return m.census.scopes[m.cursor], true
}

// dryRun counts what sweeping the selected scope would remove now.
func (m *Model) dryRun() tea.Cmd {
	sc, ok := m.scope()
	if !ok || m.dryBusy || m.run != nil {
		return nil
	}
	if sc.undecodable {
		return views.Flash(views.FlashInfo, "undecodable rows cannot be addressed by prefix; select all prefixes")
	}
	m.dryBusy, m.dryGen = true, m.nextTag()
	return dryRun(m.deps.Store, m.deps.Session, m.dryGen, scopeName(sc), sc.prefix(), m.deps.Now(), m.realNow())
}

// sweepOff says why d cannot sweep the selected scope: its rows cannot
// be addressed by prefix, or none is expired. With no census yet, or a
// sweep running or being counted for, askSweep does nothing instead.
func (m Model) sweepOff() string {
	sc, ok := m.scope()
	switch {
	case !ok || m.run != nil || m.counting:
		return ""
	case sc.undecodable:
		return "undecodable rows cannot be addressed by prefix; select all prefixes to sweep them too"
	case sc.expired == 0:
		return fmt.Sprintf("nothing under %s is expired at the census time; %s rescans", scopeName(sc), views.KeyName(m.keys.Rescan))
	}
	return ""
}

// askSweep asks for confirmation, naming the count and the prefix; under
// a clock ahead of the real one it first counts the rows the real clock
// still sees live (guard.go). No census yet, or a sweep running or being
// counted for: nothing to ask.
func (m *Model) askSweep() tea.Cmd {
	sc, ok := m.scope()
	if !ok || m.run != nil || m.counting {
		return nil
	}
	m.askGen = m.nextTag()
	now, real := m.deps.Now(), m.realNow()
	if now > real {
		m.counting = true
		return countGuard(m.deps.Store, m.deps.Session, m.askGen, sc, now, real)
	}
	return m.confirm(sc, now, sc.expired)
}

// confirm asks the root's confirmation of a sweep of n rows under sc at
// now.
func (m Model) confirm(sc sweepScope, now, n int64) tea.Cmd {
	confirmed := sweepConfirmed{session: m.deps.Session, gen: m.askGen, scope: sc, now: now, total: n}
	do := func() tea.Msg { return confirmed }
	return views.Confirm("Sweep expired rows?", "sweep", do,
		fmt.Sprintf("Deletes the %d row(s) under %s that are expired at %s,", n, scopeName(sc), usertext.FormatTime(now)),
		"in batches of one short transaction each; a row another writer re-set meanwhile survives. "+
			views.Hint("%s cancels between batches.", m.keys.Cancel))
}

// start begins a confirmed sweep.
func (m Model) start(msg sweepConfirmed) (Model, tea.Cmd) {
	if msg.session != m.deps.Session || msg.gen != m.askGen || m.run != nil {
		return m, nil
	}
	sc := msg.scope
	ctx, cancel := context.WithTimeout(store.WithWriteOp(context.Background(), "sweep: sweep"), sweepTimeout)
	m.run = &sweepRun{gen: m.nextTag(), scope: scopeName(sc), total: msg.total, includeLive: msg.includeLive, cancel: cancel, started: time.Now(), pace: m.pace}
	m.progress, m.receipt, m.swept = sweepProgress{}, nil, true
	m.keys.Cancel.SetEnabled(true)
	// The guard holds in every sweep: RealNow keeps what the real clock
	// sees live unless the user chose all in the guard's dialog.
	opts := store.SweepOptions{Now: msg.now, RealNow: m.realNow(), IncludeLive: msg.includeLive, Prefix: sc.prefix(), Batch: m.batch}
	return m, tea.Batch(runSweep(ctx, m.deps.Store, m.deps.Session, m.run, opts), pollSweep(m.deps.Session, m.run, m.pollEvery))
}

// onDone shows a sweep's or a dry run's receipt, then takes a new census.
func (m Model) onDone(msg sweepDone) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	switch {
	case msg.dryRun && msg.gen == m.dryGen:
		m.dryBusy = false
	case !msg.dryRun && m.run != nil && msg.gen == m.run.gen:
		m.run = nil
		m.keys.Cancel.SetEnabled(false)
	default:
		return m, nil
	}
	m.receipt = &msg
	var flash tea.Cmd
	switch {
	case msg.err != nil && errors.Is(msg.err, context.Canceled):
		flash = views.Flash(views.FlashInfo, "sweep cancelled: %d row(s) removed, %d expired left", msg.res.Swept, msg.res.Remaining)
	case msg.err != nil:
		flash = views.Flash(views.FlashError, "sweep: %v", msg.err)
	case !msg.dryRun && msg.res.LiveByReal > 0 && !msg.includeLive:
		flash = views.Flash(views.FlashOK, "swept %d row(s) under %s in %s; kept %d the real clock sees live", msg.res.Swept, msg.scope, widgets.Human(msg.res.Elapsed), msg.res.LiveByReal)
	case !msg.dryRun:
		flash = views.Flash(views.FlashOK, "swept %d row(s) under %s in %s", msg.res.Swept, msg.scope, widgets.Human(msg.res.Elapsed))
	}
	if msg.dryRun {
		return m, flash
	}
	m, scan := m.Refresh()
	return m, tea.Batch(flash, scan)
}

// ShortHelp returns the bindings for the one-line help.
func (m Model) ShortHelp() []key.Binding {
	if m.guard != nil {
		return []key.Binding{m.guardKeys.Expired, m.guardKeys.All, m.guardKeys.Cancel}
	}
	if m.filter.Typing() {
		return m.filter.Help()
	}
	return m.keys.actions().ShortHelp(m.readOnly)
}

// FullHelp returns every live binding, in columns.
func (m Model) FullHelp() [][]key.Binding {
	if m.guard != nil {
		return [][]key.Binding{m.ShortHelp()}
	}
	if m.filter.Typing() {
		return [][]key.Binding{m.filter.Help()}
	}
	return m.keys.actions().FullHelp(m.readOnly)
}

// nextTag returns a fresh generation tag.
func (m *Model) nextTag() int {
	m.tags++
	return m.tags
}

// scopeName names a scope in messages: "all prefixes" or the prefix.
func scopeName(s sweepScope) string {
	switch {
	case s.all:
		return "all prefixes"
	case s.undecodable:
		return "(undecodable keys)"
	}
	return codec.Format(codec.Key{s.part})
}
