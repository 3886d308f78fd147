package activity

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// bulk commits commits of rows rows each under ["bulk", c, i]: what
// `kvdeck load` does to a store.
func bulk(t *testing.T, s *store.Store, commits, rows int) {
	t.Helper()
	for c := range commits {
		viewtest.Commit(t, s, func(a *store.Atomic) {
			for i := range rows {
				a.Set(viewtest.KeyOf("bulk", c, i), []byte(`{"n":1}`))
			}
		})
	}
}

// seqOf is where the store's seq stands.
func seqOf(t *testing.T, s *store.Store) int64 {
	t.Helper()
	v, err := s.Version(storetest.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return v.Seq
}

// TestBacklogCatchesUp: opened after a bulk write of
// 30 commits of 100 rows, the tab's backlog (the last 20 commits, 2,000
// rows: ten pages, more than one refresh reads) is read whole while the
// store stays still, and every row of it says `earlier`; no line
// promises a refresh. Failed before: it stopped after five pages (stamp
// 21 of 40), the rows past the first page were labelled `set`, and the
// title said "more to read at the next refresh", which never came.
func TestBacklogCatchesUp(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	bulk(t, s, 30, 100)
	seq := seqOf(t, s)
	h := newActivityHarness(t, s, clock, 120, 40)
	if h.M.f.c.After() != seq {
		t.Errorf("read to stamp %d of seq %d while the store is still", h.M.f.c.After(), seq)
	}
	sets := 0
	for _, ev := range h.M.f.events {
		if !ev.before {
			sets++
		}
	}
	if sets != 0 || len(h.M.f.events) != 2000 {
		t.Errorf("%d of %d backlog events are not `earlier`", sets, len(h.M.f.events))
	}
	view := ansi.Strip(h.M.View())
	if strings.Contains(view, "next refresh") || strings.Contains(view, "catching up") || strings.Contains(h.ViewLine("bulk"), " set ") {
		t.Errorf("caught up, the view says otherwise:\n%s", view)
	}
}

// TestBulkWhileOpenCatchesUp: with the tab open, a
// bulk write of 4 commits of 200 rows (pages of 20 rows here, so that it
// is eight refreshes' worth, as 50k rows are in use) and then a few sets,
// with one
// refresh after each (as the root's tick sees seq move), leave the tab
// on the newest stamp with the sets on top, on a file and on sqld.
// Failed before: it stood at stamp 4 of seq 7 on a file and 1 of 7 on
// sqld while the store was still (the ticks that recheck the rows kept
// read on a little, then nothing more came).
func TestBulkWhileOpenCatchesUp(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		clock := viewtest.FixedClock()
		s := storetest.Open(t, b.URL(t), store.Options{Clock: clock.Now, Create: true})
		h := newActivityHarness(t, s, clock, 120, 40, pagesOf(20)) // a refresh reads 100 rows: the bulk is 8 refreshes' worth
		bulk(t, s, 4, 200)
		h.Refresh()
		ctx := storetest.Ctx(t)
		for i := range 3 {
			if _, err := s.Set(ctx, viewtest.KeyOf("after", i), []byte(`1`), nil); err != nil {
				t.Fatal(err)
			}
		}
		h.Refresh()
		seq := seqOf(t, s)
		if h.M.f.c.After() != seq {
			t.Errorf("read to stamp %d of seq %d while the store is still", h.M.f.c.After(), seq)
		}
		if ev, _ := h.M.selected(); codec.Format(ev.key) != `["after", 2]` || ev.before {
			t.Errorf("the top row is %s (before %v), want the last set", codec.Format(ev.key), ev.before)
		}
	})
}

