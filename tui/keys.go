package tui

import "github.com/charmbracelet/bubbles/key"

// GlobalKeys are the keys the root handles before the focused view.
type GlobalKeys struct {
	Tab       key.Binding // 1-8: switch to that tab
	NextTab   key.Binding
	PrevTab   key.Binding
	Help      key.Binding
	Command   key.Binding
	Pause     key.Binding
	Undo      key.Binding // the write journal: preview and undo a write
	Stores    key.Binding // the store picker: switch to a saved store
	Find      key.Binding // the key finder over the whole store (finder.go)
	Fleet     key.Binding // the Fleet view: every saved store's health (fleet.go)
	Back      key.Binding // the back stack (history.go)
	Forward   key.Binding
	Quit      key.Binding
	ForceQuit key.Binding // works even while typing
}

// DefaultGlobalKeys returns the root's default keys.
func DefaultGlobalKeys() GlobalKeys {
	return GlobalKeys{
		Tab:       key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8"), key.WithHelp("1-8", "switch tab")),
		NextTab:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Command:   key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command")),
		Pause:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause/resume live refresh")),
		Undo:      key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "undo: the write journal (preview, asks)")),
		Stores:    key.NewBinding(key.WithKeys("O"), key.WithHelp("O", "switch to a saved store")),
		Find:      key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "find keys in the store")),
		Fleet:     key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "fleet: all saved stores")),
		Back:      key.NewBinding(key.WithKeys("[", "ctrl+o"), key.WithHelp("[/ctrl+o", "back over jumps")),
		Forward:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "forward again")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit from anywhere")),
	}
}

// bindings lists the global keys for help.
func (k GlobalKeys) bindings() []key.Binding {
	return []key.Binding{k.Tab, k.NextTab, k.PrevTab, k.Help, k.Command, k.Pause, k.Undo, k.Stores, k.Fleet, k.Find, k.Back, k.Forward, k.Quit, k.ForceQuit}
}
