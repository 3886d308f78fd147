package browse

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// getRaw reads the physical row at key (expired rows too).
func getRaw(t *testing.T, s *store.Store, text string) (store.Entry, bool) {
	t.Helper()
	k := storetest.Key(t, text)
	p, err := s.List(viewtest.Ctx, store.ListOptions{Prefix: k, IncludeExpired: true, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) == 0 || !p.Entries[0].Key.Equal(k) {
		return store.Entry{}, false
	}
	return p.Entries[0], true
}

func TestBrowseEditConflictThenReload(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "hooli"]`)
	h.Keys("e")
	if !h.M.editor.Editing() {
		t.Fatalf("e opened no form; flashes %v", h.Flashes)
	}
	// Another writer changes the key between showing and committing.
	stamp, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "hooli"]`), []byte(`"theirs"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Keys("end", "ctrl+u") // clear the line: the value is `true`
	h.TypeText(`"mine"`)
	h.Keys("ctrl+s")
	// The conflict screen (editor/conflict.go); keep editing returns to the
	// form, which says what happened and offers the reload.
	h.RequireView("CONFLICT", "theirs → yours", `"theirs" → "mine"`)
	h.Keys("esc")
	h.RequireView("conflict", "at stamp "+stamp, "ctrl+r")
	if e, _ := getRaw(t, h.S, `["accounts", "hooli"]`); string(e.Value) != `"theirs"` {
		t.Fatalf("the conflicting save wrote %s", e.Value)
	}
	h.Keys("ctrl+r")
	h.RequireView("reloaded", "still at stamp "+stamp, `"theirs"`, `Your text differed (theirs → yours):`, `"mine"`)
	h.Keys("end", "ctrl+u")
	h.TypeText(`"mine"`)
	h.Keys("ctrl+s")
	if h.M.editor.Editing() {
		t.Fatalf("form still open after save:\n%s", h.M.View())
	}
	if e, _ := getRaw(t, h.S, `["accounts", "hooli"]`); string(e.Value) != `"mine"` {
		t.Fatalf("value = %s, want \"mine\"", e.Value)
	}
	if !strings.Contains(h.LastFlash(), "saved") {
		t.Errorf("flash = %q", h.LastFlash())
	}
}

func TestBrowseEditKeepsRemainingTTL(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["tmp", "session", "s-77"]`) // expires at NOW+45000
	h.Clock.Fix(storetest.T0 + 5000)
	h.Keys("e")
	h.RequireView("keep = the remaining 40s")
	h.Keys("ctrl+s")
	e, ok := getRaw(t, h.S, `["tmp", "session", "s-77"]`)
	if !ok || e.ExpiresAt == nil || *e.ExpiresAt != storetest.T0+45000 {
		t.Fatalf("after keep: expiresAt = %v, want %d", e.ExpiresAt, storetest.T0+45000)
	}
	h.Keys("e", "tab")
	h.Keys("ctrl+u")
	h.TypeText("none")
	h.Keys("ctrl+s")
	if e, _ := getRaw(t, h.S, `["tmp", "session", "s-77"]`); e.ExpiresAt != nil {
		t.Fatalf("after none: expiresAt = %d, want no expiry", *e.ExpiresAt)
	}
}

