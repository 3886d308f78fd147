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

// ListIDs returns a list's ids and how many rows it shows at a time.
type ListIDs func() (ids []string, rows int)

// Sides are what Lists reads of a two-list tab at each move: the ids of
// both lists, read from the model as it is when called (the item ids
// are those of the selected group, read after the group cursor moved),
// and Leave, which a move calls first so that the view drops what
// belonged to the old selection (e.g. Alarms' fire report) before the
// item ids are read again. A tab builds its Sides over a pointer to the
// model at hand: the model is a value, copied at every update.
type Sides struct {
	Groups, Items ListIDs
	Leave         func()
}

// Nav moves the list that has the keys for a navigation key and reports
// whether msg was one. A move first calls s.Leave; when the group moved,
// the item list starts over on the new group's items.
func (l *Lists) Nav(msg tea.KeyMsg, k widgets.NavKeys, s Sides) bool {
	if l.OnItems {
		ids, rows := s.Items()
		if !l.Items.Handle(msg, k, ids, rows) {
			return false
		}
		s.Leave()
		return true
	}
	ids, rows := s.Groups()
	if !l.Groups.Handle(msg, k, ids, rows) {
		return false
	}
	s.Leave()
	l.Items = widgets.ListCursor{}
	ids, rows = s.Items()
	l.Items.Follow(ids, rows)
	return true
}

// Click selects, for a click on a list row, the group (row lines below
// the first group shown) or the item, and gives that list the keys; as
// with Nav, s.Leave runs first and a new group starts its items over.
func (l *Lists) Click(onItems bool, row int, s Sides) bool {
	if onItems {
		ids, rows := s.Items()
		if !l.Items.Click(row, ids, rows) {
			return false
		}
		l.OnItems = true
		s.Leave()
		return true
	}
	ids, rows := s.Groups()
	before := l.Groups.ID
	if !l.Groups.Click(row, ids, rows) {
		return false
	}
	l.OnItems = false
	s.Leave()
	if l.Groups.ID != before {
		l.Items = widgets.ListCursor{}
		ids, rows = s.Items()
		l.Items.Follow(ids, rows)
	}
	return true
}

// ClickAt is Click for a left click at x, y on a two-list tab: on the
// groups' pane (x left of split), whose first row stands under the
// frame, GroupsHead (its filter's line while f shows one) and header
// more lines; else on the items, whose first row is at line itemsTop.
func (l *Lists) ClickAt(x, y, split, header, itemsTop int, f widgets.Filter, s Sides) bool {
	if x < split {
		top := 2 + header // the frame and the title
		if f.View() != "" {
			top++
		}
		return l.Click(false, y-top, s)
	}
	return l.Click(true, y-itemsTop, s)
}

// Side gives the keys to the groups or to the items (only when the
// selected group has some) for the keys that switch lists, and reports
// whether msg was one.
func (l *Lists) Side(msg tea.KeyMsg, toGroups, toItems key.Binding, s Sides) bool {
	switch {
	case key.Matches(msg, toGroups):
		l.OnItems = false
	case key.Matches(msg, toItems):
		ids, _ := s.Items()
		l.OnItems = len(ids) > 0
	default:
		return false
	}
	return true
}

// Keep puts both selections back on their ids after the lists changed
// by the view's own doing (a filter), reporting nothing.
func (l *Lists) Keep(s Sides) {
	ids, rows := s.Groups()
	l.Groups.Follow(ids, rows)
	ids, rows = s.Items()
	l.Items.Follow(ids, rows)
}

// Filter hands msg to the tab's filter f (typed into while it has the
// keys; else / starts it and esc clears it) and keeps both selections
// when the filter changed; ok says f took the key.
func (l *Lists) Filter(f *widgets.Filter, k *widgets.FilterKeys, msg tea.KeyMsg, s Sides) (ok bool, cmd tea.Cmd) {
	changed := false
	if f.Typing() {
		ok, changed = true, f.Type(msg, k)
	} else {
		ok, changed, cmd = f.Start(msg, k)
	}
	if changed {
		l.Keep(s)
	}
	return ok, cmd
}

// ListActions are the moves of a two-list tab's table: the navigation
// keys (column 0) and toGroups and toItems, which switch lists (column
// 1, toItems at short in the one-line help), over the Lists and Sides
// that lists returns for the model at hand (read after each move).
func ListActions[M any](k *Keys, toGroups, toItems *key.Binding, short int, lists func(*M) (*Lists, Sides)) views.Actions[M] {
	nav := func(m *M, msg tea.KeyMsg) tea.Cmd {
		l, s := lists(m)
		l.Nav(msg, k.NavKeys, s)
		return nil
	}
	side := func(m *M, msg tea.KeyMsg) tea.Cmd {
		l, s := lists(m)
		l.Side(msg, *toGroups, *toItems, s)
		return nil
	}
	return append(views.Together(0, nav, k.NavKeys.All()...), views.Actions[M]{
		{Binding: toGroups, Do: side, Col: 1},
		{Binding: toItems, Do: side, Col: 1, Short: short},
	}...)
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
func (l *Lists) Follow(s Sides) (goneGroup, goneItem string) {
	ids, rows := s.Groups()
	goneGroup = l.Groups.Follow(ids, rows)
	ids, rows = s.Items()
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
func (l *Lists) FollowSaying(s Sides, group, item Gone) tea.Cmd {
	goneGroup, goneItem := l.Follow(s)
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
