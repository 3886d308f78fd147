package browse

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

// stepper runs a view's commands but hands their answers back one at a
// time, so that a test can press a key between two answers, as a user
// does while a load is in flight. Messages for the root are kept.
type stepper struct {
	queue   []tea.Msg
	records []views.ShowRecordMsg
	flashes []views.FlashMsg
	asks    []views.ConfirmMsg
}

func (s *stepper) run(c tea.Cmd) {
	if c == nil {
		return
	}
	switch msg := c().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			s.run(c)
		}
	case views.ShowRecordMsg:
		s.records = append(s.records, msg)
	case views.FlashMsg:
		s.flashes = append(s.flashes, msg)
	case views.ConfirmMsg:
		s.asks = append(s.asks, msg)
	default:
		s.queue = append(s.queue, msg)
	}
}

// drain delivers every answer, and the answers those bring, in order.
func (s *stepper) drain(m Model) Model {
	for len(s.queue) > 0 {
		m = s.next(m)
	}
	return m
}

// next delivers the first answer waiting.
func (s *stepper) next(m Model) Model {
	msg := s.queue[0]
	s.queue = s.queue[1:]
	var c tea.Cmd
	m, c = m.Update(msg)
	s.run(c)
	return m
}

func (s *stepper) press(m Model, names ...string) Model {
	for _, n := range names {
		var c tea.Cmd
		m, c = m.Update(viewtest.Key(n))
		s.run(c)
	}
	return m
}

// freshBrowse is Browse as the root builds it when a row of another tab
// jumps to it before Browse has shown (its first show, or the first after
// :open): its top level is not loaded yet.
func freshBrowse(t *testing.T) (Model, tea.Cmd) {
	t.Helper()
	h := newHarness(t, false, 120, 40)
	m := New(h.M.deps, viewtest.Styles())
	m.SetSize(120, 40)
	m.Focus()
	return m, m.Init()
}

// freshJump is freshBrowse with a jump to target in flight, its answers
// waiting in a stepper.
func freshJump(t *testing.T, target string) (Model, *stepper) {
	t.Helper()
	m, initCmd := freshBrowse(t)
	s := &stepper{}
	m, gotoCmd := m.Goto(storetest.Key(t, target))
	s.run(tea.Batch(initCmd, gotoCmd))
	return m, s
}

// selectedKey is the key under the cursor, or "" on a line that is not a
// decoded key part.
func selectedKey(m Model) string {
	if n := m.selected(); n != nil && n.kind == nodePart {
		return codec.Format(n.key)
	}
	return ""
}

// TestBrowseKeysDuringJumpActOnTarget: a key pressed while a jump to a
// lease is in flight (Browse's levels still loading, the cursor on the
// first prefix row) acts on the lease once it is selected: o shows it in
// Leases instead of saying that the prefix row is no coordination row, and
// j then moves on from the lease.
func TestBrowseKeysDuringJumpActOnTarget(t *testing.T) {
	const lease = `["dwk_lease", "Ticker", "234f594be1ed8ecc8c4d393b295c02f3"]`
	m, s := freshJump(t, lease)
	m = s.drain(s.press(m, "o"))
	if got := selectedKey(m); got != lease {
		t.Fatalf("after the jump the cursor is on %q, want the lease", got)
	}
	if len(s.records) != 1 || codec.Format(s.records[0].Key) != lease {
		t.Errorf("o during the jump asked for records %v; flashes %v", s.records, s.flashes)
	}
	for _, f := range s.flashes {
		if strings.Contains(f.Text, "o opens the tab") {
			t.Errorf("o acted on the row before the jump landed: %q", f.Text)
		}
	}
	if strings.Contains(m.View(), "going to") {
		t.Errorf("the jump landed but the tree still says it is going:\n%s", m.View())
	}

	// Keys held meanwhile are replayed in order: o, then j to the next row.
	m, s = freshJump(t, lease)
	m = s.press(m, "j")
	if !strings.Contains(m.View(), `going to ["dwk_lease", "Ticker", "234f`) {
		t.Errorf("the tree does not say where it is going:\n%s", m.View())
	}
	m = s.drain(m)
	if got := selectedKey(m); got != `["dwk_meta"]` {
		t.Errorf("j held during the jump put the cursor on %q, want the row after the lease", got)
	}
}

