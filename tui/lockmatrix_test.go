package tui

import (
	"reflect"
	"testing"
)

// TestLockMatrixCoversTabsAndOverlays: every tab of tabTable, the fleet
// mode of every tab that has one, and every global key (the overlays
// among them) is in the lock matrix (lockmatrix_large_test.go): run as a
// reading surface, or named as a key that reads nothing of its own. A
// new tab, fleet mode or overlay fails here until it is placed.
func TestLockMatrixCoversTabsAndOverlays(t *testing.T) {
	shown, fleets := map[tab]bool{}, map[tab]bool{}
	keys := map[string]bool{}
	for _, sf := range tuiMatrix() {
		switch {
		case sf.key != "":
			keys[sf.key] = true
		case sf.fleet:
			fleets[sf.tab] = true
		default:
			shown[sf.tab] = true
		}
	}
	var ts tabs
	for t2 := range numTabs {
		if !shown[t2] {
			t.Errorf("tab %s is not in the lock matrix: add a surface to tuiMatrix", t2)
		}
		if _, ok := ts.view(t2).(fleetTab); ok && !fleets[t2] {
			t.Errorf("tab %s has a fleet mode that is not in the lock matrix: add a surface with fleet set", t2)
		}
	}
	for k := range keysReadingNothing() {
		if keys[k] {
			t.Errorf("global key %s: both run as a surface and named as reading nothing", k)
		}
		keys[k] = true
	}
	gk := reflect.TypeOf(GlobalKeys{})
	for i := range gk.NumField() {
		name := gk.Field(i).Name
		if !keys[name] {
			t.Errorf("global key %s is not in the lock matrix: add its overlay to tuiMatrix (or name it in keysReadingNothing)", name)
		}
		delete(keys, name)
	}
	for k := range keys {
		t.Errorf("the lock matrix names %s, which is no global key", k)
	}
}

// tuiSurface is one tab or overlay the lock matrix leaves open and uses.
type tuiSurface struct {
	name string
	// tab is the tab shown; key, when not "", the global key (a field of
	// GlobalKeys) whose overlay is open over it instead.
	tab tab
	key string
	// fleet: the tab's fleet mode (W), every store of the saved store's
	// group (svc's, the file under the writer, is one).
	fleet bool
	// open are the keys that open the surface, once it first drew
	// (typed: a text after the keys); use the keys pressed again and
	// again while it runs (none: left open).
	open  []string
	typed string
	use   []string
	// shows are texts the screen shows once the surface is open; ready,
	// those it shows before the open keys are pressed (a key pressed
	// before Browse drew its first level has nothing to act on).
	shows []string
	ready []string
	// past: the store's past is a kvdeck record history of its first
	// state (Config.TimeMachine), for :at; enter ends what is typed.
	past bool
}

// tuiMatrix is every reading surface of the TUI: each tab, and each
// overlay that reads, left open and used.
func tuiMatrix() []tuiSurface {
	return []tuiSurface{
		{name: "Browse: left open", tab: tabBrowse, shows: []string{`"bulk"`, `"t2"`}},
		{name: "Browse: expand and page", tab: tabBrowse, ready: []string{`"t2"`}, open: []string{"enter"}, use: []string{"pgdown", "pgdown", "pgup"}, shows: []string{"2n", "3n"}},
		{name: "Browse at a past point (:at, then and now)", tab: tabBrowse, past: true, ready: []string{`"t2"`}, open: []string{":"}, typed: "at poll:1", shows: []string{"AS OF poll 1"}, use: []string{"j", "j", "k", "enter"}},
		{name: "Browse: search values", tab: tabBrowse, ready: []string{`"t2"`}, open: []string{"G", "s"}, typed: `"session":77`, use: []string{"enter"}, shows: []string{"77"}},
		{name: "Leases", tab: tabLeases, open: []string{"2"}, use: []string{"r", "j"}, shows: []string{"worker"}},
		{name: "Alarms", tab: tabAlarms, open: []string{"3"}, use: []string{"r", "l", "h"}, shows: []string{"billing"}},
		{name: "Queues", tab: tabQueues, open: []string{"4"}, use: []string{"r", "l", "h"}, shows: []string{"emails"}},
		{name: "Leases: fleet mode", tab: tabLeases, fleet: true, open: []string{"2", "W"}, use: []string{"r", "j", "k"}, shows: []string{"fleet: group live", "worker"}},
		{name: "Alarms: fleet mode", tab: tabAlarms, fleet: true, open: []string{"3", "W"}, use: []string{"r", "j", "k"}, shows: []string{"fleet: group live", "billing"}},
		{name: "Queues: fleet mode", tab: tabQueues, fleet: true, open: []string{"4", "W"}, use: []string{"r", "j", "k"}, shows: []string{"fleet: group live", "emails"}},
		{name: "Compose", tab: tabCompose, open: []string{"5"}, use: []string{"r"}},
		{name: "Race", tab: tabRace, open: []string{"6"}, use: []string{"r"}},
		{name: "Sweep: census and dry run", tab: tabSweep, open: []string{"7"}, use: []string{"enter", "r"}, shows: []string{"50011"}},
		{name: "Activity", tab: tabActivity, open: []string{"8"}, use: []string{"j", "k"}},
		{name: "Fleet (F)", key: "Fleet", open: []string{"F"}, shows: []string{"FLEET", "✓"}},
		{name: "finder (ctrl+p)", key: "Find", open: []string{"ctrl+p"}, typed: "dwk", use: []string{"down", "up"}, shows: []string{"dwk_lease"}},
		{name: "undo list (z)", key: "Undo", open: []string{"z"}, use: []string{"j", "k"}, shows: []string{`"note"`}},
		{name: "saved stores (O)", key: "Stores", open: []string{"O"}, use: []string{"j", "k"}, shows: []string{"svc"}},
	}
}

// keysReadingNothing are the global keys that read nothing of their own
// (what they show is a tab's, or no store's), each with why.
func keysReadingNothing() map[string]string {
	return map[string]string{
		"Tab": "shows a tab (its reads are the tab's)", "NextTab": "shows a tab", "PrevTab": "shows a tab",
		"Help": "the key help", "Command": "the command line (its commands are other keys' reads)",
		"Pause": "stops the refresh", "Back": "the back stack: a tab's key", "Forward": "the back stack",
		"Quit": "quits", "ForceQuit": "quits",
	}
}