// TestFollowingOrPinned: the title says whether the
// list follows the newest event or is pinned on the row the user moved
// to (and how many newer events came above it); g follows again. enter
// right after the newest event took the cursor acts on the row the user
// was reading, not on the one that arrived under the key press; once it
// has shown for followGrace, on it. Failed before: no word of either,
// and enter opened whatever was newest at the key press.
func TestFollowingOrPinned(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	put := func(i int) { t.Helper(); setOne(t, s, viewtest.KeyOf("n", i)) }
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	h := newActivityHarness(t, s, clock, 120, 40, func(tn *tuning) {
		tn.wallNow = func() time.Time { return at }
	})
	followGrace := h.M.tune.followGrace
	put(1)
	h.Refresh()
	h.RequireView("· following")
	at = at.Add(followGrace) // ["n", 1] has shown long enough to be read
	put(2)
	h.Refresh() // ["n", 2] takes the cursor as the user reads ["n", 1]
	put(9)
	h.Refresh() // and ["n", 9] at once after it: ["n", 1] is still the row read
	if jump := pressEnter(h); jump == nil || codec.Format(jump.Key) != `["n", 1]` {
		t.Errorf("enter as the newest arrived jumps to %v, want the row read, [\"n\", 1]", jump)
	}
	if ev, _ := h.M.selected(); codec.Format(ev.key) != `["n", 1]` || !strings.Contains(h.ViewLine("ACTIVITY"), "pinned") {
		t.Errorf("after that enter the cursor is on %s, want the row read, pinned:\n%s", codec.Format(ev.key), h.M.View())
	}
	h.Keys("g")
	h.RequireView("· following")
	put(3)
	h.Refresh()
	at = at.Add(followGrace + time.Millisecond)
	if jump := pressEnter(h); jump == nil || codec.Format(jump.Key) != `["n", 3]` {
		t.Errorf("enter once the newest has shown jumps to %v, want [\"n\", 3]", jump)
	}
	h.Keys("j")
	h.RequireView("pinned, 1 newer (g follows)")
	put(4)
	put(5)
	h.Refresh()
	h.RequireView("pinned, 3 newer (g follows)")
	if jump := pressEnter(h); jump == nil || codec.Format(jump.Key) != `["n", 9]` {
		t.Errorf("pinned, enter jumps to %v, want the pinned row [\"n\", 9]", jump)
	}
	h.Keys("g")
	h.RequireView("· following")
	put(6)
	h.Refresh()
	if ev, _ := h.M.selected(); codec.Format(ev.key) != `["n", 6]` {
		t.Errorf("following again, the cursor is on %s", codec.Format(ev.key))
	}
}

// TestEnterOnASetRowOfADeletedKey: enter on a `set`
// row whose key was deleted since does as the `deleted` row does: it
// says the key is gone and shows where it was, not "no key"; on a key
// still there it shows the key. Failed before: it sent Browse to the
// missing key without a word.
func TestEnterOnASetRowOfADeletedKey(t *testing.T) {
	s, h := feedOf(t, 120, 40, "q", 2)
	if err := s.Delete(storetest.Ctx(t), viewtest.KeyOf("q", 1)); err != nil {
		t.Fatal(err)
	}
	// No refresh yet: the feed still shows the set as the last of it.
	flash, jump := enterOn(t, h, evSet, `["q", 1]`)
	if !strings.Contains(flash, "since this change, not in the store: Browse shows where it was, beside 2") || jump == nil || codec.Format(jump.Key) != `["q", 2]` {
		t.Errorf("set row of a deleted key: flash %q, jump %v", flash, jump)
	}
	flash, jump = enterOn(t, h, evSet, `["q", 2]`)
	if flash != "" || jump == nil || codec.Format(jump.Key) != `["q", 2]` {
		t.Errorf("set row of a key still there: flash %q, jump %v", flash, jump)
	}
}

