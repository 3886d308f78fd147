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

// tabModel is what the kit's generic helpers need of a tab's model: a
// pointer to it reaches the Base it embeds.
type tabModel[M any] interface {
	*M
	base() *Base
}

func (b *Base) base() *Base { return b }

// ReadActions are the rows of column 1 every coordination tab's table
// has, in this order: / and esc (filter takes both), r (Base.Reload), o
// (browse) and the fleet mode's toggle (Base.ToggleFleet). The filter
// stands at short in the one-line help, the toggle right after it.
func ReadActions[M any, P tabModel[M]](k *Keys, filter func(*M, tea.KeyMsg) tea.Cmd, browse func(*M) tea.Cmd, short int) views.Actions[M] {
	reload := func(m *M) tea.Cmd { return P(m).base().Reload() }
	toggle := func(m *M) tea.Cmd { return P(m).base().ToggleFleet() }
	return views.Actions[M]{
		{Binding: &k.Filter, Do: filter, Col: 1, Short: short},
		{Binding: &k.ClearFilter, Do: filter, Col: 1},
		{Binding: &k.Reload, Do: views.Run(reload), Col: 1},
		{Binding: &k.Browse, Do: views.Run(browse), Col: 1},
		{Binding: &k.Fleet, Do: views.Run(toggle), Col: 1, Short: short + 1},
	}
}

// Route takes the messages every coordination tab takes alike, before
// its own: the fleet mode's answers; the mouse wheel, handed to update
// as the key it stands for; a left click, handed to click while the tab
// has the keys and shows its store (not the fleet); keys, dropped while
// the tab has not the keys and in the fleet mode handed to FleetKey with
// the tab's table (as). done is false when msg is the tab's own.
func Route[M any, P tabModel[M]](m *M, msg tea.Msg, update func(M, tea.Msg) (M, tea.Cmd), click func(M, int, int) M, as func() views.Actions[M]) (cmd tea.Cmd, done bool) {
	b := P(m).base()
	if cmd, ok := b.Fleet.Update(msg); ok {
		return cmd, true
	}
	switch msg := msg.(type) {
	case tea.MouseMsg:
		if k, ok := widgets.WheelKey(msg); ok {
			*m, cmd = update(*m, k)
			return cmd, true
		}
		if x, y, ok := widgets.LeftClick(msg); ok && b.Focused && !b.InFleet() {
			*m = click(*m, x, y)
		}
		return nil, true
	case tea.KeyMsg:
		switch {
		case !b.Focused:
			return nil, true
		case b.InFleet():
			return FleetKey(m, &b.Fleet, msg, as()), true
		}
	}
	return nil, false
}
