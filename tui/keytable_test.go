package tui

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"kvdeck/views/activity"
	"kvdeck/views/alarms"
	"kvdeck/views/browse"
	"kvdeck/views/compose"
	"kvdeck/views/leases"
	"kvdeck/views/queues"
	"kvdeck/views/race"
	"kvdeck/views/sweep"
	"kvdeck/views/widgets"
)

// TestKeyTableInREADME: the README's key table is keyTableMarkdown, word
// for word (regenerate it from the test's output when the table changes).
func TestKeyTableInREADME(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- keys -->\n")
	got, _, ok2 := strings.Cut(rest, "<!-- /keys -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no <!-- keys --> ... <!-- /keys --> section")
	}
	if want := keyTableMarkdown(); got != want {
		t.Fatalf("README.md's key table differs from tui/keytable.go; put this between the markers:\n%s", want)
	}
}

// bindingKeys lists the help keys of every key.Binding in a key map struct
// (nested structs included).
func bindingKeys(v any) []string {
	var out []string
	walkBindings(v, func(b key.Binding) { out = append(out, b.Help().Key) })
	return out
}

// TestKeyTableMatchesHelp: every key the help of a tab lists (on a
// writable store, nothing open) is in that tab's column of the key table,
// and every key of the column is one of the tab's key maps: the table,
// the README and the help say the same.
func TestKeyTableMatchesHelp(t *testing.T) {
	// The tabs' key maps, the value reader's and the inputs' too (help
	// names the filter's keys).
	maps := tabKeyMaps()
	maps[tabBrowse] = []any{browse.DefaultKeys(), widgets.DefaultInputKeys()}
	maps[tabActivity] = append(maps[tabActivity], widgets.DefaultInputKeys())
	a := reference(t, false, 120, 40)
	a.keys("enter")
	a.waitFor(`"acme"`)
	m := a.final()
	for tb := range numTabs {
		column := tableKeys(tb)
		var known []string
		for _, km := range append(maps[tb], DefaultGlobalKeys()) {
			known = append(known, bindingKeys(km)...)
		}
		for _, k := range column {
			if !slices.Contains(known, k) {
				t.Errorf("%s: the key table lists %q, which no key map of the tab has", tb, k)
			}
		}
		for _, col := range m.tabs.view(tb).FullHelp() {
			for _, b := range col {
				if b.Enabled() && !slices.Contains(column, b.Help().Key) {
					t.Errorf("%s: the help lists %q (%s), the key table does not", tb, b.Help().Key, b.Help().Desc)
				}
			}
		}
	}
}

// TestKeyTableStoresKeyIsFree: the store picker's key (O) means nothing
// in any tab's key maps (S, which issue 21 suggested, is Leases' sort).
func TestKeyTableStoresKeyIsFree(t *testing.T) {
	global := DefaultGlobalKeys().Stores.Keys()
	var walk func(r reflect.Value, where string)
	walk = func(r reflect.Value, where string) {
		if b, ok := r.Interface().(key.Binding); ok {
			for _, k := range b.Keys() {
				if slices.Contains(global, k) {
					t.Errorf("%s binds %q, the store picker's key", where, k)
				}
			}
			return
		}
		if r.Kind() == reflect.Struct {
			for i := range r.NumField() {
				if r.Type().Field(i).IsExported() {
					walk(r.Field(i), where+"."+r.Type().Field(i).Name)
				}
			}
		}
	}
	for name, km := range map[string]any{"browse": browse.DefaultKeys(), "leases": leases.DefaultKeys(), "alarms": alarms.DefaultKeys(),
		"queues": queues.DefaultKeys(), "compose": compose.DefaultKeys(), "race": race.DefaultKeys(), "sweep": sweep.DefaultKeys(),
		"activity": activity.DefaultKeys(), "input": widgets.DefaultInputKeys(), "confirm": widgets.DefaultConfirmKeys(), "undo": defaultUndoKeys()} {
		walk(reflect.ValueOf(km), name)
	}
	g := DefaultGlobalKeys()
	g.Stores = key.Binding{}
	walk(reflect.ValueOf(g), "global")
}