// screenData writes what the size goldens show: a backlog row, a value
// replaced by a long one, a row deleted, sets with long keys and values.
func screenData(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := storetest.Ctx(t)
	long := `{"plan":"gold","seats":12,"owner":"ops@example.com","notes":"renewed for another year after the review of March","tags":["a","b","c"]}`
	for i := range 12 {
		if _, err := s.Set(ctx, viewtest.KeyOf("accounts", fmt.Sprintf("acct-%02d", i)), []byte(long), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestActivityScreens: at the tab's size under 120x40,
// 80x24 and 60x18 screens (the root keeps three lines), the list shows at
// least five rows (the note folds away first) and the detail its key,
// what happened and the change by path (the diff of
// before → after, where it showed two truncated values).
// Failed before: at 80x24 the after value was cut off by the before
// value's lines, at 60x18 one row showed under the note.
func TestActivityScreens(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			s, clock, _ := viewtest.CoordStoreAt(t)
			ctx := storetest.Ctx(t)
			h := newActivityHarness(t, s, clock, sz.w, sz.h-3)
			screenData(t, s)
			h.Refresh()
			if err := s.Delete(ctx, viewtest.KeyOf("accounts", "acct-05")); err != nil {
				t.Fatal(err)
			}
			h.Refresh()
			k := viewtest.KeyOf("accounts", "acct-03")
			if _, err := s.Set(ctx, k, []byte(`{"plan":"silver","seats":3,"owner":"ops@example.com","notes":"downgraded at the end of the trial period"}`), nil); err != nil {
				t.Fatal(err)
			}
			h.Refresh()
			view := ansi.Strip(h.M.View())
			rows := 0
			for _, l := range strings.Split(view, "\n") {
				if strings.Contains(l, " set ") || strings.Contains(l, " deleted ") {
					rows++
				}
			}
			if rows < 5 {
				t.Errorf("%d rows show, want at least 5:\n%s", rows, view)
			}
			for _, f := range []string{"│ key ", "│ what ", `│ change  ~ .plan`, `"gold" → "silver"`, "more changed path"} {
				if sz.w == 120 && f == "more changed path" {
					f = `~ .notes  "renewed`
				}
				if !strings.Contains(view, f) {
					t.Errorf("the detail lacks %q:\n%s", f, view)
				}
			}
			golden.RequireEqual(t, h.M.View())
		})
	}
}

// TestFilterTakesAWord: / filters as it is typed,
// as Browse's does: a plain word keeps the keys whose text holds it, with
// no key syntax and no codec error; the input says what it takes; a key
// prefix still works. Failed before: `users` gave a codec error on enter
// and nothing was filtered while typing.
func TestFilterTakesAWord(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	h := newActivityHarness(t, s, clock, 120, 40)
	for _, k := range []codec.Key{viewtest.KeyOf("users", "ann"), viewtest.KeyOf("users", "bob"), viewtest.KeyOf("orders", 1)} {
		if _, err := s.Set(ctx, k, []byte(`1`), nil); err != nil {
			t.Fatal(err)
		}
	}
	h.Refresh()
	h.Keys("/")
	h.RequireView("a word in the key, or a key prefix")
	h.TypeText("users")
	keys := func() []string {
		var out []string
		for _, ev := range h.M.shown() {
			out = append(out, codec.Format(ev.key))
		}
		return out
	}
	if got := strings.Join(keys(), " "); got != `["users", "bob"] ["users", "ann"]` {
		t.Errorf("typed `users`, the feed shows %s", got)
	}
	h.Keys("enter")
	if h.M.Capturing() || strings.Contains(ansi.Strip(h.M.View()), "✗") {
		t.Errorf("enter on a word: %s", h.M.View())
	}
	h.Keys("esc")
	h.Keys("/")
	h.TypeText(`["orders"]`)
	h.Keys("enter")
	if got := strings.Join(keys(), " "); got != `["orders", 1]` {
		t.Errorf("the key prefix [\"orders\"] shows %s", got)
	}
}

// TestChangeUsesTheWidth: the CHANGE column shows as
// much of a value as the width gives it. Failed before: 40 characters
// at any width.
func TestChangeUsesTheWidth(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	h := newActivityHarness(t, s, clock, 200, 40)
	v := `"` + strings.Repeat("abcdefghij", 20) + `"`
	if _, err := s.Set(ctx, viewtest.KeyOf("wide"), []byte(v), nil); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	if line := h.ViewLine(`["wide"]`); !strings.Contains(line, v[:100]) {
		t.Errorf("the row shows less than 100 characters of the value at 200 columns:\n%s", line)
	}
}

