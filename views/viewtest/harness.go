package viewtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
)

// Goldens are drawn without colour, whatever the terminal running the
// tests supports.
func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// Model is what the harness needs of a tab: the bubbles contract's value
// side (Init, Update returning the tab's own type, View) and Refresh.
type Model[V any] interface {
	Init() tea.Cmd
	Update(tea.Msg) (V, tea.Cmd)
	Refresh() (V, tea.Cmd)
	View() string
}

// Sizer is the pointer side of a tab: SetSize and Focus.
type Sizer[V any] interface {
	*V
	SetSize(w, h int)
	Focus()
}

// Styles are the styles the goldens are drawn with.
func Styles() themes.Styles { return themes.NewStyles(themes.Dark()) }

// Harness drives one tab the way the root and the bubbletea runtime
// would: keys in, every command on its own goroutine, its message back to
// Update on the test's goroutine; what the tab asks of the root (flashes,
// confirmations, compose hand-overs, clipboard copies) is kept for the
// test. Settle waits until no command is left but the ones Parked says may
// stay (a queue poll waiting for the user's decisions).
type Harness[V Model[V]] struct {
	T     *testing.T
	M     V // the tab
	S     *store.Store
	Clock *store.VirtualClock
	// Parked counts the commands of M that wait for the user (0 unless set).
	Parked func(V) int

	Flashes  []views.FlashMsg
	Confirms []views.ConfirmMsg
	Composes []views.ComposeMsg
	Bulks    []views.BulkMsg        // the bulk menus asked for (;)
	Opened   []views.OpenInStoreMsg // the stores a fleet row's enter asked for
	Copied   []string

	msgs    chan tea.Msg
	pending int
}

// Option changes what Start gives the tab.
type Option func(*views.Deps)

// Reopen lets the tab open more connections to url (Deps.Open: the Race
// tab's live workers), on the same clock.
func Reopen(url string, clock *store.VirtualClock) Option {
	return func(d *views.Deps) {
		d.Open = func(ctx context.Context) (*store.Store, error) {
			return store.Open(ctx, url, store.Options{Clock: clock.Now, Create: true})
		}
	}
}

// Start builds a focused tab of w x h cells over s (session 1) with build,
// runs its Init and settles.
func Start[V Model[V], P Sizer[V]](t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int, build func(views.Deps, themes.Styles) V, opts ...Option) *Harness[V] {
	t.Helper()
	hs := &Harness[V]{T: t, S: s, Clock: clock, msgs: make(chan tea.Msg, 64), Parked: func(V) int { return 0 }}
	deps := views.Deps{Store: s, Now: clock.Now, Session: 1, Clipboard: func(text string) error {
		hs.Copied = append(hs.Copied, text)
		return nil
	}}
	for _, o := range opts {
		o(&deps)
	}
	hs.M = build(deps, Styles())
	P(&hs.M).SetSize(w, h)
	P(&hs.M).Focus()
	hs.Settle(hs.M.Init())
	return hs
}

// run starts cmd on its own goroutine.
func (h *Harness[V]) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	h.pending++
	go func() { h.msgs <- cmd() }()
}

// Settle runs cmd and feeds the tab every answer until it is idle.
func (h *Harness[V]) Settle(cmd tea.Cmd) {
	h.T.Helper()
	h.run(cmd)
	for h.pending > h.Parked(h.M) {
		select {
		case msg := <-h.msgs:
			h.pending--
			h.handle(msg)
		case <-time.After(20 * time.Second):
			h.T.Fatalf("%d command(s) still running after 20s\n%s", h.pending, h.M.View())
		}
	}
}

// handle routes one message: batches run, the root's messages are kept,
// the rest go to the tab.
func (h *Harness[V]) handle(msg tea.Msg) {
	if !h.keep(msg) {
		var cmd tea.Cmd
		h.M, cmd = h.M.Update(msg)
		h.run(cmd)
	}
}

// keep files msg when it is for the root (or nothing), and says so;
// batches are run.
func (h *Harness[V]) keep(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case views.FlashMsg:
		h.Flashes = append(h.Flashes, msg)
	case views.ConfirmMsg:
		h.Confirms = append(h.Confirms, msg)
	case views.ComposeMsg:
		h.Composes = append(h.Composes, msg)
	case views.BulkMsg:
		h.Bulks = append(h.Bulks, msg)
	case views.OpenInStoreMsg:
		h.Opened = append(h.Opened, msg)
	default:
		return false
	}
	return true
}

// Send delivers one message to the tab and settles.
func (h *Harness[V]) Send(msg tea.Msg) {
	h.T.Helper()
	var cmd tea.Cmd
	h.M, cmd = h.M.Update(msg)
	h.Settle(cmd)
}

// Refresh does what the root does on a live-refresh tick that saw a
// change, and settles.
func (h *Harness[V]) Refresh() {
	h.T.Helper()
	m, cmd := h.M.Refresh()
	h.M = m
	h.Settle(cmd)
}

// Keys sends key presses ("j", "enter", "ctrl+s"), settling after each.
func (h *Harness[V]) Keys(names ...string) {
	h.T.Helper()
	for _, n := range names {
		h.Send(Key(n))
	}
}

