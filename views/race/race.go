// Package race is the Race tab: the compare-and-set race, step by step with
// explanations and replay, or live with workers of their own.
package race

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/race"
	"kvdeck/themes"
	"kvdeck/views"
)

// Keys are the Race tab's key bindings.
type Keys struct {
	Mode, Naive                        key.Binding
	Left, Right, Next                  key.Binding // step mode
	Read, Stage, Commit, Recover       key.Binding
	AddClient, Replay, Reset           key.Binding
	Start, Stop, More, Fewer, Lockstep key.Binding // live mode
}

// DefaultKeys returns the Race tab's default key bindings.
func DefaultKeys() Keys {
	b := func(k, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(k), key.WithHelp(help, desc))
	}
	return Keys{
		Mode:      b("m", "m", "step / live mode"),
		Naive:     b("U", "U", "unchecked: naive (no check) on/off"),
		Left:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "previous client")),
		Right:     key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next client")),
		Next:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "client's next step")),
		Read:      b("r", "r", "read"),
		Stage:     b("i", "i", "stage the increment (check+set)"),
		Commit:    b("ctrl+s", "ctrl+s", "commit"),
		Recover:   b("A", "A", "again: recover (re-read, re-stage)"),
		AddClient: b("n", "n", "new client"),
		Replay:    b("R", "R", "replay the interleaving"),
		Reset:     b("X", "X", "reset the theater"),
		Start:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "start workers")),
		Stop:      b("x", "x", "stop the workers"),
		More:      b("+", "+", "more workers"),
		Fewer:     b("-", "-", "fewer workers"),
		Lockstep:  b("L", "L", "lockstep (worst interleaving)"),
	}
}

// actions is the Race tab's table of keys, both modes in one: the mode
// shown switches the other's bindings off (updateKeys), so enter is the
// client's next step in step mode and starts the workers in live mode.
// ctrl+s, and enter when the client's next step is its commit, ask
// first, showing the staged check+set; R (the replay resets the counter
// and commits again) and enter in live mode ask; i and A only stage a
// commit, which ctrl+s then asks for. The Short places give each mode's
// one-line help its order.
func (k *Keys) actions() views.Actions[Model] {
	step := func(f func(*Model, *stepAction)) func(*Model, tea.KeyMsg) tea.Cmd {
		return func(m *Model, _ tea.KeyMsg) tea.Cmd {
			a := stepAction{client: m.step.selected, naive: m.naive}
			f(m, &a)
			return m.takeStep(a)
		}
	}
	kind := func(k race.StepKind) func(*Model, tea.KeyMsg) tea.Cmd {
		return step(func(_ *Model, a *stepAction) { a.kind = k })
	}
	do := views.Run[Model]
	return views.Actions[Model]{
		{Binding: &k.Mode, Do: do((*Model).toggleMode), Short: 15},
		{Binding: &k.Naive, Do: do((*Model).toggleNaive), Short: 13},
		{Binding: &k.Left, Do: do((*Model).selectLeft), Col: 1, Short: 2},
		{Binding: &k.Right, Do: do((*Model).selectRight), Col: 1, Short: 3},
		{Binding: &k.Next, What: "a client's next step (its commit asks)", Asks: views.AskDialog,
			Do: step(func(m *Model, a *stepAction) { a.kind = nextStep(m.step.events, m.step.selected) }), Col: 1, Short: 1},
		{Binding: &k.Read, Do: kind(race.StepRead), Col: 1, Short: 4},
		{Binding: &k.Stage, What: "stage a commit", Asks: views.AskNone, Do: kind(race.StepStage), Col: 1, Short: 5},
		{Binding: &k.Commit, What: "commit a client's staged write", Asks: views.AskDialog, Do: kind(race.StepCommit), Col: 1, Short: 6},
		{Binding: &k.Recover, What: "recover (re-read, re-stage)", Asks: views.AskNone, Do: kind(race.StepRecover), Col: 1, Short: 7},
		{Binding: &k.AddClient, Do: step(func(_ *Model, a *stepAction) { a.add = true }), Col: 2},
		{Binding: &k.Replay, What: "replay the interleaving", Asks: views.AskDialog, Do: step(func(_ *Model, a *stepAction) { a.replay = true }), Col: 2, Short: 8},
		{Binding: &k.Reset, Do: step(func(_ *Model, a *stepAction) { a.reset = true }), Col: 2},
		{Binding: &k.Start, What: "start the live workers", Asks: views.AskDialog, Do: do((*Model).askStart), Col: 3, Short: 9},
		{Binding: &k.Stop, Do: do((*Model).stopLive), Col: 3, Short: 10},
		{Binding: &k.More, Do: do(func(m *Model) tea.Cmd { m.run.workers = min(m.run.workers*2, 64); return nil }), Col: 3, Short: 11},
		{Binding: &k.Fewer, Do: do(func(m *Model) tea.Cmd { m.run.workers = max(m.run.workers/2, 1); return nil }), Col: 3, Short: 12},
		{Binding: &k.Lockstep, Do: do(func(m *Model) tea.Cmd { m.run.lockstep = !m.run.lockstep; return nil }), Col: 3, Short: 14},
	}
}

