package views

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

func newComposeHarness(t *testing.T, readOnly bool) *wb[Compose] {
	t.Helper()
	s, clock, path := viewtest.Reference(t, readOnly)
	return newWB(t, s, clock, path, NewCompose, func(v Compose, msg tea.Msg) (Compose, tea.Cmd) { return v.Update(msg) })
}

// stageCheckAndSet stages, by keys, a check on acme's stored stamp (ctrl+r
// fills it) and a set of a new value.
func stageCheckAndSet(h *wb[Compose]) {
	h.t.Helper()
	h.keys("c", "ctrl+u")
	h.typeText(`["accounts", "acme"]`)
	h.keys("tab", "ctrl+r", "ctrl+s")
	h.keys("s", "ctrl+u")
	h.typeText(`["accounts", "acme"]`)
	h.keys("tab", "ctrl+u", "up", "ctrl+u")
	h.typeText(`{"plan": "pro"}`)
	h.keys("ctrl+s")
	if len(h.v.ops) != 2 || h.v.editor != nil {
		h.t.Fatalf("staged %d ops, editor open %v:\n%s", len(h.v.ops), h.v.editor != nil, h.v.View())
	}
}

// TestComposeCommitFlow stages a check (stamp filled from the store) and
// a set by keys, commits after the confirmation, and shows the stamp.
func TestComposeCommitFlow(t *testing.T) {
	h := newComposeHarness(t, false)
	t.Run("empty", func(t *testing.T) { golden.RequireEqual(t, h.v.View()) })
	stageCheckAndSet(h)
	t.Run("staged", func(t *testing.T) { golden.RequireEqual(t, h.v.View()) })
	h.keys("ctrl+s")
	h.confirm()
	if o := h.v.outcome; o == nil || !o.res.OK {
		t.Fatalf("commit outcome %+v; flashes %+v", o, h.flashes)
	}
	e, _, _ := h.s.Get(ctx, storetest.Key(t, `["accounts", "acme"]`))
	if string(e.Value) != `{"plan":"pro"}` || e.Versionstamp() != h.v.outcome.res.Versionstamp {
		t.Fatalf("stored %s at %s; the view says %s", e.Value, e.Versionstamp(), h.v.outcome.res.Versionstamp)
	}
	t.Run("committed", func(t *testing.T) { golden.RequireEqual(t, h.v.View()) })
}

// TestComposeFailedCommitNamesTheCheck: another writer changes the
// checked key; the failure shows that check expected vs actual, marked
// first failing; r refreshes it and the retry commits.
func TestComposeFailedCommitNamesTheCheck(t *testing.T) {
	h := newComposeHarness(t, false)
	stageCheckAndSet(h)
	h.keys("up")
	h.keys("c", "ctrl+u") // a second check, on hooli's stored stamp: it holds
	h.typeText(`["accounts", "hooli"]`)
	h.keys("tab", "ctrl+r", "ctrl+s")
	theirs, err := h.s.Set(ctx, storetest.Key(t, `["accounts", "acme"]`), []byte(`"theirs"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.keys("ctrl+s")
	h.confirm()
	view := h.v.View()
	for _, want := range []string{"check 1", `["accounts", "acme"]`, "← first failing check", "actual " + theirs, "held", "r refresh"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the failure view lacks %q:\n%s", want, view)
		}
	}
	t.Run("failed", func(t *testing.T) { golden.RequireEqual(t, view) })
	h.keys("r")
	if h.v.ops[0].stamp != theirs || !h.v.ops[0].refreshed {
		t.Fatalf("r did not refresh the stale check: %+v", h.v.ops[0])
	}
	h.confirm()
	if o := h.v.outcome; o == nil || !o.res.OK {
		t.Fatalf("retry outcome %+v", o)
	}
}

// TestComposeSaveLoadAndEdit: reorder, remove, save as atomic JSON, clear,
// load it back; the budget line counts it.
func TestComposeSaveLoadAndEdit(t *testing.T) {
	h := newComposeHarness(t, false)
	stageCheckAndSet(h)
	h.keys("d", "ctrl+u")
	h.typeText(`["tmp", "gone"]`)
	h.keys("ctrl+s", "K") // the delete moves above the set
	if h.v.ops[1].kind != opDel || h.v.ops[2].kind != opSet {
		t.Fatalf("K did not move the delete up: %+v", h.v.ops)
	}
	path := filepath.Join(t.TempDir(), "c.json")
	h.keys("w", "ctrl+u")
	h.typeText(path)
	h.keys("enter")
	doc, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(doc), `"type": "delete"`) {
		t.Fatalf("saved %s (%v)", doc, err)
	}
	h.keys("X")
	h.keys("o", "ctrl+u")
	h.typeText(path)
	h.keys("enter")
	if len(h.v.ops) != 3 || h.v.ops[1].kind != opDel {
		t.Fatalf("loaded %+v; flashes %+v", h.v.ops, h.flashes)
	}
	h.keys("x")
	if len(h.v.ops) != 2 {
		t.Fatalf("x left %d ops", len(h.v.ops))
	}
	if !strings.Contains(h.v.View(), "checks 0 · mutations 2/1000") {
		t.Errorf("budget line:\n%s", h.v.View())
	}
}

// TestComposeFromBrowse: c in Browse stages a check on the shown stamp
// and a set of the value, keeping the remaining TTL.
func TestComposeFromBrowse(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, false)
	b := startCoord[Browse](t, s, clock, 120, 40, NewBrowse)
	m, c := b.m.Goto(storetest.Key(t, `["tmp", "session", "s-77"]`))
	b.m = m
	b.settle(c)
	m, cmd := b.m.Update(viewtest.Key("c"))
	b.m = m
	if cmd == nil {
		t.Fatal("c returned nothing")
	}
	msg, ok := cmd().(ComposeMsg)
	if !ok || len(msg.Checks) != 1 || len(msg.Mutations) != 1 {
		t.Fatalf("c sent %+v", msg)
	}
	set := msg.Mutations[0]
	if msg.Checks[0].Versionstamp == "" || set.Type != store.MutationSet || set.ExpireIn == nil || set.ExpireIn.Milliseconds() != 45000 {
		t.Fatalf("staged %+v and %+v", msg.Checks[0], set)
	}
	h := newComposeHarness(t, false)
	h.v, _ = h.v.Update(msg)
	if len(h.v.ops) != 2 || h.v.ops[0].kind != opCheck || h.v.ops[1].kind != opSet {
		t.Fatalf("Compose staged %+v", h.v.ops)
	}
}
