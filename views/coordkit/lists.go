package coordkit

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Lists are the two lists of Alarms and Queues: groups on the left (alarm
// classes, queues) and the selected group's items on the right (alarms,
// messages), each keeping its selection by id across reloads.
type Lists struct {
	Groups, Items widgets.ListCursor
	OnItems       bool // the item list has the keys (else the groups)
	quiet         bool // the next Follow comes after kvdeck's own action
}

// Quiet says that the next reload follows an action of kvdeck's own
// (delete, fire, purge, a consumer's decisions): what it removed is not
// reported as gone.
func (l *Lists) Quiet() { l.quiet = true }

// ListIDs returns a list's ids and how many rows it shows at a time. The
// item list's ids are those of the selected group: Lists reads them after
// the group cursor moved.
type ListIDs func() (ids []string, rows int)

// Nav moves the list that has the keys for a navigation key and reports
// whether msg was one. A move first calls leave (the view drops what
// belonged to the old selection, e.g. Alarms' fire report, before the
// item ids are read again); when the group moved, the item list starts
// over on the new group's items.
func (l *Lists) Nav(msg tea.KeyMsg, k widgets.NavKeys, groups, items ListIDs, leave func()) bool {
	if l.OnItems {
		ids, rows := items()
		if !l.Items.Handle(msg, k, ids, rows) {
			return false
		}
		leave()
		return true
	}
	ids, rows := groups()
	if !l.Groups.Handle(msg, k, ids, rows) {
		return false
	}
	leave()
	l.Items = widgets.ListCursor{}
	ids, rows = items()
	l.Items.Follow(ids, rows)
	return true
}

// Click selects, for a click on a list row, the group (row lines below
// the first group shown) or the item, and gives that list the keys; as
// with Nav, leave runs first and a new group starts its items over.
func (l *Lists) Click(onItems bool, row int, groups, items ListIDs, leave func()) bool {
	if onItems {
		ids, rows := items()
		if !l.Items.Click(row, ids, rows) {
			return false
		}
		l.OnItems = true
		leave()
		return true
	}
	ids, rows := groups()
	before := l.Groups.ID
	if !l.Groups.Click(row, ids, rows) {
		return false
	}
	l.OnItems = false
	leave()
	if l.Groups.ID != before {
		l.Items = widgets.ListCursor{}
		ids, rows = items()
		l.Items.Follow(ids, rows)
	}
	return true
}

// Side gives the keys to the groups or to the items (only when the
// selected group has some) for the keys that switch lists, and reports
// whether msg was one.
func (l *Lists) Side(msg tea.KeyMsg, toGroups, toItems key.Binding, hasItems bool) bool {
	switch {
	case key.Matches(msg, toGroups):
		l.OnItems = false
	case key.Matches(msg, toItems):
		l.OnItems = hasItems
	default:
		return false
	}
	return true
}

// Keep puts both selections back on their ids after the lists changed
// by the view's own doing (a filter), reporting nothing.
func (l *Lists) Keep(groups, items ListIDs) {
	ids, rows := groups()
	l.Groups.Follow(ids, rows)
	ids, rows = items()
	l.Items.Follow(ids, rows)
}

// Filter hands msg to the tab's filter f (typed into while it has the
// keys; else / starts it and esc clears it) and keeps both selections
// when the filter changed; ok says f took the key.
func (l *Lists) Filter(f *widgets.Filter, k *widgets.FilterKeys, msg tea.KeyMsg, groups, items ListIDs) (ok bool, cmd tea.Cmd) {
	changed := false
	if f.Typing() {
		ok, changed = true, f.Type(msg, k)
	} else {
		ok, changed, cmd = f.Start(msg, k)
	}
	if changed {
		l.Keep(groups, items)
	}
	return ok, cmd
}

// Shown are the groups a filter lets through: all of them without a
// filter, else those with at least one item shown (shown counts them).
func Shown[G any](f widgets.Filter, groups []G, shown func(G) int) []G {
	if f.Text() == "" {
		return groups
	}
	var out []G
	for _, g := range groups {
		if shown(g) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// Follow puts both selections back on their ids in freshly loaded lists
// and returns the ids that disappeared (a group, else an item of a group
// still there), so the view can say so instead of moving to a neighbour
// without a word.
func (l *Lists) Follow(groups, items ListIDs) (goneGroup, goneItem string) {
	ids, rows := groups()
	goneGroup = l.Groups.Follow(ids, rows)
	ids, rows = items()
	goneItem = l.Items.Follow(ids, rows)
	if goneGroup != "" {
		goneItem = ""
	}
	if l.quiet {
		l.quiet = false
		return "", ""
	}
	return goneGroup, goneItem
}

// Gone words a row that went away for the flash after a reload: what kind
// of row it is ("class", "message") and why rows of that kind go.
type Gone struct{ What, Why string }

// Say is the flash that the row id is gone and the cursor moved to the
// row in its place; nil when id is "" (nothing went).
func (g Gone) Say(id string) tea.Cmd {
	if id == "" {
		return nil
	}
	return views.Flash(views.FlashInfo, "%s %s is gone (%s); the cursor moved to the %s in its place", g.What, id, g.Why, g.What)
}

// FollowSaying is Follow, and the flash that says what went: the group,
// else an item of it (nil when nothing did).
func (l *Lists) FollowSaying(groups, items ListIDs, group, item Gone) tea.Cmd {
	goneGroup, goneItem := l.Follow(groups, items)
	if goneGroup != "" {
		return group.Say(goneGroup)
	}
	return item.Say(goneItem)
}

// ShowInBrowse is o on an item list: the selected item's row k in Browse
// when one is selected (ok), else how to select one, an item being what
// (e.g. "an alarm").
func ShowInBrowse(k codec.Key, ok bool, what string) tea.Cmd {
	if !ok {
		return views.Flash(views.FlashInfo, "select %s (→): o shows its row in Browse", what)
	}
	return views.Goto(k)
}
