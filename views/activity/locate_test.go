package activity

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

// collect runs cmd and the commands of its batches, and returns their
// messages.
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, collect(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// enterOn selects the event of kind at key and presses enter; it returns
// what the tab asks of the root: the flash and the jump (nil when none).
func enterOn(t *testing.T, h *viewtest.Harness[Model], kind eventKind, key string) (string, *views.GotoMsg) {
	t.Helper()
	h.Keys("g")
	for range len(h.M.shown()) {
		if ev, _ := h.M.selected(); ev.kind == kind && codec.Format(ev.key) == key {
			break
		}
		h.Keys("j")
	}
	if ev, _ := h.M.selected(); ev.kind != kind || codec.Format(ev.key) != key {
		t.Fatalf("no %s event of %s in the feed:\n%s", kind, key, h.M.View())
	}
	flash, jump := enterFlash(h)
	return flash, jump
}

// pressEnter presses enter on the selected event and returns the jump the
// tab asks of the root (nil when none), after its look-up of the store.
func pressEnter(h *viewtest.Harness[Model]) *views.GotoMsg {
	_, jump := enterFlash(h)
	return jump
}

// enterFlash presses enter and returns the flash and the jump it asks.
func enterFlash(h *viewtest.Harness[Model]) (string, *views.GotoMsg) {
	var msgs []tea.Msg
	m, cmd := h.M.Update(viewtest.Key("enter"))
	for _, msg := range collect(cmd) {
		var c tea.Cmd
		m, c = m.Update(msg)
		msgs = append(msgs, collect(c)...)
	}
	h.M = m
	flash, jump := "", (*views.GotoMsg)(nil)
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case views.FlashMsg:
			flash = msg.Text
		case views.GotoMsg:
			jump = &msg
		}
	}
	return flash, jump
}

// TestEnterOnAVanishedKey: enter on a deleted or expired event does not
// send Browse to a key that is not there ("no key …"): it says in words
// that the key is not in the store and shows where it was, its deepest
// level that still holds keys with the cursor on its neighbour (the next
// part, else the one before); a row that is there again (written since,
// or expired and not swept yet) is shown itself, and an empty store is
// said so, without a jump.
func TestEnterOnAVanishedKey(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	set := func(k codec.Key, ttl time.Duration) {
		t.Helper()
		var exp *time.Duration
		if ttl > 0 {
			exp = &ttl
		}
		if _, err := s.Set(ctx, k, []byte(`1`), exp); err != nil {
			t.Fatal(err)
		}
	}
	del := func(k codec.Key) {
		t.Helper()
		if _, err := s.Commit(ctx, nil, []store.Mutation{{Type: store.MutationDelete, Key: k}}); err != nil {
			t.Fatal(err)
		}
	}
	// The seeded coordination rows are out of the way: keys under "q".
	h := newActivityHarness(t, s, clock, 120, 40)
	m1, m2, m3 := viewtest.KeyOf("q", "a", 1, "m1"), viewtest.KeyOf("q", "a", 2, "m2"), viewtest.KeyOf("q", "b", 1, "m3")
	set(m1, 0)
	set(m2, 0)
	set(m3, 0)
	set(viewtest.KeyOf("q", "c"), 30*time.Second)
	h.Refresh()

	// Its level ["q", "a"] holds the next due time: the cursor goes there.
	del(m1)
	h.Refresh()
	flash, jump := enterOn(t, h, evDeleted, `["q", "a", 1, "m1"]`)
	if !strings.HasPrefix(flash, "Deleted, not in the store: Browse shows where it was, beside 2. Key: [\"q\", \"a\", 1, \"m1\"]") || jump == nil || codec.Format(jump.Key) != `["q", "a", 2]` {
		t.Errorf("deleted with a next sibling: flash %q, jump %v", flash, jump)
	}

	// The last of its level: the part before it; ["q", "b"] is empty now,
	// so the neighbour is at ["q"]'s level: ["q", "a"] before "b".
	del(m3)
	h.Refresh()
	if flash, jump := enterOn(t, h, evDeleted, `["q", "b", 1, "m3"]`); jump == nil || codec.Format(jump.Key) != `["q", "c"]` || !strings.Contains(flash, "not in the store") {
		t.Errorf("deleted, its level empty: flash %q, jump %v (want the next part, [\"q\", \"c\"])", flash, jump)
	}
	del(viewtest.KeyOf("q", "c"))
	h.Refresh()
	if flash, jump := enterOn(t, h, evDeleted, `["q", "b", 1, "m3"]`); jump == nil || codec.Format(jump.Key) != `["q", "a"]` || !strings.Contains(flash, "not in the store") {
		t.Errorf("deleted, no part after it: flash %q, jump %v (want the part before, [\"q\", \"a\"])", flash, jump)
	}

	// Written again since the delete: the row itself.
	set(m1, 0)
	h.Refresh()
	if flash, jump := enterOn(t, h, evDeleted, `["q", "a", 1, "m1"]`); jump == nil || codec.Format(jump.Key) != `["q", "a", 1, "m1"]` || !strings.HasPrefix(flash, "Deleted, then written again") {
		t.Errorf("deleted and written again: flash %q, jump %v", flash, jump)
	}

	// Expired, not swept: Browse shows the row, struck through.
	e := viewtest.KeyOf("q", "e")
	set(e, 10*time.Second)
	h.Refresh()
	clock.Fix(clock.Now() + 11000)
	h.Refresh()
	if flash, jump := enterOn(t, h, evExpired, `["q", "e"]`); jump == nil || codec.Format(jump.Key) != `["q", "e"]` || !strings.HasPrefix(flash, "Expired, not swept yet") {
		t.Errorf("expired, not swept: flash %q, jump %v", flash, jump)
	}
}

// TestEnterOnAVanishedKeyEmptyStore: when the store holds no key at all,
// enter says so and does not jump.
func TestEnterOnAVanishedKeyEmptyStore(t *testing.T) {
	clock := viewtest.FixedClock()
	s := storetest.Open(t, "file:"+t.TempDir()+"/empty.db", store.Options{Clock: clock.Now, Create: true})
	ctx := storetest.Ctx(t)
	h := newActivityHarness(t, s, clock, 120, 40)
	k := viewtest.KeyOf("only", 1)
	if _, err := s.Set(ctx, k, []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	if _, err := s.Commit(ctx, nil, []store.Mutation{{Type: store.MutationDelete, Key: k}}); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	flash, jump := enterOn(t, h, evDeleted, `["only", 1]`)
	if jump != nil || flash != `Deleted, not in the store, which holds no key now. Key: ["only", 1]` {
		t.Errorf("the last key deleted: flash %q, jump %v", flash, jump)
	}
}
