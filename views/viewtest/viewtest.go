// Package viewtest helps the views and tui tests: it opens a copy of the
// public reference store under a fixed clock and runs commands the way the
// bubbletea runtime would, synchronously.
package viewtest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store"
)

// Now is the instant the reference store was written at (2026-01-02T00:00:00Z).
const Now int64 = 1767312000000

// VectorsDir finds ../shared/vectors beside the repository root, skipping
// the test (with the reason) when it is absent.
func VectorsDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory; cannot find ../shared/vectors")
		}
		dir = parent
	}
	vec := filepath.Join(filepath.Dir(dir), "shared", "vectors")
	if _, err := os.Stat(filepath.Join(vec, "public-reference.db")); err != nil {
		t.Skipf("reference vectors not found at %s (they live in ../shared/vectors beside the repository)", vec)
	}
	return vec
}

// ReferenceCopy copies public-reference.db into a temporary directory and
// returns the copy's path; the original stays byte-identical.
func ReferenceCopy(t testing.TB) string {
	t.Helper()
	src, err := os.Open(filepath.Join(VectorsDir(t), "public-reference.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), "reference.db")
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Open opens the store at url on clock, closing it when the test ends.
func Open(t testing.TB, url string, clock *store.VirtualClock, readOnly bool) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), url, store.Options{Clock: clock.Now, ReadOnly: readOnly})
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// FixedClock returns a virtual clock frozen at Now.
func FixedClock() *store.VirtualClock {
	c := store.NewVirtualClock(nil)
	c.Fix(Now)
	return c
}

// Reference opens a fresh copy of the reference store on a clock fixed at
// Now.
func Reference(t testing.TB, readOnly bool) (*store.Store, *store.VirtualClock, string) {
	t.Helper()
	clock := FixedClock()
	path := ReferenceCopy(t)
	return Open(t, path, clock, readOnly), clock, path
}

// Run executes cmd and every command it batches, synchronously, and
// returns the messages they produced, in order. Commands must not sleep
// (views return no ticks).
func Run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, Run(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// Settle feeds the messages of cmd to update, and the messages of the
// commands it returns, until nothing is left; it returns the messages
// update did not want back (the ones for the root: flashes, confirmations).
// update reports whether a message was its own.
func Settle(cmd tea.Cmd, update func(tea.Msg) (tea.Cmd, bool)) []tea.Msg {
	var rest []tea.Msg
	queue := Run(cmd)
	for len(queue) > 0 {
		msg := queue[0]
		queue = queue[1:]
		next, mine := update(msg)
		if !mine {
			rest = append(rest, msg)
			continue
		}
		queue = append(queue, Run(next)...)
	}
	return rest
}

// specialKeys maps key names to bubbletea key types.
var specialKeys = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
	"backspace": tea.KeyBackspace, "space": tea.KeySpace, "ctrl+c": tea.KeyCtrlC,
	"ctrl+s": tea.KeyCtrlS, "ctrl+r": tea.KeyCtrlR, "ctrl+u": tea.KeyCtrlU,
}

// Key returns the key message for a key name ("enter", "ctrl+s") or for
// typed text ("j", "abc").
func Key(name string) tea.KeyMsg {
	if t, ok := specialKeys[name]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}
