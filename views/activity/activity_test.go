package activity

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

// newActivityHarness runs a focused Activity view over s at w x h, with a
// short pace for the reads that follow a refresh (a paced walk, the
// recheck of the rows kept beyond one batch), which the harness waits
// for; each tune then changes the tab's tuning before it starts (the
// large-data tests set the real pace).
func newActivityHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int, tune ...func(*tuning)) *viewtest.Harness[Model] {
	t.Helper()
	return viewtest.Start[Model, *Model](t, s, clock, w, h, func(deps views.Deps, styles themes.Styles) Model {
		m := New(deps, styles)
		m.tune.walkPace = 10 * time.Millisecond
		for _, f := range tune {
			f(&m.tune)
		}
		return m
	})
}

// feedOf is the tab at w x h over the coordination store after sets of
// [name, 1] .. [name, n], read: the store and the harness.
func feedOf(t *testing.T, w, h int, name string, n int) (*store.Store, *viewtest.Harness[Model]) {
	t.Helper()
	s, clock, _ := viewtest.CoordStoreAt(t)
	hs := newActivityHarness(t, s, clock, w, h)
	for i := 1; i <= n; i++ {
		setOne(t, s, viewtest.KeyOf(name, i))
	}
	hs.Refresh()
	return s, hs
}