// TestBrowseJumpFailureDropsHeldKeys: when the target does not exist, the
// keys pressed while looking for it are not played on the row the cursor
// stayed on (d there would ask to delete another key), and the flash says
// they were ignored.
func TestBrowseJumpFailureDropsHeldKeys(t *testing.T) {
	m, s := freshJump(t, `["accounts", "nobody"]`)
	m = s.drain(s.press(m, "d"))
	if len(s.asks) != 0 {
		t.Errorf("d held during a failed jump asked %q", s.asks[0].Title)
	}
	if len(s.flashes) == 0 || !strings.Contains(s.flashes[len(s.flashes)-1].Text, `no key ["accounts", "nobody"]: not in the store`) ||
		!strings.Contains(s.flashes[len(s.flashes)-1].Text, "(1 key(s) pressed meanwhile ignored)") {
		t.Errorf("flashes %v", s.flashes)
	}
	// Keys act at once again after the jump.
	before := m.cursor
	if m = s.press(m, "j"); m.cursor != before+1 {
		t.Errorf("j after the failed jump moved the cursor from %d to %d", before, m.cursor)
	}
}

// TestBrowseRefreshKeepsKeyPastDroppedPages: a refresh re-reads a level's
// first page; when a key was added before the cursor, that page ends
// elsewhere and the pages after it are dropped to load again. The cursor,
// on an open child's key in a dropped page, used to stay at its index and
// so select another key for good. It now waits on the level's "more" line
// (a key pressed meanwhile waits too) and comes back to the same key once
// the pages are back; the children that were open in them are still open.
func TestBrowseRefreshKeepsKeyPastDroppedPages(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, "file:"+t.TempDir()+"/big.db", clock, false)
	viewtest.Commit(t, s, func(a *store.Atomic) {
		for i := range 40 {
			a.Set(codec.Key{codec.String("big"), codec.Number(float64(10 + i))}, []byte(`0`))
		}
		a.Set(codec.Key{codec.String("big"), codec.Number(29), codec.String("sub")}, []byte(`1`))
		a.Set(codec.Key{codec.String("big"), codec.Number(31), codec.String("sub")}, []byte(`1`))
	})
	// 12 tree rows: pages of 17 children, the first page's end on screen.
	h := startHarness(t, s, clock, 80, 16)
	h.Keys("enter")
	for range 20 {
		h.Keys("j")
	}
	h.Keys("l", "j", "j", "j", "l", "k", "k") // 29 and 31 open, on 29's sub
	const target = `["big", 29, "sub"]`
	if got := selectedKey(h.M); got != target || len(h.M.root.pages[0].kids[0].pages) < 2 {
		t.Fatalf("set-up: selected %s in %d page(s)", got, len(h.M.root.pages[0].kids[0].pages))
	}
	if _, err := s.Set(viewtest.Ctx, codec.Key{codec.String("big"), codec.Number(1)}, []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	st := &stepper{}
	m, cmd := h.M.Refresh()
	st.run(cmd)
	pressed := false
	for len(st.queue) > 0 {
		msg := st.queue[0]
		m = st.next(m)
		r := m.rows[m.cursor]
		if got := selectedKey(m); got != target && r.kind != rowMore {
			t.Fatalf("after %T the cursor is on %q (row kind %d), neither the key nor the level's more line", msg, got, r.kind)
		}
		if r.kind == rowMore && !pressed {
			m, pressed = st.press(m, "y"), true
		}
	}
	if got := selectedKey(m); got != target {
		t.Fatalf("after the refresh the cursor is on %q, want %s", got, target)
	}
	if !pressed {
		t.Error("the refresh never dropped the pages the key was in: the test tests nothing")
	}
	if len(h.Copied) != 1 || h.Copied[0] != target {
		t.Errorf("y pressed while the pages loaded again copied %q, want the key", h.Copied)
	}
	for _, open := range []string{`["big", 29]`, `["big", 31]`} {
		if n := lookup(m.root, storetest.Key(t, open)); n == nil || !n.expanded {
			t.Errorf("%s, open before the refresh, is not open after it:\n%s", open, m.View())
		}
	}
}

