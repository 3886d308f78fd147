package browse

import (
	"strings"
	"testing"
)

// TestEscOnEditedValueAsks: esc on a form whose text was edited asks
// before it drops the edit (it dropped it at once); n keeps the form and
// the text; y drops it and writes nothing. An untouched form still closes
// at once, and so does a new key's form left as it opened.
func TestEscOnEditedValueAsks(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	was, _ := getRaw(t, h.S, `["accounts", "acme"]`)
	h.Keys("e", "esc")
	if h.M.editor.Editing() || len(h.Confirms) != 0 {
		t.Fatalf("esc on an untouched form: form open %v, %d dialog(s)", h.M.editor.Editing(), len(h.Confirms))
	}
	h.Keys("n", "esc")
	if h.M.editor.Editing() || len(h.Confirms) != 0 {
		t.Fatalf("esc on a new key's untouched form: form open %v, %d dialog(s)", h.M.editor.Editing(), len(h.Confirms))
	}

	h.Keys("e")
	mine := `{"plan":"mine"}`
	h.M.editor.SetText(mine)
	h.Keys("esc")
	if len(h.Confirms) != 1 || !h.M.editor.Editing() {
		t.Fatalf("esc on an edited value: %d dialog(s), form open %v; want the question and the form kept", len(h.Confirms), h.M.editor.Editing())
	}
	c := h.Confirms[0]
	if c.Title != "Discard your edit?" || !strings.Contains(strings.Join(c.Lines, " "), `["accounts", "acme"]`) {
		t.Errorf("the question: %q %q", c.Title, c.Lines)
	}
	h.Confirms = nil // n: the root closes the dialog, nothing reaches the tab
	if !h.M.editor.Editing() || h.M.editor.Text() != mine {
		t.Fatal("n lost the form or its text")
	}
	h.Keys("esc")
	h.Confirm()
	if h.M.editor.Editing() {
		t.Fatal("y left the form open")
	}
	h.RequireFlash(`your edit of ["accounts", "acme"] was discarded; nothing was written`)
	if now, _ := getRaw(t, h.S, `["accounts", "acme"]`); now.Versionstamp() != was.Versionstamp() {
		t.Errorf("the discard wrote: stamp %s, was %s", now.Versionstamp(), was.Versionstamp())
	}
}

// TestReloadKeepsYourText: ctrl+r after a conflict loads theirs into the
// form, and your text is not lost (it was): ctrl+r swaps it back, and
// again, each way keeping what was typed; esc asks while your text is
// only kept aside; the quit's Held names both.
func TestReloadKeepsYourText(t *testing.T) {
	h, _, _ := conflictSetup(t, "file:"+t.TempDir()+"/kv.db", 120, 40)
	yours := `{"plan":"free","seats":5,"tags":["a"]}`
	h.Keys("ctrl+s")
	h.RequireView("CONFLICT")
	h.Keys("esc", "ctrl+r")
	f := &h.M.editor
	if got := f.Text(); strings.Contains(got, `"seats": 5`) || !strings.Contains(got, `"gold"`) {
		t.Fatalf("ctrl+r did not load theirs: %s", got)
	}
	h.RequireView("ctrl+r swaps your text back in")
	if held := h.M.Held(); len(held) != 1 || string(held[0].Keep) != yours || !strings.Contains(held[0].What, "swapped out") {
		t.Fatalf("Held with yours aside: %+v", held)
	}
	h.Keys("esc")
	if len(h.Confirms) != 1 {
		t.Fatalf("esc with your text kept aside asked %d question(s), want 1", len(h.Confirms))
	}
	h.Confirms = nil
	h.Keys("ctrl+r")
	if got := f.Text(); got != yours {
		t.Fatalf("ctrl+r did not put your text back: %s", got)
	}
	h.RequireView("your text is back")
	f.SetText(yours + " ") // typed on yours, then swapped: kept
	h.Keys("ctrl+r")
	if got := f.Text(); !strings.Contains(got, `"gold"`) {
		t.Fatalf("the second swap did not bring theirs: %s", got)
	}
	h.Keys("ctrl+r")
	if got := f.Text(); got != yours+" " {
		t.Fatalf("the edit made on yours was lost by the swaps: %q", got)
	}
}

// TestHeldEdit: an edited value is held work (a quit gives it up), kept
// as the value with the set that writes it; a conflict screen without a
// form (a large value edited in $EDITOR) holds the edited value.
func TestHeldEdit(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	h.Keys("e")
	if held := h.M.Held(); len(held) != 0 {
		t.Fatalf("an untouched form holds %+v", held)
	}
	h.M.editor.SetText(`{"it's":"mine"}`)
	held := h.M.Held()
	if len(held) != 1 || string(held[0].Keep) != `{"it's":"mine"}` || held[0].Use != `set '["accounts", "acme"]' - < FILE` {
		t.Fatalf("Held of an edited form: %+v", held)
	}
}
