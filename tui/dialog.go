package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
	"kvdeck/views/widgets"
)

// dialog is the yes/no question over everything (a write's confirmation,
// views.ConfirmMsg, or the quit question, quit.go): it takes every key
// and the mouse until answered.
type dialog struct {
	opaque
	d widgets.ConfirmDialog
	// quit: the quit question, which a second ctrl+c answers.
	quit bool
}

func (*dialog) layer() layer { return layerDialog }

func (o *dialog) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	d, cmd := o.d.Update(msg)
	if d.Open() {
		m.overlays.put(&dialog{d: d, quit: o.quit})
	} else {
		m.overlays.drop(layerDialog)
	}
	return m, cmd, true
}

func (o *dialog) draw(m model, body string, h int) string {
	d := o.d
	d.SetSize(m.width, h)
	return m.over(body, d.View(), h)
}

func (o *dialog) help(model) ([]key.Binding, bool) { return o.d.Keys(), true }

// ask opens the dialog for req (in place of one open); quit marks the
// quit question.
func (m *model) ask(req views.ConfirmMsg, quit bool) {
	d := widgets.NewConfirmDialog(widgets.DefaultConfirmKeys(), m.styles)
	d.Ask(req)
	m.overlays.put(&dialog{d: d, quit: quit})
}

// dialog is the dialog open, nil when none is.
func (m model) dialog() *dialog { return opened[*dialog](m.overlays) }
