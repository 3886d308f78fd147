// Package views is what kvdeck's tabs and the root share: the Deps a tab is
// built with (the engine behind the Store interface, the clock, the session
// tag), the deadlines of store calls, and the messages a tab sends the root
// (FlashMsg, ConfirmMsg, ComposeMsg). The tabs are its subpackages, one each
// (browse, leases, alarms, queues, compose, race, sweep), drawn with
// views/widgets; a tab talks to the store only inside tea.Cmds and never
// imports another tab nor the root.
package views

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
)

// FlashLevel says how a flash message reads: information, success, error.
type FlashLevel int

// The flash levels.
const (
	FlashInfo FlashLevel = iota
	FlashOK
	FlashError
)

// FlashMsg asks the root to show Text on the flash line, which clears
// itself after a few seconds. Views use it for the outcome of an action;
// a failed load shows inline in the view instead.
type FlashMsg struct {
	Level FlashLevel
	Text  string
}

// Flash returns a command that shows a flash message.
func Flash(level FlashLevel, format string, args ...any) tea.Cmd {
	text := fmt.Sprintf(format, args...)
	return func() tea.Msg { return FlashMsg{Level: level, Text: text} }
}

// ConfirmMsg asks the root to show a confirmation dialog. Every destructive
// action goes through one: Title says what will happen, Lines name exactly
// what will change, and Do runs only when the user confirms.
type ConfirmMsg struct {
	Title string
	Lines []string
	// Yes labels the confirming key's action, e.g. "delete".
	Yes string
	// Do is the action; it was built in Update from values, so it does not
	// read the model when it runs.
	Do tea.Cmd
}

// Confirm returns a command that asks for confirmation before do runs.
func Confirm(title, yes string, do tea.Cmd, lines ...string) tea.Cmd {
	return func() tea.Msg { return ConfirmMsg{Title: title, Lines: lines, Yes: yes, Do: do} }
}

// ComposeMsg asks the root to switch to the Compose tab and stage Checks
// and Mutations there ("Compose from here" in Browse).
type ComposeMsg struct {
	Checks    []store.Check
	Mutations []store.Mutation
}

// StageInCompose returns a command that sends a ComposeMsg.
func StageInCompose(checks []store.Check, muts []store.Mutation) tea.Cmd {
	return func() tea.Msg { return ComposeMsg{Checks: checks, Mutations: muts} }
}

// GotoMsg asks the root to show Key in the Browse tab: the raw row behind
// a lease, alarm or queue message.
type GotoMsg struct{ Key codec.Key }

// Goto returns a command that sends a GotoMsg.
func Goto(k codec.Key) tea.Cmd { return func() tea.Msg { return GotoMsg{Key: k} } }

// ShowRecordMsg asks the root to show the coordination tab of a dwk_* key
// (Leases, Alarms or Queues), with that record selected when the tab can.
type ShowRecordMsg struct{ Key codec.Key }

// ShowRecord returns a command that sends a ShowRecordMsg.
func ShowRecord(k codec.Key) tea.Cmd { return func() tea.Msg { return ShowRecordMsg{Key: k} } }

// EscUser is a tab that says whether esc has something of its own to back
// out of now (a filter in force, a mark, a peek). The root takes an esc
// that a tab has no use for: in the tabs of a store opened from the Fleet
// view, it goes back to the fleet. A tab that is not an
// EscUser uses esc when an enabled binding of its help is esc (its
// bindings for esc are enabled only while they have something to do);
// a tab that captures the keys (a prompt, a form) has them all.
type EscUser interface {
	UsesEsc() bool
}

// PutBackMsg asks the root to put Keys (raw) back as they were at the
// point of the past shown (:at): it shows what changes and asks first.
type PutBackMsg struct{ Keys [][]byte }

// KeyHistoryMsg asks the root for the history of Key (raw Raw) across
// the store's restore points.
type KeyHistoryMsg struct {
	Key codec.Key
	Raw []byte
}