func TestBrowseDeleteAsksAndIsGuarded(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "globex"]`)
	h.Keys("d")
	if len(h.Confirms) != 1 {
		t.Fatalf("d asked %d confirmations", len(h.Confirms))
	}
	c := h.Confirms[0]
	if text := strings.Join(c.Lines, " "); !strings.Contains(text, `["accounts", "globex"]`) || !strings.Contains(text, "00000000000000000004") {
		t.Fatalf("the dialog does not name the key and stamp: %q", text)
	}
	h.Settle(c.Do)
	if _, ok := getRaw(t, h.S, `["accounts", "globex"]`); ok {
		t.Fatal("globex still there after a confirmed delete")
	}
	h.RequireView(`"hooli"`)
	if h.LastFlash() != `deleted ["accounts", "globex"]` {
		t.Errorf("flash = %q", h.LastFlash())
	}

	// A delete whose key changed after the dialog opened does nothing.
	goTo(h, `["accounts", "hooli"]`)
	h.Keys("d")
	if len(h.Confirms) != 2 {
		t.Fatalf("d on hooli asked nothing; flashes %+v\n%s", h.Flashes, h.M.View())
	}
	if _, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "hooli"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	h.Settle(h.Confirms[1].Do)
	if _, ok := getRaw(t, h.S, `["accounts", "hooli"]`); !ok {
		t.Fatal("hooli deleted although it changed after being shown")
	}
	if !strings.Contains(h.LastFlash(), "not deleted") {
		t.Errorf("flash = %q", h.LastFlash())
	}
}

func TestBrowseReadOnlyRefuses(t *testing.T) {
	h := newHarness(t, true, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	for _, k := range []string{"e", "n", "d"} {
		h.Keys(k)
		if !strings.Contains(h.LastFlash(), "read-only") {
			t.Errorf("%s: flash = %q, want a read-only refusal", k, h.LastFlash())
		}
	}
	if h.M.editor.Editing() || len(h.Confirms) > 0 {
		t.Fatal("a write action opened in read-only mode")
	}
	for _, col := range h.M.FullHelp() {
		for _, b := range col {
			if b.Enabled() && (b.Help().Key == "e" || b.Help().Key == "d" || b.Help().Key == "n") {
				t.Errorf("help offers %s in read-only mode", b.Help().Key)
			}
		}
	}
	h.RequireView("read-only: editing")
	// A prefix does not offer n either (it said "n adds a key under it":
	// issue 13 bug 8).
	goTo(h, `["accounts"]`)
	h.RequireView("Not a stored key itself")
	if v := h.M.View(); strings.Contains(v, "n adds") {
		t.Errorf("read-only Browse offers n:\n%s", v)
	}
}

func TestBrowseNewKey(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	h.Keys("n")
	h.Keys("ctrl+u")
	h.TypeText(`["accounts", "newco"`)
	h.RequireView("✗") // not closed yet: live parse feedback
	h.TypeText("]")
	h.RequireView(`✓ ["accounts", "newco"]`)
	h.Keys("tab", "ctrl+u")
	h.TypeText(`{"created": true}`)
	h.Keys("ctrl+s")
	if e, ok := getRaw(t, h.S, `["accounts", "newco"]`); !ok || string(e.Value) != `{"created":true}` {
		t.Fatalf("new key not written: %+v %v", e, ok)
	}
	if n := h.M.selected(); n == nil || codec.Format(n.key) != `["accounts", "newco"]` {
		t.Fatalf("the new key is not selected:\n%s", h.M.View())
	}
}

// A new key under a level that is already open and loaded is selected
// once written: the jump to it waits for the level's reload instead of
// looking in the children read before the write ("no key …" and the
// cursor left on the parent, issue 13 bug 1).
func TestBrowseNewKeyInAnOpenLevel(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	h.Keys("n", "ctrl+u")
	h.TypeText(`["accounts", "newco"]`)
	h.Keys("tab", "ctrl+u")
	h.TypeText(`1`)
	h.Keys("ctrl+s")
	if n := h.M.selected(); n == nil || codec.Format(n.key) != `["accounts", "newco"]` {
		t.Fatalf("the new key is not selected (flash %q):\n%s", h.LastFlash(), h.M.View())
	}
	for _, f := range h.Flashes {
		if strings.Contains(f.Text, "no key") {
			t.Errorf("flash %q after writing the key", f.Text)
		}
	}
}

// After the terminal shrinks, the selected row is still on screen (it was
// off screen, "KEYS 26/26" with no ❯, until the next key: issue 13 bug 2).
func TestBrowseCursorStaysVisibleOnShrink(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	h.Keys("G") // the last root row, near the bottom of a 40-row screen
	before := h.M.View()
	if !strings.Contains(before, "❯") {
		t.Fatalf("no cursor before the resize:\n%s", before)
	}
	h.M.SetSize(60, 12)
	if v := h.M.View(); !strings.Contains(v, "❯") {
		t.Fatalf("the cursor is off screen after shrinking to 60x12:\n%s", v)
	}
}

func TestBrowseFilter(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	h.Keys("enter", "j", "/")
	h.TypeText("ac")
	v := h.M.View()
	if !strings.Contains(v, `"acme"`) || strings.Contains(v, `"globex"`) || !strings.Contains(v, `"attachments"`) {
		t.Fatalf("filter on the accounts level:\n%s", v)
	}
	h.Keys("enter", "esc")
	h.RequireView(`"globex"`)
}

func TestBrowseRefreshShowsChanges(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	if _, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "aaa"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`), []byte(`{"plan":"free"}`), nil); err != nil {
		t.Fatal(err)
	}
	m, cmd := h.M.Refresh()
	h.M = m
	h.Settle(cmd)
	h.RequireView(`"aaa"`, `"plan": "free"`, "16")
}