// tabKeyMaps are the key maps whose keys a tab answers to while nothing
// of its own is open (and, for Queues, while a take's decision list is):
// the ones the one-meaning rule covers. Overlays with their own short key
// sets in their own footer (the value reader, search results, forms,
// dialogs, the pickers) are not in it.
func tabKeyMaps() map[tab][]any {
	bk := browse.DefaultKeys()
	bk.Reader = browse.ReaderKeys{} // an overlay: space pages, q and v close it
	return map[tab][]any{
		tabBrowse:   {bk},
		tabLeases:   {leases.DefaultKeys()},
		tabAlarms:   {alarms.DefaultKeys()},
		tabQueues:   {queues.DefaultKeys(), queues.DefaultPollKeys()},
		tabCompose:  {compose.DefaultKeys()},
		tabRace:     {race.DefaultKeys()},
		tabSweep:    {sweep.DefaultKeys()},
		tabActivity: {activity.DefaultKeys()},
	}
}

// walkBindings calls fn for every key.Binding of a key map struct.
func walkBindings(v any, fn func(key.Binding)) {
	var walk func(r reflect.Value)
	walk = func(r reflect.Value) {
		if b, ok := r.Interface().(key.Binding); ok {
			fn(b)
			return
		}
		if r.Kind() == reflect.Struct {
			for i := range r.NumField() {
				if r.Type().Field(i).IsExported() {
					walk(r.Field(i))
				}
			}
		}
	}
	walk(reflect.ValueOf(v))
}

// keyMeaning is what the key table says a binding of tab tb (named by its
// help key) does: the rows that list it. A row of the tab's own is that
// tab's alone; the direction keys h j k l mean their direction whether
// they move, go in or back out.
func keyMeaning(tb tab, helpKey, k string) string {
	if strings.Contains("hjkl", k) {
		return "direction"
	}
	var rows []string
	for _, r := range keyTable {
		if strings.Contains(strings.ReplaceAll(r.cells[tb], `\|`, "|"), "`"+helpKey+"`") {
			a := r.action
			if a == "the tab's own" {
				a += " (" + tb.String() + ")"
			}
			rows = append(rows, a)
		}
	}
	if len(rows) == 0 {
		return "unlisted (" + tb.String() + " " + helpKey + ")"
	}
	return strings.Join(rows, " + ")
}

// TestKeyTableOneMeaningPerKey: every one-character
// key any tab's key maps bind (a hidden alias included) means the same on
// every tab: the same key table row. A global key is bound by no tab, and
// space is kept for marking rows (a key table row "mark…") on every tab.
func TestKeyTableOneMeaningPerKey(t *testing.T) {
	type use struct{ tab, meaning, desc string }
	uses := map[string][]use{}
	global := map[string]string{}
	walkBindings(DefaultGlobalKeys(), func(b key.Binding) {
		for _, k := range b.Keys() {
			global[k] = b.Help().Desc
		}
	})
	for tb, maps := range tabKeyMaps() {
		for _, km := range maps {
			walkBindings(km, func(b key.Binding) {
				for _, k := range b.Keys() {
					if len([]rune(k)) != 1 {
						continue // enter, esc, ctrl+s, alt+up: not letters
					}
					if g, ok := global[k]; ok {
						t.Errorf("%s binds %q (%s), the global key for %q", tb, k, b.Help().Desc, g)
					}
					m := keyMeaning(tb, b.Help().Key, k)
					if k == " " && !strings.HasPrefix(m, "mark") {
						t.Errorf("%s binds space to %q (%s): space is kept for marking rows", tb, m, b.Help().Desc)
					}
					uses[k] = append(uses[k], use{tb.String(), m, b.Help().Desc})
				}
			})
		}
	}
	for k, us := range uses {
		for _, u := range us[1:] {
			if u.meaning != us[0].meaning {
				t.Errorf("%q means %q on %s (%s) but %q on %s (%s)", k, us[0].meaning, us[0].tab, us[0].desc, u.meaning, u.tab, u.desc)
			}
		}
	}
}
