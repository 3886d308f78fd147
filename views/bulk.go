package views

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
)

// BulkMsg asks the root for the bulk menu over a tab's marked rows (;):
// the root shows Actions, confirms the chosen one (what will change, in
// how many commits and why), and runs it commit by commit with a progress
// bar that esc stops between commits (tui/bulk.go).
type BulkMsg struct {
	// What names the marked rows, e.g. "3 keys", "12 messages of jobs".
	What string
	// Keys are the marked rows' keys, in marking order.
	Keys []codec.Key
	// Actions are the menu, in order.
	Actions []BulkAction
}

// BulkAction is one entry of the bulk menu.
type BulkAction struct {
	// Key is the menu key; Name the action, a verb ("delete", "retry now").
	Key, Name string
	// Units, when set, make the action a write: store.PlanBulk's checked
	// commits, each journaled.
	Units []store.BulkUnit
	// Copy, when true, copies the keys (one per line, as y writes a key).
	Copy bool
	// Says what a write does to each row, for the confirm.
	Says string
}

// Bulk returns a command that sends a BulkMsg.
func Bulk(what string, keys []codec.Key, actions ...BulkAction) tea.Cmd {
	return func() tea.Msg { return BulkMsg{What: what, Keys: keys, Actions: actions} }
}

// BulkDoneMsg tells the tabs that a bulk action ended: the focused tab
// clears its marks (the rows skipped are named on the flash line).
type BulkDoneMsg struct {
	Applied int
	Skipped []codec.Key
}
