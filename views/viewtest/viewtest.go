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

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// Open opens the store at url on clock (storetest.Open: closed when the
// test ends).
func Open(t testing.TB, url string, clock *store.VirtualClock, readOnly bool) *store.Store {
	t.Helper()
	return storetest.Open(t, url, store.Options{Clock: clock.Now, ReadOnly: readOnly})
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