// setOne sets k to 1 in s.
func setOne(t *testing.T, s *store.Store, k codec.Key) {
	t.Helper()
	if _, err := s.Set(storetest.Ctx(t), k, []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
}

// TestFeedSecondWriter: another connection writes (sets, an atomic
// commit of several sets, a delete, rows that expire under the virtual
// clock) between refreshes; on a file and on sqld the feed holds every
// change once, in stamp order, with the old value where the tab had read
// it, and the vanished rows said as deleted or expired, without a stamp.
func TestFeedSecondWriter(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		clock := viewtest.FixedClock()
		s := storetest.Open(t, url, store.Options{Clock: clock.Now, Create: true})
		w := storetest.Open(t, url, store.Options{Clock: clock.Now}) // the other writer
		ctx := storetest.Ctx(t)
		set := func(k codec.Key, v string, ttl time.Duration) {
			t.Helper()
			var exp *time.Duration
			if ttl > 0 {
				exp = &ttl
			}
			if _, err := w.Set(ctx, k, []byte(v), exp); err != nil {
				t.Fatal(err)
			}
		}
		set(viewtest.KeyOf("before"), `0`, 0) // written before the tab opened: the backlog
		h := newActivityHarness(t, s, clock, 120, 40)
		if len(h.M.f.events) != 1 || !h.M.f.events[0].before {
			t.Fatalf("backlog: %+v", h.M.f.events)
		}

		set(viewtest.KeyOf("a"), `1`, 0)
		set(viewtest.KeyOf("dwk_lease", "Cart", "0a"), `{"holder":"x"}`, 30*time.Second)
		h.Refresh()
		viewtest.Commit(t, w, func(a *store.Atomic) {
			a.Set(viewtest.KeyOf("a"), []byte(`2`))
			a.Set(viewtest.KeyOf("b"), []byte(`"b"`))
			a.Set(viewtest.KeyOf("dwk_queue_due", "jobs", 5, "m1"), []byte(`{"body":1,"attempts":0}`))
		})
		set(viewtest.KeyOf("c"), `3`, 0)
		h.Refresh()
		if _, err := w.Commit(ctx, nil, []store.Mutation{{Type: store.MutationDelete, Key: viewtest.KeyOf("b")}}); err != nil {
			t.Fatal(err)
		}
		clock.Fix(clock.Now() + 31000) // the lease expires (not swept)
		set(viewtest.KeyOf("a"), `4`, 0)
		h.Refresh()
		h.Refresh() // nothing moved: nothing new

		var got []string
		lastVer := int64(0)
		sets := map[string]int{}
		for _, ev := range h.M.f.events {
			line := fmt.Sprintf("%s %s %s", ev.kind, codec.Format(ev.key), ev.record)
			if ev.kind == evSet {
				if ev.ver < lastVer {
					t.Errorf("out of stamp order: %s at %d after %d", line, ev.ver, lastVer)
				}
				lastVer = ev.ver
				sets[fmt.Sprintf("%s@%d", codec.Format(ev.key), ev.ver)]++
				if ev.hadOld {
					line += " " + string(ev.old) + "→" + string(ev.value)
				}
			}
			got = append(got, line)
		}
		for k, n := range sets {
			if n != 1 {
				t.Errorf("%s shows %d times", k, n)
			}
		}
		want := []string{
			`set ["before"] plain`,
			`set ["a"] plain`,
			`set ["dwk_lease", "Cart", "0a"] lease`,
			`set ["a"] plain 1→2`,
			`set ["b"] plain`,
			`set ["dwk_queue_due", "jobs", 5, "m1"] queue`,
			`set ["c"] plain`,
			`set ["a"] plain 2→4`,
			// vanished rows, in the order the tab had read them
			`expired ["dwk_lease", "Cart", "0a"] lease`,
			`deleted ["b"] plain`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("feed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		view := ansi.Strip(h.M.View())
		for _, text := range []string{"deleted", "expired", "1 → 2", "2 → 4"} {
			if !strings.Contains(view, text) {
				t.Errorf("the view lacks %q:\n%s", text, view)
			}
		}
	})
}

// TestMarkFilterJump: m pins a point (only later changes show), / limits
// the feed to a key prefix, esc clears the filter and then the mark, and
// enter asks the root to show the key in Browse.
func TestMarkFilterJump(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	put := func(k codec.Key, v string) {
		t.Helper()
		if _, err := s.Set(ctx, k, []byte(v), nil); err != nil {
			t.Fatal(err)
		}
	}
	put(viewtest.KeyOf("x", 1), `1`)
	h := newActivityHarness(t, s, clock, 100, 30)
	put(viewtest.KeyOf("x", 2), `2`)
	h.Refresh()
	h.Keys("M")
	h.RequireFlash("marked at seq 2")
	if n := len(h.M.shown()); n != 0 {
		t.Fatalf("right after the mark %d events show", n)
	}
	put(viewtest.KeyOf("x", 3), `3`)
	put(viewtest.KeyOf("y"), `"y"`)
	h.Refresh()
	h.RequireView("marked at seq 2", "2 since")
	if n := len(h.M.shown()); n != 2 {
		t.Errorf("after the mark %d events show, want 2", n)
	}
	h.Keys("/")
	h.TypeText(`["x"]`)
	h.Keys("enter")
	if ev := h.M.shown(); len(ev) != 1 || codec.Format(ev[0].key) != `["x", 3]` {
		t.Errorf("under the mark and /[\"x\"]: %v", ev)
	}
	golden.RequireEqual(t, h.M.View())
	if jumped := pressEnter(h); jumped == nil || codec.Format(jumped.Key) != `["x", 3]` {
		t.Errorf("enter jumps to %v", jumped)
	}
	h.Keys("esc")
	if h.M.filter != nil || h.M.mark == nil {
		t.Errorf("the first esc clears the filter only")
	}
	h.Keys("esc")
	if h.M.mark != nil || len(h.M.shown()) != 4 {
		t.Errorf("the second esc clears the mark: %d show", len(h.M.shown()))
	}
	h.Keys("/")
	h.TypeText(`["x`)
	h.Keys("enter")
	h.RequireView("✗")
}

// TestFeedFollowsTheHead: with the cursor on the newest event the list
// stays on the newest as changes arrive; moved down, it keeps its event.
func TestFeedFollowsTheHead(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	put := func(i int) { t.Helper(); setOne(t, s, viewtest.KeyOf("n", i)) }
	put(0)
	h := newActivityHarness(t, s, clock, 100, 30)
	for i := 1; i <= 3; i++ {
		put(i)
		h.Refresh()
	}
	if ev, _ := h.M.selected(); codec.Format(ev.key) != `["n", 3]` {
		t.Errorf("at the head the newest is selected, got %v", ev.key)
	}
	h.Keys("j")
	put(4)
	h.Refresh()
	if ev, _ := h.M.selected(); codec.Format(ev.key) != `["n", 2]` {
		t.Errorf("moved off the head, the cursor keeps its event, got %v", ev.key)
	}
}

// TestActivityClickSelectsARow: a click on an event's row selects it, and
// enter then jumps to that event's key (rows clicks on every
// tab); a click on the header selects nothing new.
func TestActivityClickSelectsARow(t *testing.T) {
	_, h := feedOf(t, 100, 30, "n", 3)
	h.ClickOn(`["n", 1]`, 0)
	if ev, _ := h.M.selected(); codec.Format(ev.key) != `["n", 1]` {
		t.Fatalf("a click on [\"n\", 1]'s row selects %v", ev.key)
	}
	if jumped := pressEnter(h); jumped == nil || codec.Format(jumped.Key) != `["n", 1]` {
		t.Errorf("enter after the click jumps to %+v", jumped)
	}
	h.ClickOn("STAMP", 0)
	if ev, _ := h.M.selected(); codec.Format(ev.key) != `["n", 1]` {
		t.Errorf("a click on the header moved the selection to %v", ev.key)
	}
}
