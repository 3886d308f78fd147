package browse

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// seedMany writes ["users", "many", "kNNNNN"] for n keys, a few siblings of
// "many" under "users", and a few top-level keys beside "users".
func seedMany(t *testing.T, n int) (*store.Store, *store.VirtualClock) {
	t.Helper()
	users := codec.String("users")
	return seedLevel(t, codec.Key{users, codec.String("many")}, n,
		codec.Key{users, codec.String("alice")}, codec.Key{users, codec.String("bob")},
		codec.Key{codec.String("apps")}, codec.Key{codec.String("zeta")})
}

// seedLevel writes level + ["kNNNNN"] for n keys, and the keys more, each
// holding 1, in an empty store.
func seedLevel(t *testing.T, level codec.Key, n int, more ...codec.Key) (*store.Store, *store.VirtualClock) {
	t.Helper()
	s, clock, _ := viewtest.CoordStoreAt(t)
	viewtest.Commit(t, s, func(a *store.Atomic) {
		for i := range n {
			a.Set(append(slices.Clone(level), codec.String(fmt.Sprintf("k%05d", i))), []byte(`1`))
		}
		for _, k := range more {
			a.Set(k, []byte(`1`))
		}
	})
	return s, clock
}

// TestFilterStaysOnItsLevel: `/` then k04999 typed one
// character at a time filtered "many", then "users", then the root as the
// cursor fell out of each filtered level; esc cleared only the root. The
// filter stays on the level where `/` was pressed, and esc clears it.
func TestFilterStaysOnItsLevel(t *testing.T) {
	s, clock := seedMany(t, 200)
	h := startHarness(t, s, clock, 120, 30)
	goTo(h, `["users", "many", "k00001"]`)
	users := h.M.root.find(codec.String("users"))
	many := users.find(codec.String("many"))
	h.Keys("/")
	for _, c := range "k04999" {
		h.TypeText(string(c))
		if h.M.root.filter != "" || users.filter != "" {
			t.Fatalf("after %q the root's filter is %q and users' %q; only many's should be set", c, h.M.root.filter, users.filter)
		}
	}
	if many.filter != "k04999" {
		t.Errorf("many's filter is %q, want k04999", many.filter)
	}
	// The level shows what it can: only loaded keys are matched.
	h.RequireView("/ k04999", "filters 31/200 loaded · tab: all", "more not loaded: enter loads")
	// tab loads the rest of the level: the filter sees it all.
	h.Keys("backspace", "backspace", "backspace", "backspace") // k0
	h.TypeText("0199")
	h.Keys("tab")
	if many.more != nil || many.loadedKids() != 200 || h.M.filter.level != many {
		t.Fatalf("tab loaded %d of many's 200 children (more %v)", many.loadedKids(), many.more != nil)
	}
	h.RequireView(`"k00199" ●`)
	h.Keys("ctrl+u")
	h.TypeText("k04999")
	h.Keys("esc")
	if many.filter != "" || users.filter != "" || h.M.root.filter != "" {
		t.Errorf("esc left filters: root %q, users %q, many %q", h.M.root.filter, users.filter, many.filter)
	}

	// enter keeps the filter; esc, with the cursor elsewhere, clears it.
	h.Keys("/")
	h.TypeText("k0001")
	h.Keys("enter")
	h.RequireView("/k0001", "esc clears")
	if many.filter != "k0001" {
		t.Fatalf("enter did not keep the filter: %q", many.filter)
	}
	h.Keys("g") // the root's first row: another level
	h.Keys("esc")
	if many.filter != "" {
		t.Errorf("esc on another level left many's filter %q", many.filter)
	}
}

// TestGotoReadsTheStore: :goto of a key written after
// its level was read said "no key" until the next refresh; a key deleted
// since was shown as if it were there. :goto asks the store first.
func TestGotoReadsTheStore(t *testing.T) {
	s, clock := seedMany(t, 3)
	h := startHarness(t, s, clock, 120, 30)
	goTo(h, `["users", "alice"]`)
	set := func(k string) {
		if _, err := s.Commit(viewtest.Ctx, nil, []store.Mutation{{Type: store.MutationSet, Key: storetest.Key(t, k), Value: []byte(`2`)}}); err != nil {
			t.Fatal(err)
		}
	}
	set(`["users", "carol"]`)
	goTo(h, `["users", "carol"]`)
	if got := selectedKey(h.M); got != `["users", "carol"]` {
		t.Fatalf(":goto of a key written a moment ago selected %q; flash %q", got, h.LastFlash())
	}
	h.RequireView(`key     ["users", "carol"]`)

	if _, err := s.Commit(viewtest.Ctx, nil, []store.Mutation{{Type: store.MutationDelete, Key: storetest.Key(t, `["users", "bob"]`)}}); err != nil {
		t.Fatal(err)
	}
	goTo(h, `["users", "bob"]`)
	h.RequireFlash(`no key ["users", "bob"]: not in the store (deleted, or never written)`)
	if got := selectedKey(h.M); got != `["users", "carol"]` {
		t.Errorf("the vanished key's neighbour is carol; selected %q", got)
	}
}

// TestGotoHoldsKeysUntilItLands: a key pressed right after :goto's enter,
// before the store has answered, acts on the target, not on the row the
// cursor was on.
func TestGotoHoldsKeysUntilItLands(t *testing.T) {
	s, clock := seedMany(t, 3)
	h := startHarness(t, s, clock, 120, 30)
	goTo(h, `["users", "alice"]`)
	st := &stepper{}
	m, c := h.M.Goto(storetest.Key(t, `["zeta"]`))
	st.run(c)
	m = st.press(m, "d")
	if len(st.asks) != 0 {
		t.Fatalf("d before the jump landed asked %q at once", st.asks[0].Title)
	}
	st.drain(m)
	if len(st.asks) != 1 || !strings.Contains(strings.Join(st.asks[0].Lines, " "), `["zeta"]`) {
		t.Errorf("d pressed during the jump asked %+v; want the delete of [\"zeta\"]", st.asks)
	}
}

// TestBrowseHelpNamesEsc: Browse's help left esc out
// (it was listed only while a filter was in force): it is always there,
// and in the reader and the value search too.
func TestBrowseHelpNamesEsc(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	has := func(groups [][]key.Binding) bool {
		for _, g := range groups {
			for _, b := range g {
				if b.Enabled() && b.Help().Key == "esc" {
					return true
				}
			}
		}
		return false
	}
	if !has(h.M.FullHelp()) {
		t.Error("the tree's help has no esc")
	}
	goTo(h, `["accounts", "acme"]`)
	h.Keys("v")
	if !has(h.M.FullHelp()) {
		t.Error("the reader's help has no esc")
	}
	h.Keys("esc", "s")
	if !has(h.M.FullHelp()) {
		t.Error("the search's help has no esc")
	}
}