// TestBrowsePagingAndSeek: a level of 500 children loads a screenful at a
// time, and :goto far into it seeks there instead of paging.
func TestBrowsePagingAndSeek(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, "file:"+t.TempDir()+"/big.db", clock, false)
	viewtest.Commit(t, s, func(a *store.Atomic) {
		for i := range 500 {
			a.Set(codec.Key{codec.String("big"), codec.Number(float64(i))}, []byte(`0`))
		}
	})
	h := startHarness(t, s, clock, 80, 24)
	h.Keys("enter")
	if got := h.M.root.pages[0].kids[0].loadedKids(); got != h.M.pageSize() {
		t.Fatalf("loaded %d children, want one page of %d", got, h.M.pageSize())
	}
	for range 3 {
		h.Keys("pgdown")
	}
	if got := h.M.root.pages[0].kids[0].loadedKids(); got <= h.M.pageSize() || got >= 500 {
		t.Fatalf("after scrolling, %d children loaded; want more pages, not all", got)
	}
	goTo(h, `["big", 450]`)
	h.RequireView("↑ earlier keys", "❯     450 ●")
	// Back to the level's first key (ctrl+o after a finder jump): a seek
	// that lands on the first child has nothing earlier; the "↑ earlier
	// keys" row stayed above it.
	goTo(h, `["big", 0]`)
	h.RequireView("❯     0 ●")
	if strings.Contains(h.M.View(), "earlier keys") {
		t.Errorf("a stray earlier row above the first key:\n%s", h.M.View())
	}
	goTo(h, `["big", 1000]`)
	if !strings.Contains(h.LastFlash(), `no key ["big", 1000]`) {
		t.Errorf("flash = %q", h.LastFlash())
	}
}

// TestBrowseUndecodableAndInvalid: foreign rows show as raw hex under
// "(undecodable)", invalid JSON is flagged, and nothing from the database
// reaches the terminal as a control sequence.
func TestBrowseUndecodableAndInvalid(t *testing.T) {
	clock := viewtest.FixedClock()
	path := storetest.CopyReference(t)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range [][]byte{{0xff, 0x01, 0x02}, append(codec.MustEncode(codec.Key{codec.String("accounts")}), 0x09, 0x41)} {
		if _, err := db.Exec("INSERT INTO kv (k, v, ver) VALUES (?, ?, 99)", k, "not json \x1b[31mred"); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	h := startHarness(t, viewtest.Open(t, path, clock, false), clock, 120, 40)
	h.Keys("G")
	h.RequireView("(undecodable)")
	h.Keys("enter", "j")
	v := h.M.View()
	for _, want := range []string{"ff0102", "does not decode", "not valid JSON", `\u001b[31mred`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q", want)
		}
	}
	if strings.Contains(v, "\x1b[31m") {
		t.Error("a stored escape sequence reached the screen")
	}
	h.Keys("e")
	if !strings.Contains(h.LastFlash(), "cannot be edited") {
		t.Errorf("flash = %q", h.LastFlash())
	}
	goTo(h, `["accounts"]`)
	h.Keys("enter")
	h.RequireView("(undecodable)")
}

