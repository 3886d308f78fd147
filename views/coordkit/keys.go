package coordkit

import "github.com/charmbracelet/bubbles/key"

// ReadKeys are the keys every coordination tab has that only read, with
// one meaning on all three: r reloads, o shows the
// selected row's raw key in Browse.
type ReadKeys struct {
	Reload key.Binding
	Browse key.Binding // the selected row's raw key in Browse
}

// DefaultReadKeys returns r (and ctrl+r) and o.
func DefaultReadKeys() ReadKeys {
	return ReadKeys{
		Reload: key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "reload")),
		Browse: key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "its raw key in Browse")),
	}
}
