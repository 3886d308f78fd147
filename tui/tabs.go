package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

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

// tab is one of the eight tabs, in tab-bar order.
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

// String is the tab's title.
func (t tab) String() string {
	switch t {
	case tabBrowse:
		return "Browse"
	case tabLeases:
		return "Leases"
	case tabAlarms:
		return "Alarms"
	case tabQueues:
		return "Queues"
	case tabCompose:
		return "Compose"
	case tabRace:
		return "Race"
	case tabSweep:
		return "Sweep"
	case tabActivity:
		return "Activity"
	}
	return "?"
}

// tabView is what the root asks of every tab's view besides Update (which
// returns the concrete type, so it goes through tabs.update).
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

// tabs holds every tab's view as a named field.
type tabs struct {
	// started marks the views whose Init ran: a tab loads when it is
	// first shown, so the first frame costs only the visible tab's reads
	// (each tab's load is a request or more to a remote server).
	started [numTabs]bool
	browse  browse.Model
	leases  leases.Model
	alarms  alarms.Model
	queues  queues.Model
	compose compose.Model
	race    race.Model
	sweep   sweep.Model
	// activity is the change feed.
	activity activity.Model
}

// newTabs builds the views.
func newTabs(deps views.Deps, st themes.Styles) tabs {
	return tabs{
		browse:  browse.New(deps, st),
		leases:  leases.New(deps, st),
		alarms:  alarms.New(deps, st),
		queues:  queues.New(deps, st),
		compose: compose.New(deps, st),
		race:    race.New(deps, st),
		sweep:   sweep.New(deps, st),

		activity: activity.New(deps, st),
	}
}

// view returns tab t's view for the read-only questions and sizing.
func (ts *tabs) view(t tab) tabView {
	switch t {
	case tabLeases:
		return &ts.leases
	case tabAlarms:
		return &ts.alarms
	case tabQueues:
		return &ts.queues
	case tabCompose:
		return &ts.compose
	case tabRace:
		return &ts.race
	case tabSweep:
		return &ts.sweep
	case tabActivity:
		return &ts.activity
	}
	return &ts.browse
}

// init starts the visible tab's view; the others start when first shown
// (show).
func (ts *tabs) init(visible tab) tea.Cmd {
	return ts.show(visible)
}

// show starts tab t's view the first time it is shown and reports whether
// it did; a started view keeps what it loaded.
func (ts *tabs) show(t tab) tea.Cmd {
	if ts.started[t] {
		return nil
	}
	ts.started[t] = true
	switch t {
	case tabLeases:
		return ts.leases.Init()
	case tabAlarms:
		return ts.alarms.Init()
	case tabQueues:
		return ts.queues.Init()
	case tabCompose:
		return ts.compose.Init()
	case tabRace:
		return ts.race.Init()
	case tabSweep:
		return ts.sweep.Init()
	case tabActivity:
		return ts.activity.Init()
	}
	return ts.browse.Init()
}

// update hands msg to tab t's view.
func (ts *tabs) update(t tab, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch t {
	case tabBrowse:
		ts.browse, cmd = ts.browse.Update(msg)
	case tabLeases:
		ts.leases, cmd = ts.leases.Update(msg)
	case tabAlarms:
		ts.alarms, cmd = ts.alarms.Update(msg)
	case tabQueues:
		ts.queues, cmd = ts.queues.Update(msg)
	case tabCompose:
		ts.compose, cmd = ts.compose.Update(msg)
	case tabRace:
		ts.race, cmd = ts.race.Update(msg)
	case tabSweep:
		ts.sweep, cmd = ts.sweep.Update(msg)
	case tabActivity:
		ts.activity, cmd = ts.activity.Update(msg)
	}
	return cmd
}

// updateAll offers msg to every view; each ignores what it does not own.
func (ts *tabs) updateAll(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, numTabs)
	for t := range numTabs {
		cmds = append(cmds, ts.update(t, msg))
	}
	return tea.Batch(cmds...)
}

// refresh asks tab t's view to re-read what it shows.
func (ts *tabs) refresh(t tab) tea.Cmd {
	var cmd tea.Cmd
	switch t {
	case tabBrowse:
		ts.browse, cmd = ts.browse.Refresh()
	case tabLeases:
		ts.leases, cmd = ts.leases.Refresh()
	case tabAlarms:
		ts.alarms, cmd = ts.alarms.Refresh()
	case tabQueues:
		ts.queues, cmd = ts.queues.Refresh()
	case tabCompose:
		ts.compose, cmd = ts.compose.Refresh()
	case tabRace:
		ts.race, cmd = ts.race.Refresh()
	case tabSweep:
		ts.sweep, cmd = ts.sweep.Refresh()
	case tabActivity:
		ts.activity, cmd = ts.activity.Refresh()
	}
	return cmd
}