// TestBrowseClickDuringJumpWins: a row clicked while a jump is in flight
// stays selected when the jump's levels arrive; the jump ends there.
func TestBrowseClickDuringJumpWins(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	st := &stepper{}
	m, cmd := h.M.Goto(storetest.Key(t, `["dwk_lease", "Ticker", "234f594be1ed8ecc8c4d393b295c02f3"]`))
	st.run(cmd)
	if m.jump == nil {
		t.Fatal("set-up: the jump landed without loading")
	}
	click, ok := viewtest.ClickOn(m.View(), `"attachments"`, 0)
	if !ok {
		t.Fatalf("no attachments row:\n%s", m.View())
	}
	m, cmd = m.Update(click)
	st.run(cmd)
	m = st.drain(m)
	if got := selectedKey(m); got != `["attachments"]` {
		t.Errorf("after the jump's answers the cursor is on %q, want the row clicked", got)
	}
}

// untilEntry delivers answers up to (not including) the first read of an
// entry, which it returns with the index it has in the queue.
func (s *stepper) untilEntry(t *testing.T, m Model) (Model, int) {
	t.Helper()
	for len(s.queue) > 0 {
		for i, msg := range s.queue {
			if _, ok := msg.(entryLoaded); ok {
				return m, i
			}
		}
		m = s.next(m)
	}
	t.Fatal("no entry was read")
	return m, -1
}

// TestBrowseHeldKeysWaitForEntry: a key held during a jump to a stored key
// acts once the key's entry is read, not when the cursor reaches the row
// (d then only said that the entry was not loaded yet). A key pressed
// after the landing, while the entry is read, waits behind it.
func TestBrowseHeldKeysWaitForEntry(t *testing.T) {
	const target = `["accounts", "acme"]`
	m, s := freshJump(t, target)
	m = s.press(m, "d")
	m, _ = s.untilEntry(t, m)
	if got := selectedKey(m); got != target {
		t.Fatalf("set-up: the entry read is for %q, want the target", got)
	}
	if m.jump != nil {
		t.Fatal("set-up: the jump has not landed")
	}
	for _, f := range s.flashes {
		t.Errorf("before the entry was read: flash %q", f.Text)
	}
	if len(s.asks) != 0 {
		t.Fatalf("d asked %q before the entry was read", s.asks[0].Title)
	}
	m = s.drain(s.press(m, "j")) // pressed while the entry is read
	if len(s.asks) != 1 || !strings.Contains(strings.Join(s.asks[0].Lines, " "), "Deletes the row "+target) {
		t.Fatalf("d held during the jump asked %v; flashes %v", s.asks, s.flashes)
	}
	if len(s.flashes) != 1 || !strings.Contains(s.flashes[0].Text, "d asks first (1 key(s) pressed after it ignored)") {
		t.Errorf("the key after d: flashes %v", s.flashes)
	}
	if got := selectedKey(m); got != target {
		t.Errorf("j pressed after d moved the cursor to %q behind the dialog", got)
	}

	// Keys that stay in Browse act in order once the entry is in: y
	// copies the target, j moves on, Y copies the next key's value once
	// that one is read.
	h := newHarness(t, false, 120, 40)
	m = h.M
	s = &stepper{}
	m, gotoCmd := m.Goto(storetest.Key(t, target))
	s.run(gotoCmd)
	m = s.drain(s.press(m, "y", "j", "Y"))
	next := selectedKey(m)
	if next == target || !m.entry.found {
		t.Fatalf("set-up: j went to %q, not to another stored key", next)
	}
	if len(h.Copied) != 2 || h.Copied[0] != target || h.Copied[1] != string(m.entry.e.Value) {
		t.Errorf("y j Y held during the jump copied %q, want the target and %s's value", h.Copied, next)
	}
	for _, f := range s.flashes {
		if !strings.HasPrefix(f.Text, "copied ") {
			t.Errorf("flash %q", f.Text)
		}
	}
}

// TestBrowseHeldKeysDroppedWhenEntryFails: when the target's entry cannot
// be read, the keys held for it are dropped, and the flash says so.
func TestBrowseHeldKeysDroppedWhenEntryFails(t *testing.T) {
	const target = `["accounts", "acme"]`
	m, s := freshJump(t, target)
	m = s.press(m, "e", "d")
	m, i := s.untilEntry(t, m)
	// The store's answer, as a read past its deadline gives it.
	e := s.queue[i].(entryLoaded)
	e.row.Found, e.row.Err = false, context.DeadlineExceeded
	s.queue[i] = e
	m = s.drain(m)
	if len(s.asks) != 0 || m.editor.Editing() {
		t.Errorf("keys held for an entry that failed to load acted: asks %v, form open %v", s.asks, m.editor.Editing())
	}
	want := "cannot read " + target + ": context deadline exceeded (2 key(s) pressed meanwhile ignored)"
	if len(s.flashes) != 1 || s.flashes[0].Text != want {
		t.Errorf("flashes %v, want %q", s.flashes, want)
	}
	if before := m.cursor; s.press(m, "j").cursor != before+1 {
		t.Error("j after the dropped keys did not move the cursor")
	}
}