// TestDroppedEventsSaid: past the events it keeps,
// the title counts those kept of those seen, and G, which stops at the
// oldest kept, says how many older ones were dropped. Failed before: the
// title counted every event ever seen as if shown, and G stopped without
// a word.
func TestDroppedEventsSaid(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	h := newActivityHarness(t, s, clock, 120, 40)
	seen := len(h.M.f.events)
	bulk(t, s, 1, 2100)
	h.Refresh()
	total := seen + 2100
	h.RequireView(fmt.Sprintf("newest 2000 of %d event(s) kept", total))
	h.Keys("G")
	h.RequireView(fmt.Sprintf("%d older event(s) dropped: the tab keeps the newest 2000", total-2000))
}

// TestColumnsStayPut: as rows scroll, from the
// `earlier` backlog to later sets with shorter keys, the columns keep
// their places. Failed before: WHAT shrank to `set` and KEY to the keys
// in view, moving every column after them.
func TestColumnsStayPut(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	if _, err := s.Set(ctx, viewtest.KeyOf("a long key", "with a long second part", 1), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	h := newActivityHarness(t, s, clock, 120, 30)
	for i := range 40 {
		if _, err := s.Set(ctx, viewtest.KeyOf("n", i), []byte(`1`), nil); err != nil {
			t.Fatal(err)
		}
	}
	h.Refresh()
	header := h.ViewLine("STAMP")
	for range len(h.M.shown()) {
		h.Keys("j")
		if got := h.ViewLine("STAMP"); got != header {
			t.Fatalf("the header moved as the rows scrolled:\n%s\n%s", header, got)
		}
	}
}

// TestIdleCatchUpReadsMore: once nothing is committed
// between two of its reads, the tab reads a backlog 25 pages a tick
// rather than 5 (no writer to meet on a file's lock): 800 rows in pages
// of 20 take two ticks after the refresh, not seven; meanwhile the title
// says how far it has read.
func TestIdleCatchUpReadsMore(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	h := newActivityHarness(t, s, clock, 120, 40, pagesOf(20))
	bulk(t, s, 4, 200)
	seq := seqOf(t, s)
	m, cmd := h.M.Refresh()
	ticks := 0
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 && (m.behind || m.loading || m.f.c.After() != seq) {
		c := queue[0]
		queue = queue[1:]
		for _, msg := range collect(c) {
			if _, ok := msg.(walkTick); ok {
				ticks++
			}
			var next tea.Cmd
			m, next = m.Update(msg)
			if next != nil {
				queue = append(queue, next)
			}
			if m.behind && !m.loading && !strings.Contains(ansi.Strip(m.View()), fmt.Sprintf("catching up: read to stamp %d", m.f.c.After())) {
				t.Errorf("behind, the title does not say how far it read:\n%s", m.View())
			}
		}
	}
	if m.f.c.After() != seq {
		t.Fatalf("read to stamp %d of seq %d", m.f.c.After(), seq)
	}
	if ticks > 2 {
		t.Errorf("catching up took %d ticks, want 2", ticks)
	}
}

// pagesOf makes the tab read the feed in pages of n rows.
func pagesOf(n int) func(*tuning) {
	return func(tn *tuning) { tn.pageRows = n }
}

// TestActivityKeysReadable: at 80x24 and 60x18 a queue message's key
// keeps its short parts whole ("emails" showed as "em…ls", even "e…s")
// and a little of its long ones: the CHANGE column gives way.
func TestActivityKeysReadable(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			s, clock, _ := viewtest.CoordStoreAt(t)
			ctx := storetest.Ctx(t)
			h := newActivityHarness(t, s, clock, sz.w, sz.h-3)
			k := viewtest.KeyOf("dwk_queue_due", "emails", 1796121459950, "0b7c4e2a-11f0-9d41-3c7d1841")
			if _, err := s.Set(ctx, k, []byte(`{"to":"ops@example.com","subject":"welcome"}`), nil); err != nil {
				t.Fatal(err)
			}
			h.Refresh()
			line := h.ViewLine(` set `)
			for _, part := range []string{`["dwk_q`, `"emails"`, `17…50`, `1841"]`} {
				if !strings.Contains(line, part) {
					t.Errorf("the key's row lacks %s:\n%s", part, line)
				}
			}
		})
	}
}