// TypeText types text into whatever has the keys, one rune at a time.
func (h *Harness[V]) TypeText(text string) {
	h.T.Helper()
	for _, r := range text {
		h.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// ClearInput empties the focused one-line input.
func (h *Harness[V]) ClearInput() { h.Keys("end", "ctrl+u") }

// Confirm answers the newest confirmation dialog with yes (it is taken off
// Confirms) and returns it.
func (h *Harness[V]) Confirm() views.ConfirmMsg {
	h.T.Helper()
	if len(h.Confirms) == 0 {
		h.T.Fatalf("no confirmation was asked; flashes %v\n%s", h.Flashes, h.M.View())
	}
	c := h.Confirms[len(h.Confirms)-1]
	h.Confirms = h.Confirms[:len(h.Confirms)-1]
	h.Settle(c.Do)
	return c
}

// LastFlash is the text of the newest flash ("" when none).
func (h *Harness[V]) LastFlash() string {
	if len(h.Flashes) == 0 {
		return ""
	}
	return h.Flashes[len(h.Flashes)-1].Text
}

// RequireView fails unless the view shows every text.
func (h *Harness[V]) RequireView(texts ...string) {
	h.T.Helper()
	v := h.M.View()
	for _, s := range texts {
		if !strings.Contains(v, s) {
			h.T.Fatalf("view lacks %q:\n%s\nflashes: %v", s, v, h.Flashes)
		}
	}
}

// RequireFlash fails unless the newest flash holds every text.
func (h *Harness[V]) RequireFlash(texts ...string) {
	h.T.Helper()
	for _, s := range texts {
		if !strings.Contains(h.LastFlash(), s) {
			h.T.Fatalf("flash %q lacks %q", h.LastFlash(), s)
		}
	}
}

// RequireNoFlashSince fails when a flash filed after the first n holds
// text (n: len(Flashes) before the action the test checks).
func (h *Harness[V]) RequireNoFlashSince(n int, text string) {
	h.T.Helper()
	for _, f := range h.Flashes[n:] {
		if strings.Contains(f.Text, text) {
			h.T.Errorf("flash %q holds %q", f.Text, text)
		}
	}
}

// ViewLine is the first line of the view, without colours, that holds
// text; it fails the test when no line does.
func (h *Harness[V]) ViewLine(text string) string {
	h.T.Helper()
	v := ansi.Strip(h.M.View())
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, text) {
			return l
		}
	}
	h.T.Fatalf("no line holds %q:\n%s", text, v)
	return ""
}

// Drive runs cmd like Settle, but while done does not hold (or until 3
// minutes pass) rather than until nothing is left, so that commands which
// re-arm themselves (progress ticks) may run. Once done holds it still
// takes the answer of every command in flight: a flash batched with the
// last state change may arrive after it (dropping it made tests that look
// for that flash fail now and then). So a command must stop re-arming once
// done holds. When trigger (which must only read atomics) first holds,
// key is sent, as a user would press it at that moment. seen is told
// every message the tab took.
func (h *Harness[V]) Drive(cmd tea.Cmd, trigger func() bool, key tea.Msg, seen func(V, tea.Msg), done func(V) bool) {
	h.T.Helper()
	d := &driver[V]{h: h, seen: seen, answers: make(chan tea.Msg, 64), keys: make(chan tea.Msg, 1), stop: make(chan struct{})}
	defer close(d.stop)
	if trigger != nil {
		d.pressWhen(trigger, key)
	}
	d.spawn(cmd)
	d.until(done)
}

// driver is one Drive: the commands it runs on their own goroutines and
// their answers, and the key its trigger sends.
type driver[V Model[V]] struct {
	h       *Harness[V]
	seen    func(V, tea.Msg)
	answers chan tea.Msg // one per command run, nil included
	keys    chan tea.Msg
	stop    chan struct{} // closed when Drive returns
	// running counts the commands started and not answered; only the
	// test's goroutine touches it.
	running int
}

// spawn runs c on its own goroutine; its answer comes on answers.
func (d *driver[V]) spawn(c tea.Cmd) {
	if c == nil {
		return
	}
	d.running++
	go func() {
		msg := c()
		select {
		case d.answers <- msg:
		case <-d.stop:
		}
	}()
}

// pressWhen sends key on keys once trigger holds (polled; trigger must
// only read atomics).
func (d *driver[V]) pressWhen(trigger func() bool, key tea.Msg) {
	go func() {
		for !trigger() {
			select {
			case <-d.stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
		d.keys <- key
	}()
}

// take routes one message: a batch's commands run, the root's messages
// are kept, the rest go to the tab (and to seen).
func (d *driver[V]) take(msg tea.Msg) {
	h := d.h
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			d.spawn(c)
		}
		return
	}
	if msg == nil || h.keepRoot(msg) {
		return
	}
	var c tea.Cmd
	h.M, c = h.M.Update(msg)
	if d.seen != nil {
		d.seen(h.M, msg)
	}
	d.spawn(c)
}

// until takes answers and keys while done does not hold or a command is
// in flight, for at most 3 minutes.
func (d *driver[V]) until(done func(V) bool) {
	h := d.h
	h.T.Helper()
	deadline := time.After(3 * time.Minute)
	for !done(h.M) || d.running > 0 {
		select {
		case msg := <-d.answers:
			d.running--
			d.take(msg)
		case msg := <-d.keys:
			d.take(msg)
		case <-deadline:
			h.T.Fatalf("the view did not finish within 3 minutes (done: %v, %d command(s) running)", done(h.M), d.running)
		}
	}
}

// keepRoot files the root's messages (Drive runs its own commands).
func (h *Harness[V]) keepRoot(msg tea.Msg) bool {
	switch msg.(type) {
	case views.FlashMsg, views.ConfirmMsg, views.ComposeMsg, views.BulkMsg:
		return h.keep(msg)
	}
	return false
}

// Ctx is the context of the tests' direct store calls.
var Ctx = context.Background()

// RequireNoHelp fails when help offers one of the keys.
func RequireNoHelp(t *testing.T, groups [][]key.Binding, keys ...string) {
	t.Helper()
	for _, g := range groups {
		for _, b := range g {
			for _, k := range keys {
				if b.Enabled() && b.Help().Key == k {
					t.Errorf("help offers %s in read-only mode", k)
				}
			}
		}
	}
}