// raceCounterKey is the counter the tab races on: {"n": <integer>}, the
// format `kvdeck race` uses, so a headless race can join in.
func raceCounterKey() codec.Key { return codec.Key{codec.String("kvdeck"), codec.String("race")} }

// Model is the CAS race theater: step mode (clients A, B, ... reading,
// staging and committing one key press at a time, with the loser's
// failure explained and the interleaving replayable) and live mode (N
// workers on their own connections, with live counters).
type Model struct {
	deps     views.Deps
	styles   themes.Styles
	keys     Keys
	readOnly bool
	focused  bool
	live     bool // live mode is shown
	naive    bool
	tags     int

	step stepState
	run  liveState

	width, height int
}

// New returns the Race view in step mode over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	m := Model{deps: deps, styles: styles, keys: DefaultKeys(), readOnly: deps.Store.ReadOnly()}
	m.step = newStepState(deps)
	m.run = newLiveState()
	m.updateKeys()
	return m
}

// Init does nothing: the theater reads on the first step.
func (m Model) Init() tea.Cmd { return nil }

// SetSize sets the view's rectangle.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Focus gives the view the keys.
func (m *Model) Focus() { m.focused = true }

// Blur takes the keys away.
func (m *Model) Blur() { m.focused = false }

// Busy reports whether a step or live workers are running.
func (m Model) Busy() bool { return m.step.busy || m.run.race != nil }

// Capturing is always false: the view has no text input.
func (m Model) Capturing() bool { return false }

// Refresh has nothing to re-read: the theater shows what its clients saw
// (that is the point), and live mode polls its own figures.
func (m Model) Refresh() (Model, tea.Cmd) { return m, nil }

// Update handles a message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case raceStepped:
		return m.onStepped(msg)
	case stepConfirmed:
		return m.onStepConfirmed(msg)
	case liveConfirmed:
		if msg.session != m.deps.Session {
			return m, nil
		}
		cmd := m.startLive()
		return m, cmd
	case liveStarted:
		return m.onLiveStarted(msg)
	case liveTick:
		return m.onLiveTick(msg)
	case liveDone:
		return m.onLiveDone(msg)
	case tea.MouseMsg:
		if m.focused {
			return m.onMouse(msg), nil
		}
	case tea.KeyMsg:
		if !m.focused {
			return m, nil
		}
		return m.keys.actions().Handle(m, msg, m.readOnly)
	}
	return m, nil
}

// updateKeys enables the bindings of the mode shown.
func (m *Model) updateKeys() {
	k := &m.keys
	running := m.run.race != nil
	for _, b := range []*key.Binding{&k.Left, &k.Right, &k.Next, &k.Read, &k.Stage, &k.Commit, &k.Recover, &k.AddClient, &k.Replay, &k.Reset} {
		b.SetEnabled(!m.live)
	}
	for _, b := range []*key.Binding{&k.More, &k.Fewer, &k.Lockstep} {
		b.SetEnabled(m.live && !running)
	}
	k.Start.SetEnabled(m.live && !running)
	k.Stop.SetEnabled(m.live && running)
	k.Mode.SetEnabled(!running)
	k.Naive.SetEnabled(!running)
}

// toggleMode switches between step and live mode (m; off while live
// workers run).
func (m *Model) toggleMode() tea.Cmd {
	m.live = !m.live
	m.updateKeys()
	return nil
}

// toggleNaive switches the naive (unchecked) writes on or off.
func (m *Model) toggleNaive() tea.Cmd {
	m.naive = !m.naive
	return views.Flash(views.FlashInfo, "%s", naiveText(m.naive))
}

// ShortHelp returns the bindings for the one-line help: the mode's
// keys (the other mode's are switched off, and help leaves them out).
func (m Model) ShortHelp() []key.Binding { return m.keys.actions().ShortHelp(m.readOnly) }

// FullHelp returns every live binding, in columns.
func (m Model) FullHelp() [][]key.Binding { return m.keys.actions().FullHelp(m.readOnly) }

// nextTag returns a fresh generation tag.
func (m *Model) nextTag() int {
	m.tags++
	return m.tags
}
