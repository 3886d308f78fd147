package browse

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// conflictSetup opens Browse on a store at url with one key, its form
// open (e) and the text changed to yours; then another writer sets
// theirs. It returns the harness, the other writer's store and the key.
func conflictSetup(t *testing.T, url string, w, hgt int) (*viewtest.Harness[Model], *store.Store, codec.Key) {
	t.Helper()
	clock := viewtest.FixedClock()
	other := storetest.Open(t, url, store.Options{Clock: clock.Now, Create: true})
	ctx := storetest.Ctx(t)
	k := codec.Key{codec.String("users"), codec.String("alice")}
	if _, err := other.Set(ctx, k, []byte(`{"plan":"free","seats":1,"tags":["a"]}`), nil); err != nil {
		t.Fatal(err)
	}
	s := storetest.Open(t, url, store.Options{Clock: clock.Now})
	h := startHarness(t, s, clock, w, hgt)
	goTo(h, `["users", "alice"]`)
	h.Keys("e")
	if !h.M.editor.Editing() {
		t.Fatalf("e opened no form:\n%s", h.M.View())
	}
	h.M.editor.SetText(`{"plan":"free","seats":5,"tags":["a"]}`) // yours
	if _, err := other.Set(ctx, k, []byte(`{"plan":"gold","seats":1,"tags":["a","b"]}`), nil); err != nil {
		t.Fatal(err)
	}
	return h, other, k
}

// TestEditConflictScreen: e's save after another writer
// moved the key shows theirs against yours as a structural diff, with
// keep editing / discard / save over their stamp. The overwrite is asked
// first and checked against THEIR stamp: a third writer who moves the key
// before it lands makes it fail (nothing lost; the screen shows the newer
// theirs), and the next confirmed overwrite saves yours. On a file and on
// a real sqld.
func TestEditConflictScreen(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		h, other, k := conflictSetup(t, b.URL(t), 120, 40)
		ctx := storetest.Ctx(t)
		h.Keys("ctrl+s")
		h.RequireView("CONFLICT", "theirs → yours", ".plan", ".seats", ".tags[1]", "e/esc keep editing", "x discard", "ctrl+s save yours over")
		theirs, _, _ := other.Get(ctx, k)

		h.Keys("esc") // keep editing: the form, yours kept
		if h.M.editor.Conflicting() || !h.M.editor.Editing() || h.M.editor.Text() != `{"plan":"free","seats":5,"tags":["a"]}` {
			t.Fatalf("keep editing lost the form or your text:\n%s", h.M.View())
		}
		h.Keys("ctrl+s")
		h.RequireView("CONFLICT")
		h.Keys("ctrl+s")
		if len(h.Confirms) != 1 {
			t.Fatalf("ctrl+s on the conflict asked %d confirmation(s), want 1", len(h.Confirms))
		}
		// A third writer moves the key before the overwrite lands.
		third, err := other.Set(ctx, k, []byte(`{"plan":"gold","seats":9}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		h.Confirm()
		e, _, _ := other.Get(ctx, k)
		if string(e.Value) != `{"plan":"gold","seats":9}` {
			t.Fatalf("the overwrite against %s wrote over the third writer's %s: %s", theirs.Versionstamp(), third, e.Value)
		}
		h.RequireFlash("moved again")
		h.RequireView("CONFLICT", third, ".seats")
		h.Keys("ctrl+s")
		h.Confirm()
		h.RequireFlash("over their stamp " + third)
		e, _, _ = other.Get(ctx, k)
		if string(e.Value) != `{"plan":"free","seats":5,"tags":["a"]}` {
			t.Errorf("after the confirmed overwrite the key holds %s, want yours", e.Value)
		}
		if h.M.editor.Conflicting() || h.M.editor.Editing() {
			t.Error("the saved overwrite left the conflict or the form open")
		}
	})
}

// TestEditConflictDiscard: the screen follows the store (a refresh reads
// theirs again); x drops the edit, writes nothing.
func TestEditConflictDiscard(t *testing.T) {
	h, other, k := conflictSetup(t, "file:"+t.TempDir()+"/kv.db", 120, 40)
	h.Keys("ctrl+s")
	h.RequireView("CONFLICT")
	// The store moves on while the screen is open: the root's refresh
	// reads theirs again.
	newer, err := other.Set(storetest.Ctx(t), k, []byte(`{"plan":"gold","seats":1,"tags":["a","b"]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	h.RequireView("CONFLICT", "at stamp "+newer+" now")
	h.Keys("x")
	if h.M.editor.Conflicting() || h.M.editor.Editing() {
		t.Fatal("x left the conflict or the form open")
	}
	e, _, _ := other.Get(storetest.Ctx(t), k)
	if string(e.Value) != `{"plan":"gold","seats":1,"tags":["a","b"]}` {
		t.Errorf("discard wrote: %s", e.Value)
	}
	h.RequireFlash("discarded")
}

// TestEditConflictGolden draws the conflict screen at each screen size.
func TestEditConflictGolden(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			h, _, _ := conflictSetup(t, "file:"+t.TempDir()+"/kv.db", sz.w, sz.h)
			h.Keys("ctrl+s")
			golden.RequireEqual(t, h.M.View())
		})
	}
}
