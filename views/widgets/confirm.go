package widgets

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"kvdeck/themes"
	"kvdeck/views"
)

// ConfirmKeys are the keys of a confirmation dialog.
type ConfirmKeys struct {
	Yes key.Binding
	No  key.Binding
}

// DefaultConfirmKeys returns the dialog's default keys: y confirms; n or
// esc cancels. Enter does nothing on purpose, so that a key press meant for
// the screen behind cannot confirm a destructive action.
func DefaultConfirmKeys() ConfirmKeys {
	return ConfirmKeys{
		Yes: key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "confirm")),
		No:  key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "cancel")),
	}
}

// ConfirmDialog is a modal yes/no dialog that names what will change.
type ConfirmDialog struct {
	req    views.ConfirmMsg
	open   bool
	keys   ConfirmKeys
	styles themes.Styles
	width  int
}

// NewConfirmDialog returns a closed dialog.
func NewConfirmDialog(keys ConfirmKeys, styles themes.Styles) ConfirmDialog {
	return ConfirmDialog{keys: keys, styles: styles}
}

// Ask opens the dialog for req.
func (d *ConfirmDialog) Ask(req views.ConfirmMsg) {
	d.req = req
	d.open = true
}

// Open reports whether the dialog is showing (and so takes every key).
func (d ConfirmDialog) Open() bool { return d.open }

// SetSize tells the dialog how wide the screen is.
func (d *ConfirmDialog) SetSize(w, _ int) { d.width = w }

// Update handles the dialog's keys: on yes it closes and returns the
// action; on no it closes and returns nothing; other keys are swallowed.
func (d ConfirmDialog) Update(msg tea.Msg) (ConfirmDialog, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || !d.open {
		return d, nil
	}
	switch {
	case key.Matches(k, d.keys.Yes):
		d.open = false
		return d, d.req.Do
	case key.Matches(k, d.keys.No):
		d.open = false
		return d, views.Flash(views.FlashInfo, "cancelled: %s", strings.ToLower(d.req.Title))
	}
	return d, nil
}

// Keys returns the dialog's bindings for help.
func (d ConfirmDialog) Keys() []key.Binding { return []key.Binding{d.keys.Yes, d.keys.No} }

// View renders the dialog box (the root centres it over the screen).
func (d ConfirmDialog) View() string {
	inner := d.width - 10
	if inner > 72 {
		inner = 72
	}
	if inner < 20 {
		inner = 20
	}
	// Title and lines are plain text that may quote stored names (a queue,
	// an alarm class): they pass the one terminal rule here, whatever the
	// caller did.
	lines := []string{d.styles.DialogTitle.Render(Sanitize(d.req.Title)), ""}
	for _, l := range d.req.Lines {
		for _, wl := range WrapHanging(Sanitize(l), inner) {
			lines = append(lines, lipgloss.NewStyle().Width(inner).Render(wl))
		}
	}
	yes := d.req.Yes
	if yes == "" {
		yes = "confirm"
	}
	lines = append(lines, "",
		d.styles.HelpKey.Render("y")+" "+d.styles.Text.Render(yes)+"    "+
			d.styles.HelpKey.Render("n/esc")+" "+d.styles.Text.Render("cancel"))
	return d.styles.Dialog.Render(strings.Join(lines, "\n"))
}
