package views

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
)

// Placeholder stands in for a tab whose view has not landed yet: it says
// what is coming so the tab bar already shows the whole product.
type Placeholder struct {
	title  string
	blurb  string
	styles themes.Styles
	width  int
	height int
}

// NewPlaceholder returns a placeholder tab titled title that describes what
// the coming view will do.
func NewPlaceholder(title, blurb string, styles themes.Styles) Placeholder {
	return Placeholder{title: title, blurb: blurb, styles: styles}
}

// Init does nothing: a placeholder loads nothing.
func (p Placeholder) Init() tea.Cmd { return nil }

// Update ignores every message.
func (p Placeholder) Update(tea.Msg) (Placeholder, tea.Cmd) { return p, nil }

// SetSize sets the placeholder's rectangle.
func (p *Placeholder) SetSize(w, h int) { p.width, p.height = w, h }

// Focus and Blur satisfy the view contract; a placeholder has no keys.
func (p *Placeholder) Focus() {}

// Blur satisfies the view contract.
func (p *Placeholder) Blur() {}

// Refresh has nothing to re-read.
func (p Placeholder) Refresh() (Placeholder, tea.Cmd) { return p, nil }

// Busy is always false.
func (p Placeholder) Busy() bool { return false }

// Capturing is always false: no text input.
func (p Placeholder) Capturing() bool { return false }

// ShortHelp has no bindings.
func (p Placeholder) ShortHelp() []key.Binding { return nil }

// FullHelp has no bindings.
func (p Placeholder) FullHelp() [][]key.Binding { return nil }

// View renders the title, "coming" and the blurb inside a pane.
func (p Placeholder) View() string {
	inner := max(p.width-4, 10)
	body := []string{
		p.styles.PaneTitle.Render(p.title) + "  " + p.styles.Warn.Render("coming"),
		"",
		ansi.Wordwrap(p.styles.Muted.Render(p.blurb), inner, ""),
	}
	return Pane(p.styles.Pane, strings.Join(body, "\n"), p.width, p.height)
}
