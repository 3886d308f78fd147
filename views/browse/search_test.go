package browse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views/browse/search"
	"kvdeck/views/viewtest"
)

// TestSearchValues: s on a prefix searches the live values under it by
// a jq expression or a substring, page by page (n goes on), enter shows a
// match in the tree, esc closes; a bad expression is refused by name.
func TestSearchValues(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	viewtest.Commit(t, s, func(a *store.Atomic) {
		for i := range 900 {
			plan := "free"
			if i%3 == 0 {
				plan = "gold"
			}
			a.Set(codec.Key{codec.String("users"), codec.Number(float64(i))}, []byte(fmt.Sprintf(`{"plan":%q,"n":%d}`, plan, i)))
		}
		a.Set(codec.Key{codec.String("other")}, []byte(`{"plan":"gold"}`))
	})
	h := viewtest.Start[Model, *Model](t, s, clock, 120, 30, New)
	h.Keys("j") // "users" (after "other")
	h.RequireView(`"users"`)
	h.Keys("s")
	h.TypeText(`.plan ==`)
	h.Keys("enter")
	h.RequireView("✗")
	h.ClearInput()
	h.TypeText(`.plan == "gold"`)
	h.Keys("enter")
	if got := len(h.M.search.Results()); got != search.PageSize {
		t.Fatalf("the first page holds %d matches, want %d", got, search.PageSize)
	}
	h.RequireView(`SEARCH VALUES under ["users"]`, "200 match(es)", "n searches on")
	h.Keys("n")
	if got := len(h.M.search.Results()); got != 300 {
		t.Errorf("all the gold users under [\"users\"]: %d, want 300 (not the one under [\"other\"])", got)
	}
	h.RequireView("done")
	h.Keys("j", "enter")
	if h.M.searching() {
		t.Fatal("enter left the search open")
	}
	h.RequireView("hex", `key     ["users", 3]`)

	h.Keys("h")      // the parent, ["users"]
	h.Keys("s", "s") // back to the results, then another query
	h.ClearInput()
	h.TypeText(`"n":44}`)
	h.Keys("enter")
	var keys []string
	for _, e := range h.M.search.Results() {
		keys = append(keys, codec.Format(e.Key))
	}
	if strings.Join(keys, " ") != `["users", 44]` {
		t.Errorf("substring \"n\":44} finds %v", keys)
	}
	// The database compared the text: the one match is all that was read.
	h.RequireView("1 match(es), found by the database")
	if h.M.search.Scanned() != 1 {
		t.Errorf("the substring search examined %d rows here, want only the match", h.M.search.Scanned())
	}
	h.Keys("esc")
	if h.M.search.Open() || strings.Contains(ansi.Strip(h.M.View()), "SEARCH VALUES") {
		t.Error("esc did not close the search")
	}
}

// TestSearchKeptAndWholeStore: The results vanished
// after enter showed a match, and the search was always scoped to the
// selected node. s comes back to the query and its results; tab searches
// every key.
func TestSearchKeptAndWholeStore(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	viewtest.Commit(t, s, func(a *store.Atomic) {
		for i := range 5 {
			a.Set(codec.Key{codec.String("users"), codec.Number(float64(i))}, []byte(`{"plan":"gold"}`))
		}
		a.Set(codec.Key{codec.String("other")}, []byte(`{"plan":"gold"}`))
	})
	h := viewtest.Start[Model, *Model](t, s, clock, 120, 30, New)
	h.Keys("j") // "users"
	h.Keys("s")
	h.TypeText(`gold`)
	h.Keys("enter")
	h.RequireView(`SEARCH VALUES under ["users"]`, "5 match(es)")
	h.Keys("j", "j", "enter")
	h.RequireView(`key     ["users", 2]`)
	h.Keys("s")
	h.RequireView(`SEARCH VALUES under ["users"]`, "5 match(es)")
	if h.M.search.Index() != 2 {
		t.Errorf("back in the results, the cursor is on match %d; want 2, the one shown", h.M.search.Index())
	}
	h.Keys("s")
	h.RequireView(`(tab: every key)`)
	h.Keys("tab")
	h.RequireView(`SEARCH VALUES under every key`)
	h.Keys("enter")
	h.RequireView("6 match(es)", `["other"]`)
}
