package viewtest

import (
	"context"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
)

// Workbench drives one of the workbench views (Compose, Race, Sweep) the way
// the root would: keys in, commands run, flashes and confirmations kept.
type Workbench[V any] struct {
	T        *testing.T
	S        *store.Store
	clock    *store.VirtualClock
	V        V
	update   func(V, tea.Msg) (V, tea.Cmd)
	Flashes  []views.FlashMsg
	Confirms []views.ConfirmMsg
}

// sizedView is a view's pointer: what the root sizes and focuses.
type sizedView[V any] interface {
	*V
	SetSize(w, h int)
	Focus()
}

// NewWorkbench builds a view over s at 120x40 (the body is 37 lines), focused.
func NewWorkbench[V any, P sizedView[V]](t *testing.T, s *store.Store, clock *store.VirtualClock, path string,
	build func(views.Deps, themes.Styles) V, update func(V, tea.Msg) (V, tea.Cmd)) *Workbench[V] {
	t.Helper()
	h := &Workbench[V]{T: t, S: s, clock: clock, update: update}
	h.V = build(workbenchDeps(t, s, clock, path), testStyles())
	P(&h.V).SetSize(120, 40-3)
	P(&h.V).Focus()
	return h
}

// workbenchDeps are the deps the root would give, over s: Open reopens
// the same file (the live race's workers).
func workbenchDeps(t *testing.T, s *store.Store, clock *store.VirtualClock, path string) views.Deps {
	t.Helper()
	return views.Deps{Store: s, Now: clock.Now, Session: 1, Open: func(ctx context.Context) (*store.Store, error) {
		return store.Open(ctx, path, store.Options{Clock: clock.Now})
	}}
}

// Settle runs cmd synchronously (Settle) and feeds the view every
// answer; flashes and confirmations are kept for the test.
func (h *Workbench[V]) Settle(cmd tea.Cmd) {
	h.T.Helper()
	rest := Settle(cmd, func(msg tea.Msg) (tea.Cmd, bool) {
		switch msg := msg.(type) {
		case views.FlashMsg:
			h.Flashes = append(h.Flashes, msg)
			return nil, false
		case views.ConfirmMsg:
			h.Confirms = append(h.Confirms, msg)
			return nil, false
		}
		var c tea.Cmd
		h.V, c = h.update(h.V, msg)
		return c, true
	})
	_ = rest
}

// Keys presses keys one by one, settling after each.
func (h *Workbench[V]) Keys(names ...string) {
	h.T.Helper()
	for _, n := range names {
		var c tea.Cmd
		h.V, c = h.update(h.V, Key(n))
		h.Settle(c)
	}
}

// TypeText types text into whatever has the keys.
func (h *Workbench[V]) TypeText(text string) {
	h.T.Helper()
	for _, r := range text {
		h.Keys(string(r))
	}
}

// Confirm answers the last confirmation dialog with yes.
func (h *Workbench[V]) Confirm() {
	h.T.Helper()
	if len(h.Confirms) == 0 {
		h.T.Fatalf("no confirmation was asked; flashes %+v", h.Flashes)
	}
	c := h.Confirms[len(h.Confirms)-1]
	h.Confirms = h.Confirms[:len(h.Confirms)-1]
	h.Settle(c.Do)
}

// LastFlash is the text of the newest flash.
func (h *Workbench[V]) LastFlash() string {
	if len(h.Flashes) == 0 {
		return ""
	}
	return h.Flashes[len(h.Flashes)-1].Text
}

// Drive runs cmd the way the bubbletea runtime does: every command in its
// own goroutine (ticks really wait), answers fed to the view one at a
// time, until done says so or the deadline passes. When trigger (which
// must only read atomics) first holds, key is sent, as a user would press
// it at that moment. seen is told every message the view took.
func (h *Workbench[V]) Drive(cmd tea.Cmd, trigger func() bool, key tea.Msg, seen func(V, tea.Msg), done func(V) bool) {
	h.T.Helper()
	msgs := make(chan tea.Msg, 64)
	stop := make(chan struct{})
	defer close(stop)
	var spawn func(tea.Cmd)
	spawn = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if batch, ok := msg.(tea.BatchMsg); ok {
				for _, bc := range batch {
					spawn(bc)
				}
				return
			}
			if msg != nil {
				select {
				case msgs <- msg:
				case <-stop:
				}
			}
		}()
	}
	if trigger != nil {
		go func() {
			for !trigger() {
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Microsecond):
				}
			}
			select {
			case msgs <- key:
			case <-stop:
			}
		}()
	}
	spawn(cmd)
	deadline := time.After(3 * time.Minute)
	for !done(h.V) {
		select {
		case msg := <-msgs:
			switch msg := msg.(type) {
			case views.FlashMsg:
				h.Flashes = append(h.Flashes, msg)
				continue
			case views.ConfirmMsg:
				h.Confirms = append(h.Confirms, msg)
				continue
			}
			var c tea.Cmd
			h.V, c = h.update(h.V, msg)
			if seen != nil {
				seen(h.V, msg)
			}
			spawn(c)
		case <-deadline:
			h.T.Fatal("the view did not finish within 3 minutes")
		}
	}
}

// styles are the styles the goldens are drawn with.
func testStyles() themes.Styles { return themes.NewStyles(themes.Dark()) }

// SeedExpired writes n rows under prefix that are already expired at the
// clock, in commits of 1000 sets.
func SeedExpired(t testing.TB, s *store.Store, prefix string, n int) {
	t.Helper()
	dead := -time.Second
	for start := 0; start < n; start += 1000 {
		var muts []store.Mutation
		for i := start; i < min(start+1000, n); i++ {
			muts = append(muts, store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String(prefix), codec.Number(float64(i))},
				Value: []byte(`{"v":1}`), ExpireIn: &dead})
		}
		if _, err := s.Commit(context.Background(), nil, muts); err != nil {
			t.Fatal(err)
		}
	}
}
