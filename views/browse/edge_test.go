package browse

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// seedBig writes ["big", "kNNNNN"] for n keys: the store's only level.
func seedBig(t *testing.T, n int) (*store.Store, *store.VirtualClock) {
	t.Helper()
	return seedLevel(t, codec.Key{codec.String("big")}, n)
}

// TestLargeLevelCountsAndLoadsOnDemand: The title
// counted the rows loaded ("KEYS 5445/5445") as if they were the level;
// with the cursor below a partly loaded level (G onto a later sibling),
// the level loaded page after page in the background, to its end.
func TestLargeLevelCountsAndLoadsOnDemand(t *testing.T) {
	s, clock := seedMany(t, 3000)
	h := startHarness(t, s, clock, 120, 30)
	goTo(h, `["users", "many", "k00001"]`)
	many := lookup(h.M.root, storetest.Key(t, `["users", "many"]`))
	h.RequireView("level 31/3000 loaded")
	h.Keys("G") // ["zeta"], below many's "more" line
	if got := many.loadedKids(); got != 31 {
		t.Errorf("with the cursor below it, many loaded %d children in the background; want the 31 of its first page", got)
	}
	h.Refresh()
	if got := many.loadedKids(); got != 31 {
		t.Errorf("a refresh loaded many on to %d children", got)
	}
}

// TestLargeLevelGAndPgdnPassTheEdge: G and pgdn stopped at the loaded
// edge of a level; G loads it to its end, and pgdn goes on by its page
// once the next page has arrived.
func TestLargeLevelGAndPgdnPassTheEdge(t *testing.T) {
	s, clock := seedBig(t, 2500)
	h := startHarness(t, s, clock, 120, 30)
	h.Keys("enter") // open ["big"]
	big := lookup(h.M.root, storetest.Key(t, `["big"]`))
	page := h.M.treeRows()
	for i := 1; i <= 3; i++ {
		h.Keys("pgdown")
		if want := fmt.Sprintf(`["big", "k%05d"]`, i*page-1); selectedKey(h.M) != want {
			t.Fatalf("pgdn %d selected %s; want %s (%d loaded)", i, selectedKey(h.M), want, big.loadedKids())
		}
	}
	h.Keys("G")
	if got, want := selectedKey(h.M), `["big", "k02499"]`; got != want || big.more != nil {
		t.Errorf("G selected %s with %d of 2500 loaded; want %s, the level's end", got, big.loadedKids(), want)
	}
	h.RequireView("2501/2501")
}

// TestBrowseLargeLevelGolden draws a level loaded in part (its title
// says how much of it is loaded, of how many the store counted) and the
// filter on it (which says it sees only the loaded children), at both
// sizes.
func TestBrowseLargeLevelGolden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			s, clock := seedMany(t, 3000)
			h := startHarness(t, s, clock, sz.w, sz.h)
			goTo(h, `["users", "many", "k00001"]`)
			t.Run("level", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
			h.Keys("/")
			h.TypeText("k0001")
			t.Run("filter", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
		})
	}
}
