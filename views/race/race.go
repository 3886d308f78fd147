// Package race is the Race tab: the compare-and-set race, step by step with
// explanations and replay, or live with workers of their own.
package race

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
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

// Writes are the Race tab's write keys, declared once: read-only mode
// disables them and says why. c, and enter when the client's next step
// is its commit, ask first, showing the staged check+set; R (the replay
// resets the counter and commits again) and enter (live workers) ask; s
// and A only stage a commit, which c then asks for.
func (k *Keys) Writes() views.WriteKeys { return append(k.stepWrites(), k.liveWrites()...) }

// stepWrites are step mode's write keys (the refusals of that mode).
func (k *Keys) stepWrites() views.WriteKeys {
	return views.WriteKeys{
		{Binding: &k.Next, What: "a client's next step (its commit asks)", Asks: views.AskDialog},
		{Binding: &k.Stage, What: "stage a commit", Asks: views.AskNone},
		{Binding: &k.Commit, What: "commit a client's staged write", Asks: views.AskDialog},
		{Binding: &k.Recover, What: "recover (re-read, re-stage)", Asks: views.AskNone},
		{Binding: &k.Replay, What: "replay the interleaving", Asks: views.AskDialog},
	}
}

// liveWrites are live mode's write keys.
func (k *Keys) liveWrites() views.WriteKeys {
	return views.WriteKeys{{Binding: &k.Start, What: "start the live workers", Asks: views.AskDialog}}
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
		if key.Matches(msg, m.keys.Mode) && m.run.race == nil {
			m.live = !m.live
			m.updateKeys()
			return m, nil
		}
		if m.live {
			return m.handleLive(msg)
		}
		return m.handleStep(msg)
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
	if m.readOnly {
		k.Writes().Disable()
	}
}

// ShortHelp returns the bindings for the one-line help.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	if m.live {
		return []key.Binding{k.Start, k.Stop, k.More, k.Fewer, k.Naive, k.Lockstep, k.Mode}
	}
	return []key.Binding{k.Next, k.Left, k.Right, k.Read, k.Stage, k.Commit, k.Recover, k.Replay, k.Naive, k.Mode}
}

// FullHelp returns every live binding, in columns.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		{k.Mode, k.Naive},
		{k.Left, k.Right, k.Next, k.Read, k.Stage, k.Commit, k.Recover},
		{k.AddClient, k.Replay, k.Reset},
		{k.Start, k.Stop, k.More, k.Fewer, k.Lockstep},
	}
}

// nextTag returns a fresh generation tag.
func (m *Model) nextTag() int {
	m.tags++
	return m.tags
}
