package coordkit

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// TestListsNavOrder: moving the group list calls leave before the item ids
// are read (Alarms drops its fire report first), reads them for the new
// group, and starts the item list over; moving the items leaves the group.
func TestListsNavOrder(t *testing.T) {
	var l Lists
	items := map[string][]string{"a": {"a1", "a2"}, "b": {"b1"}}
	groups := func() ([]string, int) { return []string{"a", "b"}, 10 }
	left := false
	var readAfterLeave []bool
	itemIDs := func() ([]string, int) {
		readAfterLeave = append(readAfterLeave, left)
		return items[l.Groups.ID], 10
	}
	sides := Sides{Groups: groups, Items: itemIDs, Leave: func() { left = true }}
	l.Follow(sides)
	l.Items.Set(1, items["a"], 10)
	down := tea.KeyMsg{Type: tea.KeyDown}
	readAfterLeave = nil
	if !l.Nav(down, widgets.DefaultNavKeys(), sides) {
		t.Fatal("down was not a navigation key")
	}
	if l.Groups.ID != "b" || l.Items.ID != "b1" || l.Items.Cur != 0 {
		t.Fatalf("after down: group %q item %q at %d", l.Groups.ID, l.Items.ID, l.Items.Cur)
	}
	if len(readAfterLeave) != 1 || !readAfterLeave[0] {
		t.Fatalf("item ids read %v (true: after leave)", readAfterLeave)
	}
	l.OnItems, left = true, false
	if l.Nav(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")}, widgets.DefaultNavKeys(), sides) || left {
		t.Fatal("x moved a list")
	}
	if g, i := l.Follow(Sides{Groups: func() ([]string, int) { return []string{"a"}, 10 }, Items: itemIDs}); g != "b" || i != "" {
		t.Fatalf("gone %q %q, want the group b only", g, i)
	}
	l.Quiet()
	if g, i := l.Follow(Sides{Groups: groups, Items: func() ([]string, int) { return nil, 10 }}); g != "" || i != "" {
		t.Fatalf("quiet follow reported %q %q", g, i)
	}
}

// TestFollowSaying: the flash names the group that went, else the item,
// in the one wording of the coordination tabs; nothing when none went.
func TestFollowSaying(t *testing.T) {
	var l Lists
	groups := func() ([]string, int) { return []string{"a", "b"}, 10 }
	items := func() ([]string, int) { return []string{"a1"}, 10 }
	class, alarm := Gone{What: "class", Why: "fired"}, Gone{What: "alarm", Why: "deleted"}
	sides := Sides{Groups: groups, Items: items}
	if cmd := l.FollowSaying(sides, class, alarm); cmd != nil {
		t.Fatalf("first load: %v", cmd())
	}
	l.Groups.ID, l.Items.ID = "b", "b9"
	cmd := l.FollowSaying(Sides{Groups: func() ([]string, int) { return []string{"a"}, 10 }, Items: items}, class, alarm)
	if got := cmd().(views.FlashMsg).Text; got != "class b is gone (fired); the cursor moved to the class in its place" {
		t.Errorf("group gone: %q", got)
	}
	l.Items.ID = "a9"
	cmd = l.FollowSaying(sides, class, alarm)
	if got := cmd().(views.FlashMsg).Text; got != "alarm a9 is gone (deleted); the cursor moved to the alarm in its place" {
		t.Errorf("item gone: %q", got)
	}
}

// TestListsClickAt: left of the split a click picks a group, its first
// row under the frame, the title and the header, one line lower while
// the filter's line shows; right of it an item, from itemsTop; a click
// above the first row picks nothing.
func TestListsClickAt(t *testing.T) {
	groups := func() ([]string, int) { return []string{"a", "b", "c"}, 10 }
	items := func() ([]string, int) { return []string{"x1", "x2"}, 10 }
	s := Sides{Groups: groups, Items: items, Leave: func() {}}
	f := widgets.NewFilter("filter", themes.NewStyles(themes.Dark()))
	fk := widgets.DefaultFilterKeys()
	for _, c := range []struct {
		name           string
		filter         string
		x, y           int
		want, wantSide string // the selected group or item, and the list with the keys
		ok             bool
	}{
		{name: "first group", x: 3, y: 3, want: "a", wantSide: "groups", ok: true},
		{name: "third group", x: 3, y: 5, want: "c", wantSide: "groups", ok: true},
		{name: "header", x: 3, y: 2, wantSide: "groups"},
		{name: "filter line shown", filter: "b", x: 3, y: 4, want: "a", wantSide: "groups", ok: true},
		{name: "second item", x: 20, y: 8, want: "x2", wantSide: "items", ok: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var l Lists
			l.Follow(s)
			f.Set(c.filter, &fk)
			ok := l.ClickAt(c.x, c.y, 10, 1, 7, f, s)
			got, side := l.Groups.ID, "groups"
			if l.OnItems {
				got, side = l.Items.ID, "items"
			}
			if ok != c.ok || side != c.wantSide || ok && got != c.want {
				t.Fatalf("click at %d,%d: ok %v, %s %q; want ok %v, %s %q", c.x, c.y, ok, side, got, c.ok, c.wantSide, c.want)
			}
		})
	}
}
