package browse

import (
	"database/sql"
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
	h.goTo(`["accounts", "hooli"]`)
	h.keys("e")
	if h.m.form == nil {
		t.Fatalf("e opened no form; flashes %v", h.flashes)
	}
	// Another writer changes the key between showing and committing.
	stamp, err := h.s.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "hooli"]`), []byte(`"theirs"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.keys("end", "ctrl+u") // clear the line: the value is `true`
	h.typeText(`"mine"`)
	h.keys("ctrl+s")
	h.requireView("conflict", "at stamp "+stamp, "ctrl+r")
	if e, _ := getRaw(t, h.s, `["accounts", "hooli"]`); string(e.Value) != `"theirs"` {
		t.Fatalf("the conflicting save wrote %s", e.Value)
	}
	h.keys("ctrl+r")
	h.requireView("reloaded", "still at stamp "+stamp, `"theirs"`)
	h.keys("end", "ctrl+u")
	h.typeText(`"mine"`)
	h.keys("ctrl+s")
	if h.m.form != nil {
		t.Fatalf("form still open after save:\n%s", h.m.View())
	}
	if e, _ := getRaw(t, h.s, `["accounts", "hooli"]`); string(e.Value) != `"mine"` {
		t.Fatalf("value = %s, want \"mine\"", e.Value)
	}
	if !strings.Contains(h.lastFlash(), "saved") {
		t.Errorf("flash = %q", h.lastFlash())
	}
}

func TestBrowseEditKeepsRemainingTTL(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	h.goTo(`["tmp", "session", "s-77"]`) // expires at NOW+45000
	h.clock.Fix(storetest.T0 + 5000)
	h.keys("e")
	h.requireView("keep = the remaining 40s")
	h.keys("ctrl+s")
	e, ok := getRaw(t, h.s, `["tmp", "session", "s-77"]`)
	if !ok || e.ExpiresAt == nil || *e.ExpiresAt != storetest.T0+45000 {
		t.Fatalf("after keep: expiresAt = %v, want %d", e.ExpiresAt, storetest.T0+45000)
	}
	h.keys("e", "tab")
	h.keys("ctrl+u")
	h.typeText("none")
	h.keys("ctrl+s")
	if e, _ := getRaw(t, h.s, `["tmp", "session", "s-77"]`); e.ExpiresAt != nil {
		t.Fatalf("after none: expiresAt = %d, want no expiry", *e.ExpiresAt)
	}
}

func TestBrowseDeleteAsksAndIsGuarded(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	h.goTo(`["accounts", "globex"]`)
	h.keys("d")
	if len(h.confirms) != 1 {
		t.Fatalf("d asked %d confirmations", len(h.confirms))
	}
	c := h.confirms[0]
	if text := strings.Join(c.Lines, " "); !strings.Contains(text, `["accounts", "globex"]`) || !strings.Contains(text, "00000000000000000004") {
		t.Fatalf("the dialog does not name the key and stamp: %q", text)
	}
	h.settle(c.Do)
	if _, ok := getRaw(t, h.s, `["accounts", "globex"]`); ok {
		t.Fatal("globex still there after a confirmed delete")
	}
	h.requireView(`"hooli"`)
	if h.lastFlash() != `deleted ["accounts", "globex"]` {
		t.Errorf("flash = %q", h.lastFlash())
	}

	// A delete whose key changed after the dialog opened does nothing.
	h.goTo(`["accounts", "hooli"]`)
	h.keys("d")
	if len(h.confirms) != 2 {
		t.Fatalf("d on hooli asked nothing; flashes %+v\n%s", h.flashes, h.m.View())
	}
	if _, err := h.s.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "hooli"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	h.settle(h.confirms[1].Do)
	if _, ok := getRaw(t, h.s, `["accounts", "hooli"]`); !ok {
		t.Fatal("hooli deleted although it changed after being shown")
	}
	if !strings.Contains(h.lastFlash(), "not deleted") {
		t.Errorf("flash = %q", h.lastFlash())
	}
}

func TestBrowseReadOnlyRefuses(t *testing.T) {
	h := newHarness(t, true, 120, 40)
	h.goTo(`["accounts", "acme"]`)
	for _, k := range []string{"e", "n", "d"} {
		h.keys(k)
		if !strings.Contains(h.lastFlash(), "read-only") {
			t.Errorf("%s: flash = %q, want a read-only refusal", k, h.lastFlash())
		}
	}
	if h.m.form != nil || len(h.confirms) > 0 {
		t.Fatal("a write action opened in read-only mode")
	}
	for _, col := range h.m.FullHelp() {
		for _, b := range col {
			if b.Enabled() && (b.Help().Key == "e" || b.Help().Key == "d" || b.Help().Key == "n") {
				t.Errorf("help offers %s in read-only mode", b.Help().Key)
			}
		}
	}
	h.requireView("read-only: editing")
}

