package compose

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/browse"
	"kvdeck/views/viewtest"
)

func newComposeHarness(t *testing.T, readOnly bool) *viewtest.Harness[Model] {
	t.Helper()
	s, clock, path := viewtest.Reference(t, readOnly)
	return viewtest.Start[Model, *Model](t, s, clock, 120, 40-3, New, viewtest.Reopen(path, clock))
}

// stageCheckAndSet stages, by keys, a check on acme's stored stamp (ctrl+r
// fills it) and a set of a new value.
func stageCheckAndSet(h *viewtest.Harness[Model]) {
	h.T.Helper()
	h.Keys("c", "ctrl+u")
	h.TypeText(`["accounts", "acme"]`)
	h.Keys("tab", "ctrl+r", "ctrl+s")
	h.Keys("n", "ctrl+u")
	h.TypeText(`["accounts", "acme"]`)
	h.Keys("tab", "ctrl+u", "up", "ctrl+u")
	h.TypeText(`{"plan": "pro"}`)
	h.Keys("ctrl+s")
	if len(h.M.ops) != 2 || h.M.editor != nil {
		h.T.Fatalf("staged %d ops, editor open %v:\n%s", len(h.M.ops), h.M.editor != nil, h.M.View())
	}
}

// TestComposeCommitFlow stages a check (stamp filled from the store) and
// a set by keys, commits after the confirmation, and shows the stamp.
func TestComposeCommitFlow(t *testing.T) {
	h := newComposeHarness(t, false)
	t.Run("empty", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	stageCheckAndSet(h)
	t.Run("staged", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("ctrl+s")
	h.Confirm()
	if o := h.M.outcome; o == nil || !o.res.OK {
		t.Fatalf("commit outcome %+v; flashes %+v", o, h.Flashes)
	}
	e, _, _ := h.S.Get(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`))
	if string(e.Value) != `{"plan":"pro"}` || e.Versionstamp() != h.M.outcome.res.Versionstamp {
		t.Fatalf("stored %s at %s; the view says %s", e.Value, e.Versionstamp(), h.M.outcome.res.Versionstamp)
	}
	t.Run("committed", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
}

// TestComposeFailedCommitNamesTheCheck: another writer changes the
// checked key; the failure shows that check expected vs actual, marked
// first failing; r refreshes it and the retry commits.
func TestComposeFailedCommitNamesTheCheck(t *testing.T) {
	h := newComposeHarness(t, false)
	stageCheckAndSet(h)
	h.Keys("up")
	h.Keys("c", "ctrl+u") // a second check, on hooli's stored stamp: it holds
	h.TypeText(`["accounts", "hooli"]`)
	h.Keys("tab", "ctrl+r", "ctrl+s")
	theirs, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`), []byte(`"theirs"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Keys("ctrl+s")
	h.Confirm()
	view := h.M.View()
	for _, want := range []string{"check 1", `["accounts", "acme"]`, "← first failing check", "actual " + theirs, "held", "r refresh"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the failure view lacks %q:\n%s", want, view)
		}
	}
	t.Run("failed", func(t *testing.T) { golden.RequireEqual(t, view) })
	h.Keys("r")
	if h.M.ops[0].stamp != theirs || !h.M.ops[0].refreshed {
		t.Fatalf("r did not refresh the stale check: %+v", h.M.ops[0])
	}
	h.Confirm()
	if o := h.M.outcome; o == nil || !o.res.OK {
		t.Fatalf("retry outcome %+v", o)
	}
}

// TestComposeSaveLoadAndEdit: reorder, remove, save as atomic JSON, clear,
// load it back; the budget line counts it.
func TestComposeSaveLoadAndEdit(t *testing.T) {
	h := newComposeHarness(t, false)
	stageCheckAndSet(h)
	h.Keys("d", "ctrl+u")
	h.TypeText(`["tmp", "gone"]`)
	h.Keys("ctrl+s", "alt+up") // the delete moves above the set
	if h.M.ops[1].kind != opDel || h.M.ops[2].kind != opSet {
		t.Fatalf("K did not move the delete up: %+v", h.M.ops)
	}
	path := filepath.Join(t.TempDir(), "c.json")
	h.Keys("w", "ctrl+u")
	h.TypeText(path)
	h.Keys("enter")
	doc, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(doc), `"type": "delete"`) {
		t.Fatalf("saved %s (%v)", doc, err)
	}
	h.Keys("X")
	if len(h.M.ops) != 3 {
		t.Fatal("X cleared the composition without asking")
	}
	h.Confirm()
	if len(h.M.ops) != 0 {
		t.Fatalf("a confirmed X left %d ops", len(h.M.ops))
	}
	h.Keys("I", "ctrl+u")
	h.TypeText(path)
	h.Keys("enter")
	if len(h.M.ops) != 3 || h.M.ops[1].kind != opDel {
		t.Fatalf("loaded %+v; flashes %+v", h.M.ops, h.Flashes)
	}
	h.Keys("backspace")
	if len(h.M.ops) != 2 {
		t.Fatalf("x left %d ops", len(h.M.ops))
	}
	if !strings.Contains(h.M.View(), "checks 0 · mutations 2/1000") {
		t.Errorf("budget line:\n%s", h.M.View())
	}
}

// TestComposeFromBrowse: c in Browse stages a check on the shown stamp
// and a set of the value, keeping the remaining TTL.
func TestComposeFromBrowse(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, false)
	b := viewtest.Start[browse.Model](t, s, clock, 120, 40, browse.New)
	m, c := b.M.Goto(storetest.Key(t, `["tmp", "session", "s-77"]`))
	b.M = m
	b.Settle(c)
	m, cmd := b.M.Update(viewtest.Key("c"))
	b.M = m
	if cmd == nil {
		t.Fatal("c returned nothing")
	}
	msg, ok := cmd().(views.ComposeMsg)
	if !ok || len(msg.Checks) != 1 || len(msg.Mutations) != 1 {
		t.Fatalf("c sent %+v", msg)
	}
	set := msg.Mutations[0]
	if msg.Checks[0].Versionstamp == "" || set.Type != store.MutationSet || set.ExpireIn == nil || set.ExpireIn.Milliseconds() != 45000 {
		t.Fatalf("staged %+v and %+v", msg.Checks[0], set)
	}
	h := newComposeHarness(t, false)
	h.M, _ = h.M.Update(msg)
	if len(h.M.ops) != 2 || h.M.ops[0].kind != opCheck || h.M.ops[1].kind != opSet {
		t.Fatalf("Compose staged %+v", h.M.ops)
	}
}

// TestComposeRetrySaysAbsentBecameAStamp: a check that expected a key
// absent fails because someone wrote it; r refreshes the check to the
// new stamp, and the dialog says so in words before y (it silently turned
// "expects absent" into "expects <stamp>": issue 13).
func TestComposeRetrySaysAbsentBecameAStamp(t *testing.T) {
	h := newComposeHarness(t, false)
	h.Keys("c", "ctrl+u")
	h.TypeText(`["accounts", "newco"]`)
	h.Keys("ctrl+s")
	if len(h.M.ops) != 1 || h.M.ops[0].stamp != "" {
		t.Fatalf("staged %+v, want one check on absent", h.M.ops)
	}
	theirs, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "newco"]`), []byte(`1`), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Keys("ctrl+s")
	h.Confirm()
	h.Keys("r")
	if len(h.Confirms) == 0 {
		t.Fatal("r did not ask to commit again")
	}
	text := strings.Join(h.Confirms[len(h.Confirms)-1].Lines, " ")
	for _, want := range []string{"expected the key absent", "stamp " + theirs, "accepts that write"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the retry dialog lacks %q: %s", want, text)
		}
	}
}

// TestComposeChecksFirst: a check added below a set is listed above it:
// the list reads the way the commit runs (every check before any
// mutation), and a check cannot be moved below a mutation.
func TestComposeChecksFirst(t *testing.T) {
	h := newComposeHarness(t, false)
	h.Keys("n", "ctrl+u")
	h.TypeText(`["a"]`)
	h.Keys("tab", "ctrl+u")
	h.TypeText(`1`)
	h.Keys("ctrl+s")
	h.Keys("c", "ctrl+u")
	h.TypeText(`["b"]`)
	h.Keys("ctrl+s")
	if len(h.M.ops) != 2 || h.M.ops[0].kind != opCheck || h.M.cursor != 0 {
		t.Fatalf("ops %+v cursor %d, want the check first and selected", h.M.ops, h.M.cursor)
	}
	h.Keys("alt+down")
	if h.M.ops[0].kind != opCheck {
		t.Fatal("J moved the check below the set")
	}
}

// TestEditorMarksTheFocus: the operation editor is the TUI's one form
// (widgets.Form): the focused field is marked with ❯ (forms show
// focus clearly), and a check's editor submits on enter like every form
// without a value field.
func TestEditorMarksTheFocus(t *testing.T) {
	h := newComposeHarness(t, false)
	h.Keys("n")
	h.RequireView("NEW SET", "❯ key", "ctrl+s stage it")
	h.Keys("tab")
	h.RequireView("❯ value")
	t.Run("set", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("esc", "c", "ctrl+u")
	h.TypeText(`["accounts", "acme"]`)
	h.Keys("enter")
	if len(h.M.ops) != 1 || h.M.editor != nil {
		t.Fatalf("enter did not stage the check: %d ops\n%s", len(h.M.ops), h.M.View())
	}
}

// TestComposeClickSelectsAnOp: a click on a staged operation's row selects
// it (click rows on every tab).
func TestComposeClickSelectsAnOp(t *testing.T) {
	h := newComposeHarness(t, false)
	stageCheckAndSet(h)
	if h.M.cursor != 1 {
		t.Fatalf("the set is not selected after staging: %d", h.M.cursor)
	}
	h.ClickOn("check", 0)
	if h.M.cursor != 0 {
		t.Fatalf("a click on the check selects op %d", h.M.cursor+1)
	}
}

// TestComposeLongKeysKeepParts: an operation's key too long for its
// column is shortened by part (widgets.KeyCell): two checks on messages
// of one queue show their ids' ends, which were cut away (the key was cut
// at its end, after the queue's name).
func TestComposeLongKeysKeepParts(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	h := viewtest.Start[Model, *Model](t, s, clock, 120, 40-3, New)
	var checks []store.Check
	for _, id := range []string{"52f270e7-1f2a-4c3d-839b-926c00b0d136", "52f270e7-1f2a-4c3d-839b-0a6eb113f71a"} {
		checks = append(checks, store.Check{Key: storetest.Key(t, `["dwk_queue_due", "invoices", 1796121459946, "`+id+`"]`)})
	}
	h.M, _ = h.M.Update(views.ComposeMsg{Checks: checks})
	for _, end := range []string{`"…d136"]`, `"…f71a"]`} {
		if line := h.ViewLine(end); !strings.Contains(line, "check   [") {
			t.Errorf("the op of %s is not a check's line:\n%s", end, line)
		}
	}
}

// TestComposeSizes: a staged check and set at 120x40, 80x24 and 60x18
// (the body is 3 lines shorter): every size lists both operations and the
// selected one's fields.
func TestComposeSizes(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			s, clock, path := viewtest.Reference(t, false)
			h := viewtest.Start[Model, *Model](t, s, clock, sz.w, sz.h-3, New, viewtest.Reopen(path, clock))
			stageCheckAndSet(h)
			golden.RequireEqual(t, h.M.View())
		})
	}
}

// TestComposeShortKeysReadWhole: at 80x24 and 60x18 a key of short parts
// reads whole on its operation's line (it showed ["u…", "…b"]): the
// stamp beside it gives way.
func TestComposeShortKeysReadWhole(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s, clock, _ := viewtest.CoordStoreAt(t)
			h := viewtest.Start[Model, *Model](t, s, clock, size[0], size[1]-3, New)
			h.M, _ = h.M.Update(views.ComposeMsg{Checks: []store.Check{{Key: storetest.Key(t, `["users", "bob"]`)}}})
			if line := h.ViewLine(`check   ["users", "bob"]`); line == "" {
				t.Errorf("the key is cut:\n%s", h.M.View())
			}
		})
	}
}
