package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Overlays are what opens over the tabs: a dialog, a prompt, a list, a
// full screen, or a run that holds the keys. They sit on one stack in
// the root (as k9s keeps its pages in internal/ui/pages.go): the top one
// takes a key first, each draws over what is below it, and the message
// line shows the top one's help. The stack is ordered by layer
// (overlayTable): an overlay opened goes above those of lower layers and
// below those of higher ones, so a dialog stays on top of a list however
// their messages race, and an overlay replaces the one of its own layer.

// overlay is one layer over the tabs. Its state is its own; the root
// hands it the model, and it returns the model with the stack changed
// (overlayStack.put, drop) as it changed itself.
type overlay interface {
	layer() layer
	// key handles a key; false passes it to the overlay below (then the
	// tab's text input, the global keys and the tab).
	key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool)
	// draw draws body (the tab, with the overlays below drawn over it)
	// with the overlay over it, in h lines.
	draw(m model, body string, h int) string
	// line is what the overlay shows on the message line instead of the
	// flash (a run's progress, the command line); false: none.
	line(m model) (string, bool)
	// help is the keys the message line lists while the overlay is the
	// top one with help; false: none (the tab's show).
	help(m model) ([]key.Binding, bool)
	// mouse handles a mouse event; false passes it to the overlay below
	// (then the tab bar and the tab).
	mouse(m model, msg tea.MouseMsg) (model, tea.Cmd, bool)
	// generation tags the answers of the overlay's commands (0: none);
	// answer takes such an answer while the overlay holds its
	// generation. An answer no overlay holds is dropped (or, if it says
	// so, orphaned: it acts alone).
	generation() int
	answer(m model, msg tea.Msg) (model, tea.Cmd)
}

// layer is an overlay's place on the stack, bottom first: an index into
// overlayTable.
type layer int

const (
	layerFleet layer = iota
	layerCommand
	layerFinder
	layerPicker
	layerUndo
	layerPoints
	layerKeyHistory
	layerLog
	layerHelp
	layerJump
	layerBulkMenu
	layerExport
	layerBulkRun
	layerDialog
	numLayers
)

// overlayDef is one entry of overlayTable: the overlay's name, the global
// key that opens it (a field of GlobalKeys; "" when something else does)
// and, in words, what opens it.
type overlayDef struct {
	name   string
	global string
	opens  string
}

// overlayTable is every overlay, bottom layer first: the order keys go in
// (top first) is the reverse. TestOverlayTable opens each one and checks
// that it is on top and takes the keys.
var overlayTable = [numLayers]overlayDef{
	layerFleet:      {"fleet", "Fleet", "F or :fleet: every saved store's health (fleet.go)"},
	layerCommand:    {"command line", "Command", ": (and :open URL --auth-token's prompt, command.go)"},
	layerFinder:     {"key finder", "Find", "ctrl+p or :find (finder.go)"},
	layerPicker:     {"store picker", "Stores", "O or :store (switcher.go)"},
	layerUndo:       {"undo list", "Undo", "z (undo.go)"},
	layerPoints:     {"restore points", "", ":at alone at a point of the past (timemachine.go)"},
	layerKeyHistory: {"key history", "", "H in Browse (keyhistory.go)"},
	layerLog:        {"message log", "", ":log (screen.go)"},
	layerHelp:       {"help", "Help", "? (screen.go)"},
	layerJump:       {"jump in flight", "", "a tab's jump key (o; enter in Activity) until the tab switches (jump.go)"},
	layerBulkMenu:   {"bulk menu", "", "; over a tab's marked rows (bulk.go)"},
	layerExport:     {"export", "", "o in the bulk menu: its path prompt, then its run (export.go)"},
	layerBulkRun:    {"bulk run", "", "y to a bulk action's dialog, until its last commit (bulk.go)"},
	layerDialog:     {"dialog", "", "a question (views.ConfirmMsg), or a quit while tabs hold work (quit.go)"},
}

// String is the overlay's name.
func (l layer) String() string { return overlayTable[l].name }

// overlayStack is the overlays open, bottom first, and the last
// generation given to one. It is a value, as the model is: every change
// makes a new slice.
type overlayStack struct {
	open []overlay
	gen  int
}

// newGen is a generation no overlay had: an overlay takes one when it
// opens, or when it retires the answers in flight.
func (s *overlayStack) newGen() int {
	s.gen++
	return s.gen
}

// put opens o, or puts its new state in place: it replaces the overlay
// of its layer, else goes above every overlay of a lower layer.
func (s *overlayStack) put(o overlay) {
	out := make([]overlay, 0, len(s.open)+1)
	placed := false
	for _, p := range s.open {
		if p.layer() == o.layer() {
			continue
		}
		if !placed && p.layer() > o.layer() {
			out, placed = append(out, o), true
		}
		out = append(out, p)
	}
	if !placed {
		out = append(out, o)
	}
	s.open = out
}

