package tui

import (
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestActivityFlow: 8 shows the Activity tab (the last commits as
// "earlier"); a write by another connection shows on the live refresh with
// its old and new value, a delete shows as deleted; enter on it shows the
// key in Browse.
func TestActivityFlow(t *testing.T) {
	clock := viewtest.FixedClock()
	path := storetest.CopyReference(t)
	s := viewtest.Open(t, path, clock, false)
	other := viewtest.Open(t, path, clock, false)
	ctx := storetest.Ctx(t)
	a := start(t, s, clock, 120, 40, 150*time.Millisecond)
	a.keys("8")
	a.waitFor("[8 Activity]", "ACTIVITY", "earlier")

	k := codec.Key{codec.String("accounts"), codec.String("acme")}
	if _, err := other.Set(ctx, k, []byte(`{"plan":"gold"}`), nil); err != nil {
		t.Fatal(err)
	}
	a.waitFor(`{"plan":"gold"}`)
	gone := codec.Key{codec.String("accounts"), codec.String("globex")}
	if _, err := other.Set(ctx, gone, []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	a.waitFor(`["accounts", "globex"]`)
	if _, err := other.Commit(ctx, nil, []store.Mutation{{Type: store.MutationDelete, Key: gone}}); err != nil {
		t.Fatal(err)
	}
	a.waitFor("deleted")
	a.keys("j", "enter") // the set of globex, under its deletion
	a.waitFor("[1 Browse]", "hex     02616363")
	m := a.final()
	if m.tab != tabBrowse {
		t.Fatalf("enter ended on %v", m.tab)
	}
	if got := strings.Join(m.tabs.activity.Events(), ","); !strings.Contains(got, `set ["accounts", "acme"],set ["accounts", "globex"],deleted ["accounts", "globex"]`) {
		t.Errorf("the feed: %s", got)
	}
}
