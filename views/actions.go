package views

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Ask is whether an action writes to the store, and how it asks first.
type Ask int

// The ways an action writes (or does not).
const (
	// Reads: the action writes nothing.
	Reads Ask = iota
	// AskDialog: the action sends a ConfirmMsg naming what will change;
	// the write is its Do.
	AskDialog
	// AskForm: the action opens a form that shows the whole write (key,
	// value, expiry, the check it runs under); its submit key is the
	// confirmation, and a submit that would change nothing writes nothing.
	AskForm
	// AskNone: the action writes nothing itself; it stages a write that
	// another action of the table commits, and that one asks (read-only
	// refuses it all the same: the commit could not be made).
	AskNone
)

// Action is one key of a tab: its binding, what it does, why it cannot
// apply now, and whether it writes. A tab declares its keys once, as a
// table of actions (Actions); the table dispatches a key press, refuses
// a write in read-only mode with its reason, makes the help, and is what
// the tests walk: read-only, each write is refused and writes nothing;
// writable, each asks (Asks) before anything is written.
type Action[M any] struct {
	// Binding points into the tab's key map. A binding switched off
	// (SetEnabled) matches nothing and is left out of help: the tab's mode
	// has no use for it (a peek that is not open, a sweep not running).
	Binding *key.Binding
	// What names the action in words, for the read-only refusal: "edit
	// value", "release a lease". Required of a write.
	What string
	// Asks says whether the action writes and how it asks first.
	Asks Ask
	// Do acts on the tab; msg is the key pressed (a widget's action, a
	// list's moves, tells its keys apart by it).
	Do func(m *M, msg tea.KeyMsg) tea.Cmd
	// Off says why the action cannot apply now ("select a lease to
	// release it"); "" (or nil) when it can. A press then says so and does
	// nothing else. Help still lists the key: it depends on the selection,
	// which every move changes, and help stays put.
	Off func(m M) string
	// Col is the help column the key is listed in (FullHelp); Short its
	// place in the one-line help, from 1 (0: not there).
	Col, Short int
}

// Run adapts a handler that needs no key press (most) to an Action's Do.
func Run[M any](f func(*M) tea.Cmd) func(*M, tea.KeyMsg) tea.Cmd {
	return func(m *M, _ tea.KeyMsg) tea.Cmd { return f(m) }
}

// Writes reports whether the action writes to the store.
func (a Action[M]) Writes() bool { return a.Asks != Reads }

// Actions is a tab's table of actions, in the order a key press is
// matched against them.
type Actions[M any] []Action[M]

// Dispatch acts on msg: the first action whose enabled binding matches
// it runs (a write in read-only mode is refused instead, with its
// reason, and an action that is Off says why). In read-only mode a write
// whose binding its mode switched off is still recognised, to be
// refused. handled is false when msg is none of the table's keys.
func (as Actions[M]) Dispatch(m *M, msg tea.KeyMsg, readOnly bool) (cmd tea.Cmd, handled bool) {
	for _, a := range as {
		if !key.Matches(msg, *a.Binding) {
			continue
		}
		switch {
		case readOnly && a.Writes():
			return Flash(FlashError, "%s", a.write().Refusal()), true
		case a.Off != nil:
			if why := a.Off(*m); why != "" {
				return Flash(FlashInfo, "%s", why), true
			}
		}
		return a.Do(m, msg), true
	}
	if w, ok := as.Writes().Match(msg); ok && readOnly {
		return Flash(FlashError, "%s", w.Refusal()), true
	}
	return nil, false
}

// Handle is Dispatch for a model held by value, as bubbletea hands it
// over: the model after the action, and the action's command (nil when
// msg is none of the table's keys).
func (as Actions[M]) Handle(m M, msg tea.KeyMsg, readOnly bool) (M, tea.Cmd) {
	cmd, _ := as.Dispatch(&m, msg, readOnly)
	return m, cmd
}