// drop closes the overlay of layer l, if open.
func (s *overlayStack) drop(l layer) {
	out := make([]overlay, 0, len(s.open))
	for _, p := range s.open {
		if p.layer() != l {
			out = append(out, p)
		}
	}
	s.open = out
}

// has reports whether the overlay of layer l is open.
func (s overlayStack) has(l layer) bool {
	for _, p := range s.open {
		if p.layer() == l {
			return true
		}
	}
	return false
}

// topDown lists the overlays open, top first.
func (s overlayStack) topDown() []overlay {
	out := make([]overlay, len(s.open))
	for i, o := range s.open {
		out[len(out)-1-i] = o
	}
	return out
}

// opened is the open overlay of type T (the zero T when none is).
func opened[T overlay](s overlayStack) T {
	for _, p := range s.open {
		if o, ok := p.(T); ok {
			return o
		}
	}
	var zero T
	return zero
}

// overlayKey offers a key to the overlays, top first; false: none took
// it.
func (m model) overlayKey(msg tea.KeyMsg) (model, tea.Cmd, bool) {
	for _, o := range m.overlays.topDown() {
		if next, cmd, ok := o.key(m, msg); ok {
			return next, cmd, true
		}
	}
	return m, nil, false
}

// overlayMouse offers a mouse event to the overlays, top first; false:
// none took it.
func (m model) overlayMouse(msg tea.MouseMsg) (model, tea.Cmd, bool) {
	for _, o := range m.overlays.topDown() {
		if next, cmd, ok := o.mouse(m, msg); ok {
			return next, cmd, true
		}
	}
	return m, nil, false
}

// drawOverlays draws each overlay over body, bottom first.
func (m model) drawOverlays(body string, h int) string {
	for _, o := range m.overlays.open {
		body = o.draw(m, body, h)
	}
	return body
}

// overlayLine is the top overlay's line for the message line, if one has
// a line.
func (m model) overlayLine() (string, bool) {
	for _, o := range m.overlays.topDown() {
		if s, ok := o.line(m); ok {
			return s, true
		}
	}
	return "", false
}

// overlayHelp is the help of the top overlay that has help.
func (m model) overlayHelp() ([]key.Binding, bool) {
	for _, o := range m.overlays.topDown() {
		if h, ok := o.help(m); ok {
			return h, true
		}
	}
	return nil, false
}

// overlayAnswer is the answer of an overlay's command: it carries the
// generation the overlay held when it asked.
type overlayAnswer interface{ overlayGen() int }

// orphan is an answer that acts alone when no overlay holds its
// generation (an undo's outcome is said though its list was closed).
type orphan interface {
	orphaned(m model) (model, tea.Cmd)
}

// deliver hands msg to the overlay that holds its generation; else it
// is orphaned or dropped (stale: its overlay closed, or asked again).
func (m model) deliver(msg overlayAnswer) (model, tea.Cmd) {
	for _, o := range m.overlays.open {
		if g := o.generation(); g != 0 && g == msg.overlayGen() {
			return o.answer(m, msg)
		}
	}
	if o, ok := msg.(orphan); ok {
		return o.orphaned(m)
	}
	return m, nil
}

// answerWith hands msg to handle when it is an A, the answer an
// overlay's generation tags; another is dropped.
func answerWith[A tea.Msg](m model, msg tea.Msg, handle func(model, A) (model, tea.Cmd)) (model, tea.Cmd) {
	if a, ok := msg.(A); ok {
		return handle(m, a)
	}
	return m, nil
}

// bare is what an overlay does by default: draw nothing, show no line
// and no help, let the mouse through, send no command. Overlays embed it
// and say what they do besides.
type bare struct{}

func (bare) draw(_ model, body string, _ int) string { return body }
func (bare) line(model) (string, bool)               { return "", false }
func (bare) help(model) ([]key.Binding, bool)        { return nil, false }
func (bare) mouse(m model, _ tea.MouseMsg) (model, tea.Cmd, bool) {
	return m, nil, false
}
func (bare) generation() int                            { return 0 }
func (bare) answer(m model, _ tea.Msg) (model, tea.Cmd) { return m, nil }

// opaque is an overlay that takes the mouse too: nothing below it gets a
// click or the wheel.
type opaque struct{ bare }

func (opaque) mouse(m model, _ tea.MouseMsg) (model, tea.Cmd, bool) { return m, nil, true }

// taken is a key handler's answer as an overlay's: the key was taken.
func taken(m model, cmd tea.Cmd) (model, tea.Cmd, bool) { return m, cmd, true }
