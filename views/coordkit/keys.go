package coordkit

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Keys are the keys every coordination tab has, with one meaning on all
// three: the list's navigation, the / filter, r (reload), o (the
// selected row's raw key in Browse) and W, which switches between this
// store and the fleet (the whole group). Each tab's own Keys embed them.
type Keys struct {
	widgets.NavKeys
	widgets.FilterKeys
	Reload key.Binding
	Browse key.Binding // the selected row's raw key in Browse
	Fleet  key.Binding // this store / the fleet
}

// DefaultKeys returns the keys every coordination tab has.
func DefaultKeys() Keys {
	return Keys{
		NavKeys:    widgets.DefaultNavKeys(),
		FilterKeys: widgets.DefaultFilterKeys(),
		Reload:     key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "reload")),
		Browse:     key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "its raw key in Browse")),
		Fleet:      key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "fleet mode: every store of the group / this store")),
	}
}

// tabModel is what ReadActions needs of a tab's model: Base's reload and
// fleet toggle.
type tabModel[M any] interface {
	*M
	Reload() tea.Cmd
	ToggleFleet() tea.Cmd
}

// ReadActions are the rows of column 1 every coordination tab's table
// has, in this order: / and esc (filter takes both), r (Base.Reload), o
// (browse) and the fleet mode's toggle (Base.ToggleFleet). The filter
// stands at short in the one-line help, the toggle right after it.
func ReadActions[M any, P tabModel[M]](k *Keys, filter func(*M, tea.KeyMsg) tea.Cmd, browse func(*M) tea.Cmd, short int) views.Actions[M] {
	reload := func(m *M) tea.Cmd { return P(m).Reload() }
	toggle := func(m *M) tea.Cmd { return P(m).ToggleFleet() }
	return views.Actions[M]{
		{Binding: &k.Filter, Do: filter, Col: 1, Short: short},
		{Binding: &k.ClearFilter, Do: filter, Col: 1},
		{Binding: &k.Reload, Do: views.Run(reload), Col: 1},
		{Binding: &k.Browse, Do: views.Run(browse), Col: 1},
		{Binding: &k.Fleet, Do: views.Run(toggle), Col: 1, Short: short + 1},
	}
}