func TestBrowseNewKey(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	h.keys("n")
	h.keys("ctrl+u")
	h.typeText(`["accounts", "newco"`)
	h.requireView("✗") // not closed yet: live parse feedback
	h.typeText("]")
	h.requireView(`✓ ["accounts", "newco"]`)
	h.keys("tab", "ctrl+u")
	h.typeText(`{"created": true}`)
	h.keys("ctrl+s")
	if e, ok := getRaw(t, h.s, `["accounts", "newco"]`); !ok || string(e.Value) != `{"created":true}` {
		t.Fatalf("new key not written: %+v %v", e, ok)
	}
	if n := h.m.selected(); n == nil || codec.Format(n.key) != `["accounts", "newco"]` {
		t.Fatalf("the new key is not selected:\n%s", h.m.View())
	}
}

func TestBrowseFilter(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	h.keys("enter", "j", "/")
	h.typeText("ac")
	v := h.m.View()
	if !strings.Contains(v, `"acme"`) || strings.Contains(v, `"globex"`) || !strings.Contains(v, `"attachments"`) {
		t.Fatalf("filter on the accounts level:\n%s", v)
	}
	h.keys("enter", "esc")
	h.requireView(`"globex"`)
}

func TestBrowseRefreshShowsChanges(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	h.goTo(`["accounts", "acme"]`)
	if _, err := h.s.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "aaa"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`), []byte(`{"plan":"free"}`), nil); err != nil {
		t.Fatal(err)
	}
	m, cmd := h.m.Refresh()
	h.m = m
	h.settle(cmd)
	h.requireView(`"aaa"`, `"plan": "free"`, "16")
}

// TestBrowsePagingAndSeek: a level of 500 children loads a screenful at a
// time, and :goto far into it seeks there instead of paging.
func TestBrowsePagingAndSeek(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, "file:"+t.TempDir()+"/big.db", clock, false)
	a := s.Atomic()
	for i := range 500 {
		a.Set(codec.Key{codec.String("big"), codec.Number(float64(i))}, []byte(`0`))
	}
	if _, err := a.Commit(viewtest.Ctx); err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, s, clock, 80, 24)
	h.keys("enter")
	if got := h.m.root.pages[0].kids[0].loadedKids(); got != h.m.pageSize() {
		t.Fatalf("loaded %d children, want one page of %d", got, h.m.pageSize())
	}
	for range 3 {
		h.keys("pgdown")
	}
	if got := h.m.root.pages[0].kids[0].loadedKids(); got <= h.m.pageSize() || got >= 500 {
		t.Fatalf("after scrolling, %d children loaded; want more pages, not all", got)
	}
	h.goTo(`["big", 450]`)
	h.requireView("↑ earlier keys", "❯     450 ●")
	h.goTo(`["big", 1000]`)
	if !strings.Contains(h.lastFlash(), `no key ["big", 1000]`) {
		t.Errorf("flash = %q", h.lastFlash())
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
	h.keys("G")
	h.requireView("(undecodable)")
	h.keys("enter", "j")
	v := h.m.View()
	for _, want := range []string{"ff0102", "does not decode", "not valid JSON", `\u001b[31mred`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q", want)
		}
	}
	if strings.Contains(v, "\x1b[31m") {
		t.Error("a stored escape sequence reached the screen")
	}
	h.keys("e")
	if !strings.Contains(h.lastFlash(), "cannot be edited") {
		t.Errorf("flash = %q", h.lastFlash())
	}
	h.goTo(`["accounts"]`)
	h.keys("enter")
	h.requireView("(undecodable)")
}

// TestBrowseMouse: the wheel scrolls the pane under it without moving
// the selection, and a later load does not snap the view back; a click
// selects.
func TestBrowseMouse(t *testing.T) {
	h := newHarness(t, false, 80, 24)
	h.goTo(`["accounts", "acme"]`)
	h.goTo(`["tmp", "otp-a"]`)
	sel := h.m.sel
	wheel := func(x int, b tea.MouseButton) {
		var cmd tea.Cmd
		h.m, cmd = h.m.Update(tea.MouseMsg{X: x, Y: 5, Button: b, Action: tea.MouseActionPress})
		h.settle(cmd)
	}
	wheel(5, tea.MouseButtonWheelUp)
	wheel(5, tea.MouseButtonWheelUp)
	if h.m.sel != sel || h.m.offset == 0 && h.m.cursor < h.m.treeRows() {
		t.Fatalf("wheel moved the selection or did not scroll: offset %d cursor %d", h.m.offset, h.m.cursor)
	}
	off := h.m.offset
	m, cmd := h.m.Refresh()
	h.m = m
	h.settle(cmd)
	if h.m.offset != off {
		t.Errorf("a refresh scrolled the tree from %d to %d", off, h.m.offset)
	}
	wheel(60, tea.MouseButtonWheelDown)
	if h.m.entryOff != 0 { // the otp-a entry fits: nothing to scroll
		t.Errorf("entry scrolled to %d", h.m.entryOff)
	}
	var c tea.Cmd
	h.m, c = h.m.Update(tea.MouseMsg{X: 5, Y: 2, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	h.settle(c)
	if h.m.cursor != h.m.offset {
		t.Errorf("click on the first tree line selected row %d, want %d", h.m.cursor, h.m.offset)
	}
}