// TestBrowseMouse: the wheel scrolls the pane under it without moving
// the selection, and a later load does not snap the view back; a click
// selects.
func TestBrowseMouse(t *testing.T) {
	h := newHarness(t, false, 80, 24)
	goTo(h, `["accounts", "acme"]`)
	goTo(h, `["tmp", "otp-a"]`)
	sel := h.M.sel
	wheel := func(x int, b tea.MouseButton) {
		var cmd tea.Cmd
		h.M, cmd = h.M.Update(tea.MouseMsg{X: x, Y: 5, Button: b, Action: tea.MouseActionPress})
		h.Settle(cmd)
	}
	wheel(5, tea.MouseButtonWheelUp)
	wheel(5, tea.MouseButtonWheelUp)
	if h.M.sel != sel || h.M.offset == 0 && h.M.cursor < h.M.treeRows() {
		t.Fatalf("wheel moved the selection or did not scroll: offset %d cursor %d", h.M.offset, h.M.cursor)
	}
	off := h.M.offset
	m, cmd := h.M.Refresh()
	h.M = m
	h.Settle(cmd)
	if h.M.offset != off {
		t.Errorf("a refresh scrolled the tree from %d to %d", off, h.M.offset)
	}
	wheel(60, tea.MouseButtonWheelDown)
	if h.M.pane.off != 0 { // the otp-a entry fits: nothing to scroll
		t.Errorf("entry scrolled to %d", h.M.pane.off)
	}
	var c tea.Cmd
	h.M, c = h.M.Update(tea.MouseMsg{X: 5, Y: 2, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	h.Settle(c)
	if h.M.cursor != h.M.offset {
		t.Errorf("click on the first tree line selected row %d, want %d", h.M.cursor, h.M.offset)
	}
}

// TestBrowseCopyValue: Y copies the selected entry's value whole (only
// the key could be copied); the flash gives its size, not the text.
func TestBrowseCopyValue(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	h.Keys("Y")
	e, ok := getRaw(t, h.S, `["accounts", "acme"]`)
	if !ok || len(h.Copied) == 0 || h.Copied[len(h.Copied)-1] != string(e.Value) {
		t.Fatalf("copied %q, want the value %s", h.Copied, e.Value)
	}
	h.RequireFlash(fmt.Sprintf("copied %d bytes", len(e.Value)))
}

// TestBrowseCopyKeyEscapesZeroWidth: y copies a key as kvdeck writes it,
// a zero-width space escaped (\u200b) as in the tree, never the raw rune
// that would paste an invisible difference.
func TestBrowseCopyKeyEscapesZeroWidth(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	k := codec.Key{codec.String("accounts"), codec.String("ad\u200bmin")}
	if _, err := h.S.Set(context.Background(), k, []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	goTo(h, `["accounts", "ad\u200bmin"]`)
	h.Keys("y")
	if len(h.Copied) == 0 {
		t.Fatal("y copied nothing")
	}
	got := h.Copied[len(h.Copied)-1]
	if strings.ContainsRune(got, '\u200b') || !strings.Contains(got, `\u200b`) {
		t.Fatalf("y copied %q, want the zero-width space escaped as \\u200b", got)
	}
}

// TestBrowseEditNoChangeWritesNothing: e then ctrl+s with nothing changed
// (the TTL kept) writes nothing and keeps the stamp; a changed TTL alone
// is a change and is saved.
func TestBrowseEditNoChangeWritesNothing(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	before := viewtest.Digest(t, h.S)
	h.Keys("e", "ctrl+s")
	if viewtest.Digest(t, h.S) != before {
		t.Fatal("e, ctrl+s with nothing changed wrote to the store")
	}
	h.RequireFlash("nothing changed, nothing written")
	if h.M.editor.Editing() {
		t.Fatal("the form stays open after a save that had nothing to write")
	}
	h.Keys("e", "tab")
	h.ClearInput()
	h.TypeText("5m")
	h.Keys("ctrl+s")
	h.RequireFlash("saved")
	if e, _ := getRaw(t, h.S, `["accounts", "acme"]`); e.ExpiresAt == nil {
		t.Fatal("a new TTL alone was not saved")
	}
}