// TestBrowseHeldKeysStopAtRecord: o held during a jump to a lease asks the
// root for the Leases tab; the keys held after it were meant for what o
// shows, not for Browse: they do not act here (d asked to delete the
// lease's row, j moved the cursor) and the flash says they were ignored.
func TestBrowseHeldKeysStopAtRecord(t *testing.T) {
	const lease = `["dwk_lease", "Ticker", "234f594be1ed8ecc8c4d393b295c02f3"]`
	m, s := freshJump(t, lease)
	m = s.drain(s.press(m, "o", "j", "d"))
	if len(s.records) != 1 || codec.Format(s.records[0].Key) != lease {
		t.Fatalf("o asked for records %v", s.records)
	}
	if got := selectedKey(m); got != lease {
		t.Errorf("a key after o moved the cursor to %q", got)
	}
	if len(s.asks) != 0 {
		t.Errorf("d after o asked %q in Browse", s.asks[0].Title)
	}
	if len(s.flashes) != 1 || s.flashes[0].Text != "o shows another tab (2 key(s) pressed after it ignored)" {
		t.Errorf("flashes %v", s.flashes)
	}
	if len(m.held.keys) != 0 || m.holding() {
		t.Errorf("keys still held after o: %v", m.held.keys)
	}
}

// TestBrowseHeldKeysDroppedWhenRowGoes: a reload that takes the cursor off
// the target while its entry is read (the key deleted meanwhile) drops the
// keys held for it: they would act on whatever row the cursor fell on.
func TestBrowseHeldKeysDroppedWhenRowGoes(t *testing.T) {
	const target = `["accounts", "hooli"]`
	h := newHarness(t, false, 120, 40)
	s := &stepper{}
	m, gotoCmd := h.M.Goto(storetest.Key(t, target))
	s.run(gotoCmd)
	m = s.press(m, "d")
	m, i := s.untilEntry(t, m)
	entry := s.queue[i]
	s.queue = append(s.queue[:i], s.queue[i+1:]...)
	if err := h.S.Delete(viewtest.Ctx, storetest.Key(t, target)); err != nil {
		t.Fatal(err)
	}
	m, cmd := m.Refresh()
	s.run(cmd)
	m = s.drain(m) // the levels come back without the key; its entry is still being read
	if got := selectedKey(m); got == target {
		t.Fatalf("set-up: the cursor is still on %s after it was deleted:\n%s", got, m.View())
	}
	s.queue = append(s.queue, entry)
	m = s.drain(m)
	if len(s.asks) != 0 {
		t.Errorf("d held for the deleted key asked %q", s.asks[0].Title)
	}
	want := "the cursor left the row they waited for (1 key(s) pressed meanwhile ignored)"
	if len(s.flashes) != 1 || s.flashes[0].Text != want {
		t.Errorf("flashes %v, want %q", s.flashes, want)
	}
	if m.holding() {
		t.Errorf("keys still held: %v", m.held.keys)
	}
}

// TestBrowseHeldDeleteReadOnlyLeavesNothing: read-only, d held during a
// jump is refused, not taken for a key that asks in the root's dialog:
// the key pressed after it still acts.
func TestBrowseHeldDeleteReadOnlyLeavesNothing(t *testing.T) {
	const target = `["accounts", "acme"]`
	m, s := freshJump(t, target)
	m.readOnly = true
	m = s.press(m, "d")
	m, _ = s.untilEntry(t, m)
	m = s.drain(s.press(m, "j"))
	if len(s.asks) != 0 {
		t.Fatalf("read-only d asked %q", s.asks[0].Title)
	}
	if len(s.flashes) != 1 || !strings.Contains(s.flashes[0].Text, "read-only: delete (d) is off") {
		t.Fatalf("read-only d held during the jump: flashes %v", s.flashes)
	}
	if got := selectedKey(m); got == target {
		t.Errorf("j pressed after the refused d did not move the cursor")
	}
}
