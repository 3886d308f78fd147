package browse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestChangedSinceYouLooked: Browse remembers the row
// the user looked at; when the entry's stamp has moved since, the pane
// says so (stamp A → B) and = shows the change path by path; = again
// hides it. A change while the row stays selected counts too.
func TestChangedSinceYouLooked(t *testing.T) {
	h := newHarness(t, false, 120, 40)
	goTo(h, `["accounts", "acme"]`)
	before := h.M.entry.e.Versionstamp()
	h.RequireView(`key     ["accounts", "acme"]`)
	if strings.Contains(h.M.View(), "since you looked") {
		t.Fatal("a first look says the row changed")
	}
	h.Keys("j") // looked at acme, then left it
	now, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`),
		[]byte(`{"plan":"gold","seats":300,"owner":{"name":"Ada","email":"ada@acme.test"},"tags":["b2b","eu","sso"]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	h.Keys("k")
	h.RequireView("changed", "since you looked (stamp "+before+" →", now+") · = shows what changed")
	h.Keys("=")
	h.RequireView("CHANGED SINCE YOU LOOKED", ".plan", `"enterprise" → "gold"`, ".seats", "250 → 300")
	h.Keys("=")
	h.RequireView(`"plan": "gold"`, "since you looked")
	h.Keys("j", "k") // looked at the new value: nothing to say now
	if strings.Contains(h.M.View(), "since you looked") {
		t.Error("the row looked at since still says it changed")
	}

	// A change while the row stays selected.
	again, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`), []byte(`{"plan":"free"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	h.RequireView("since you looked (stamp "+now+" →", again+")")
	h.Refresh() // a re-read that finds nothing new keeps the note
	h.RequireView("since you looked (stamp "+now+" →", again+")")
}

// TestChangedSinceYouLookedGolden draws the note and the diff at both
// sizes.
func TestChangedSinceYouLookedGolden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			h := newHarness(t, false, sz.w, sz.h)
			goTo(h, `["accounts", "acme"]`)
			h.Keys("j")
			if _, err := h.S.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`),
				[]byte(`{"plan":"gold","seats":300,"owner":{"name":"Ada","email":"ada@acme.test"},"tags":["b2b","eu"]}`), nil); err != nil {
				t.Fatal(err)
			}
			h.Refresh()
			h.Keys("k")
			t.Run("note", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
			h.Keys("=")
			t.Run("diff", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
		})
	}
}

// TestSeenBounds: a value over seenValueCap keeps only its stamp (the
// diff says so); the memory keeps the last seenKeys keys.
func TestSeenBounds(t *testing.T) {
	s := newSeen()
	for i := range seenKeys + 44 {
		s.remember(store.Entry{Raw: []byte{byte(i), byte(i >> 8)}, Value: []byte(`1`)}, 1, false)
	}
	if len(s.rows) != seenKeys || len(s.order) != seenKeys {
		t.Errorf("%d rows remembered (%d in order), want %d", len(s.rows), len(s.order), seenKeys)
	}
	if _, ok := s.rows[string([]byte{0, 0})]; ok {
		t.Error("the least recently looked at key is still remembered")
	}

	h := newHarness(t, false, 120, 40)
	k := storetest.Key(t, `["accounts", "acme"]`)
	big := `{"blob":"` + strings.Repeat("x", seenValueCap) + `"}`
	if _, err := h.S.Set(viewtest.Ctx, k, []byte(big), nil); err != nil {
		t.Fatal(err)
	}
	goTo(h, codec.Format(k))
	h.Keys("j")
	if r := h.M.pane.seen.rows[string(h.M.entry.e.Raw)]; r.value != nil {
		t.Fatal("moved to the next row? the test expects acme to be left")
	}
	if _, err := h.S.Set(viewtest.Ctx, k, []byte(`{"blob":"small"}`), nil); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	h.Keys("k", "=")
	h.RequireView("CHANGED SINCE YOU LOOKED", "only its stamp was remembered")
}
