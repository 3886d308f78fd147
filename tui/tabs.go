package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/activity"
	"kvdeck/views/alarms"
	"kvdeck/views/browse"
	"kvdeck/views/compose"
	"kvdeck/views/leases"
	"kvdeck/views/queues"
	"kvdeck/views/race"
	"kvdeck/views/sweep"
)

// tab is one of the eight tabs, in tab-bar order: an index into tabTable.
type tab int

const (
	tabBrowse tab = iota
	tabLeases
	tabAlarms
	tabQueues
	tabCompose
	tabRace
	tabSweep
	tabActivity
	numTabs
)

// tabTable is every tab in one place (as k9s registers its views in
// internal/view/registrar.go): its title, how the root reaches its view,
// the key that asks for another tab, the coordination rows it shows and
// its help notes. Adding a tab is one entry here, a constant above and a
// field of tabs; TestTabTable walks it. An index outside the table
// panics: no tab falls back to Browse silently.
var tabTable = [numTabs]tabDef{
	tabBrowse: define("Browse", func(ts *tabs) *browse.Model { return &ts.browse },
		browse.Model.Init, browse.Model.Update, browse.Model.Refresh).
		jumpsWith(browse.DefaultKeys().Record).
		notes("e and d are CAS-guarded: they act only if the key still has the stamp shown, so a change by another writer is never overwritten; a conflict shows theirs against yours (save over their stamp asks, checked)."),
	tabLeases: define("Leases", func(ts *tabs) *leases.Model { return &ts.leases },
		leases.Model.Init, leases.Model.Update, leases.Model.Refresh).
		jumpsWith(leases.DefaultKeys().Browse).
		shows(func(ts *tabs, k codec.Key) { ts.leases.Select(k) }, "dwk_lease", "dwk_cron").
		notes("B breaks a lease only if it still has the stamp shown (a lease taken again meanwhile is left alone); d releases only a lease kvdeck acquired; r reloads."),
	tabAlarms: define("Alarms", func(ts *tabs) *alarms.Model { return &ts.alarms },
		alarms.Model.Init, alarms.Model.Update, alarms.Model.Refresh).
		jumpsWith(alarms.DefaultKeys().Browse).
		shows(func(ts *tabs, k codec.Key) { ts.alarms.Select(k) }, "dwk_alarm_due", "dwk_alarm_by_id").
		notes("f fires the due alarms as a poller would, without a handler: they are consumed. e (reschedule) and d (delete) change the by-id record and the due entry together."),
	tabQueues: define("Queues", func(ts *tabs) *queues.Model { return &ts.queues },
		queues.Model.Init, queues.Model.Update, queues.Model.Refresh).
		jumpsWith(queues.DefaultKeys().Browse).
		shows(func(ts *tabs, k codec.Key) { ts.queues.Select(k) }, "dwk_queue_due").
		notes("t takes a batch as a consumer: its messages are out of the store until you decide each one: a acks, e retries after a delay, b backs off (nack), u gives them all back, enter applies. d purges every message of the queue (it asks first)."),
	tabCompose: define("Compose", func(ts *tabs) *compose.Model { return &ts.compose },
		compose.Model.Init, compose.Model.Update, compose.Model.Refresh).
		notes("ctrl+s commits every staged operation in one transaction: all checks hold and every mutation applies, or nothing does. A key field takes [\"users\", 42]: a list of parts."),
	tabRace: define("Race", func(ts *tabs) *race.Model { return &ts.race },
		race.Model.Init, race.Model.Update, race.Model.Refresh).
		notes("The race writes the counter " + `["kvdeck", "race"]` + " of this store; live mode runs workers on connections of their own."),
	tabSweep: define("Sweep", func(ts *tabs) *sweep.Model { return &ts.sweep },
		sweep.Model.Init, sweep.Model.Update, sweep.Model.Refresh).
		notes("d deletes rows still expired when their batch runs (a row set again meanwhile survives); enter only counts (a dry run)."),
	tabActivity: define("Activity", func(ts *tabs) *activity.Model { return &ts.activity },
		activity.Model.Init, activity.Model.Update, activity.Model.Refresh).
		jumpsWith(activity.DefaultKeys().Browse).
		notes("M sets a since-mark, a point in the feed (space is kept for marking rows). The feed reads the rows stamped since its last read, only when the store's seq or row count moved, at most a few pages a refresh. Deletions and expiries show for rows kvdeck had read: a delete issues no stamp."),
}

// tabDef is one entry of tabTable.
type tabDef struct {
	title   string
	view    func(*tabs) tabView          // the view, for sizing, focus and the read-only questions
	init    func(*tabs) tea.Cmd          // its Init
	update  func(*tabs, tea.Msg) tea.Cmd // hands it a message
	refresh func(*tabs) tea.Cmd          // asks it to re-read what it shows
	// jump is the key that asks the root for another tab (jump.go); a
	// zero binding when the tab has none.
	jump key.Binding
	// records are the first parts (dwk_*) of the keys whose rows the tab
	// shows, and selectRecord selects such a row (views.ShowRecordMsg).
	records      []string
	selectRecord func(*tabs, codec.Key)
	// help are the tab's help notes: what its writes guard against and
	// what they leave, in words true of that tab.
	help []string
}