// ShortHelp lists the keys of the one-line help, by their Short place.
// In read-only mode the writes are left out: they do nothing there.
func (as Actions[M]) ShortHelp(readOnly bool) []key.Binding {
	var short Actions[M]
	for _, a := range as {
		if a.Short > 0 {
			short = append(short, a)
		}
	}
	slices.SortStableFunc(short, func(a, b Action[M]) int { return cmp.Compare(a.Short, b.Short) })
	out := make([]key.Binding, len(short))
	for i, a := range short {
		out[i] = a.help(readOnly)
	}
	return out
}

// FullHelp lists every key of the table in its column, in table order;
// in read-only mode the writes are switched off.
func (as Actions[M]) FullHelp(readOnly bool) [][]key.Binding {
	var out [][]key.Binding
	for _, a := range as {
		for len(out) <= a.Col {
			out = append(out, nil)
		}
		out[a.Col] = append(out[a.Col], a.help(readOnly))
	}
	return out
}

// help is a's binding as help shows it: off in read-only mode when it
// writes.
func (a Action[M]) help(readOnly bool) key.Binding {
	b := *a.Binding
	if readOnly && a.Writes() {
		b.SetEnabled(false)
	}
	return b
}

// Writes are the table's write actions, as WriteKeys.
func (as Actions[M]) Writes() WriteKeys {
	var out WriteKeys
	for _, a := range as {
		if a.Writes() {
			out = append(out, a.write())
		}
	}
	return out
}

// write is a as a WriteKey.
func (a Action[M]) write() WriteKey { return WriteKey{Binding: a.Binding, What: a.What, Asks: a.Asks} }

// WriteKey is one write action of a table, apart from its tab: what
// the tests walk, and what a refusal names.
type WriteKey struct {
	Binding *key.Binding
	What    string
	Asks    Ask
}

// WriteKeys are a table's write actions (Actions.Writes).
type WriteKeys []WriteKey

// Match is the write key msg presses, matched whether or not it is
// enabled (a key its mode switched off must still be recognised to be
// refused).
func (ws WriteKeys) Match(msg tea.KeyMsg) (WriteKey, bool) {
	for _, w := range ws {
		b := *w.Binding
		b.SetEnabled(true)
		if key.Matches(msg, b) {
			return w, true
		}
	}
	return WriteKey{}, false
}

// Refusal is the read-only refusal of w, with its reason.
func (w WriteKey) Refusal() string {
	return "read-only: " + w.What + " (" + w.Binding.Help().Key + ") is off: the store is open read-only (--read-only, or saved read-only: --write opens it to write), so kvdeck writes nothing"
}

// KeyName is b's key as a hint names it: the first of help's
// alternatives ("enter" of "enter/v", "←" of "←/h"; "B", "ctrl+s"). A
// hint that names a key takes it from the binding, so that it names the
// key that acts.
func KeyName(b key.Binding) string {
	k := b.Help().Key
	if first, _, ok := strings.Cut(k, "/"); ok && first != "" {
		return first
	}
	return k
}

// Together are bindings that one handler serves (a widget's keys: a
// list's moves, a filter's / and esc), as actions that write nothing,
// listed in help column col.
func Together[M any](col int, do func(*M, tea.KeyMsg) tea.Cmd, bs ...*key.Binding) Actions[M] {
	out := make(Actions[M], len(bs))
	for i, b := range bs {
		out[i] = Action[M]{Binding: b, Do: do, Col: col}
	}
	return out
}

// Hint fills format's %s verbs with the keys of bs, in order: a line of
// key hints ("%s acquire · %s release") that names the keys that act.
func Hint(format string, bs ...key.Binding) string {
	names := make([]any, len(bs))
	for i, b := range bs {
		names[i] = KeyName(b)
	}
	return fmt.Sprintf(format, names...)
}

// Step adapts a handler in bubbletea's shape (the model in, the new
// model and a command out) to an Action's Do.
func Step[M any](f func(M, tea.KeyMsg) (M, tea.Cmd)) func(*M, tea.KeyMsg) tea.Cmd {
	return func(m *M, msg tea.KeyMsg) tea.Cmd {
		var cmd tea.Cmd
		*m, cmd = f(*m, msg)
		return cmd
	}
}
