// Package viewtest helps the views and tui tests: it opens stores (a copy
// of the public reference store among them, through internal/storetest)
// on the app's virtual clock fixed at the reference instant, and drives
// one tab the way the root and the bubbletea runtime would (Harness: keys
// in, every command's answer back to Update, what the tab asks of the root
// kept), with the seeds the tabs' tests share.
package viewtest

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/latency"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// KeyOf builds a key of Go values: string, int, []byte and bool parts
// (any other part is left out).
func KeyOf(parts ...any) codec.Key {
	var k codec.Key
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			k = append(k, codec.String(p))
		case int:
			k = append(k, codec.Number(float64(p)))
		case []byte:
			k = append(k, codec.Bytes(p))
		case bool:
			k = append(k, codec.Bool(p))
		}
	}
	return k
}

// Open opens the store at url on clock (storetest.Open: closed when the
// test ends).
func Open(t testing.TB, url string, clock *store.VirtualClock, readOnly bool) *store.Store {
	t.Helper()
	return storetest.Open(t, url, store.Options{Clock: clock.Now, ReadOnly: readOnly})
}

// Remote is a fresh sqld behind the latency proxy (BehindProxy).
type Remote struct {
	// S reaches the server through the proxy; Direct, straight.
	S, Direct *store.Store
	// Proxy delays and counts S's requests.
	Proxy *latency.Proxy
	Clock *store.VirtualClock
}

// BehindProxy starts a fresh sqld with the latency proxy in front of it
// (each request waits delay), on a fixed clock: seed stages rows that are
// committed straight to the server, in one commit.
func BehindProxy(t *testing.T, delay time.Duration, seed func(a *store.Atomic)) Remote {
	t.Helper()
	srv := sqldtest.Start(t)
	r := Remote{Proxy: sqldtest.StartProxy(t, srv.URL, delay), Clock: FixedClock()}
	r.Direct = storetest.Open(t, srv.URL, store.Options{Clock: r.Clock.Now, Create: true})
	Commit(t, r.Direct, seed)
	r.S = storetest.Open(t, r.Proxy.URL, store.Options{Clock: r.Clock.Now})
	return r
}

// Commit commits the rows stage sets on s in one atomic commit, failing
// the test on an error.
func Commit(t testing.TB, s *store.Store, stage func(a *store.Atomic)) {
	t.Helper()
	a := s.Atomic()
	stage(a)
	if _, err := a.Commit(storetest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// FixedClock returns a virtual clock (the app's own kind, which the views
// can move) frozen at storetest.T0, the instant the reference store was
// written at.
func FixedClock() *store.VirtualClock {
	c := store.NewVirtualClock(nil)
	c.Fix(storetest.T0)
	return c
}

// Reference opens a fresh copy of the reference store
// (storetest.CopyReference) on a clock fixed at storetest.T0.
func Reference(t testing.TB, readOnly bool) (*store.Store, *store.VirtualClock, string) {
	t.Helper()
	clock := FixedClock()
	path := storetest.CopyReference(t)
	return Open(t, path, clock, readOnly), clock, path
}

// specialKeys maps key names to bubbletea key types.
var specialKeys = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
	"backspace": tea.KeyBackspace, "space": tea.KeySpace, "ctrl+c": tea.KeyCtrlC,
	"ctrl+s": tea.KeyCtrlS, "ctrl+r": tea.KeyCtrlR, "ctrl+u": tea.KeyCtrlU, "ctrl+a": tea.KeyCtrlA,
}

// Key returns the key message for a key name ("enter", "ctrl+s") or for
// typed text ("j", "abc").
func Key(name string) tea.KeyMsg {
	if base, ok := strings.CutPrefix(name, "alt+"); ok && len(base) > 1 {
		k := Key(base)
		k.Alt = true
		return k
	}
	if t, ok := specialKeys[name]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}