// tabModel is what define needs of a tab's model: a pointer to it is a
// tabView.
type tabModel[M any] interface {
	*M
	tabView
}

// define is the entry of a tab whose model field returns; its Init,
// Update and Refresh as method expressions (they return the concrete
// model, bubbles-style, so each tab needs its own closure).
func define[M any, P tabModel[M]](title string, field func(*tabs) P, init func(M) tea.Cmd,
	update func(M, tea.Msg) (M, tea.Cmd), refresh func(M) (M, tea.Cmd)) tabDef {
	return tabDef{
		title: title,
		view:  func(ts *tabs) tabView { return field(ts) },
		init:  func(ts *tabs) tea.Cmd { return init(*field(ts)) },
		update: func(ts *tabs, msg tea.Msg) tea.Cmd {
			p := field(ts)
			var cmd tea.Cmd
			*p, cmd = update(*p, msg)
			return cmd
		},
		refresh: func(ts *tabs) tea.Cmd {
			p := field(ts)
			var cmd tea.Cmd
			*p, cmd = refresh(*p)
			return cmd
		},
	}
}

// jumpsWith sets the tab's jump key.
func (d tabDef) jumpsWith(b key.Binding) tabDef { d.jump = b; return d }

// notes sets the tab's help notes.
func (d tabDef) notes(lines ...string) tabDef { d.help = lines; return d }

// shows says which coordination rows the tab shows (by their key's
// first part), and how it selects one.
func (d tabDef) shows(sel func(*tabs, codec.Key), prefixes ...string) tabDef {
	d.selectRecord, d.records = sel, prefixes
	return d
}

// String is the tab's title.
func (t tab) String() string { return tabTable[t].title }

// tabView is what the root asks of every tab's view besides Update (which
// returns the concrete type, so it goes through the table's update).
type tabView interface {
	View() string
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
	Busy() bool
	Capturing() bool
	SetSize(w, h int)
	Focus()
	Blur()
}

// tabs holds every tab's view as a named field (tabTable reaches them).
type tabs struct {
	// started marks the views whose Init ran: a tab loads when it is
	// first shown, so the first frame costs only the visible tab's reads
	// (each tab's load is a request or more to a remote server).
	started  [numTabs]bool
	browse   browse.Model
	leases   leases.Model
	alarms   alarms.Model
	queues   queues.Model
	compose  compose.Model
	race     race.Model
	sweep    sweep.Model
	activity activity.Model
}

// newTabs builds the views.
func newTabs(deps views.Deps, st themes.Styles) tabs {
	return tabs{
		browse:   browse.New(deps, st),
		leases:   leases.New(deps, st),
		alarms:   alarms.New(deps, st),
		queues:   queues.New(deps, st),
		compose:  compose.New(deps, st),
		race:     race.New(deps, st),
		sweep:    sweep.New(deps, st),
		activity: activity.New(deps, st),
	}
}

// view returns tab t's view for the read-only questions and sizing.
func (ts *tabs) view(t tab) tabView { return tabTable[t].view(ts) }

// init starts the visible tab's view; the others start when first shown
// (show).
func (ts *tabs) init(visible tab) tea.Cmd {
	return ts.show(visible)
}

// show starts tab t's view the first time it is shown; a started view
// keeps what it loaded.
func (ts *tabs) show(t tab) tea.Cmd {
	if ts.started[t] {
		return nil
	}
	ts.started[t] = true
	return tabTable[t].init(ts)
}

// update hands msg to tab t's view.
func (ts *tabs) update(t tab, msg tea.Msg) tea.Cmd { return tabTable[t].update(ts, msg) }

// updateAll offers msg to every view; each ignores what it does not own.
// What a tab other than shown says is its news (news.go).
func (ts *tabs) updateAll(msg tea.Msg, shown tab) tea.Cmd {
	cmds := make([]tea.Cmd, 0, numTabs)
	for t := range numTabs {
		cmd := ts.update(t, msg)
		if t != shown {
			cmd = newsOf(t, cmd)
		}
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// refresh asks tab t's view to re-read what it shows.
func (ts *tabs) refresh(t tab) tea.Cmd { return tabTable[t].refresh(ts) }

// recordTab is the tab that shows the coordination record of a dwk_* key.
func recordTab(k codec.Key) (tab, bool) {
	if len(k) == 0 || k[0].Kind() != codec.KindString {
		return 0, false
	}
	for t, d := range tabTable {
		for _, p := range d.records {
			if k[0].StringValue() == p {
				return tab(t), true
			}
		}
	}
	return 0, false
}

// tabNotes are what a tab's writes guard against and what they leave, in
// words true of that tab (every tab used to claim "e and d act only if
// the key still has the stamp shown", even where e and d mean something
// else).
func tabNotes(t tab) []string { return append([]string(nil), tabTable[t].help...) }

// jumpKeys are, per tab, the key that asks the root for another tab:
// the tabs' own default bindings.
func jumpKeys() [numTabs]key.Binding {
	var ks [numTabs]key.Binding
	for t, d := range tabTable {
		ks[t] = d.jump
	}
	return ks
}
