package widgets

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"

	"kvdeck/themes"
)

// InputKeys are the keys of a one-line input (the filter, the command line).
type InputKeys struct {
	Accept key.Binding
	Cancel key.Binding
}

// DefaultInputKeys returns enter to accept and esc to cancel.
func DefaultInputKeys() InputKeys {
	return InputKeys{
		Accept: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "accept")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// NewInput returns a themed one-line text input with a steady cursor (a
// blinking one would re-render the screen twice a second for nothing).
func NewInput(prompt, placeholder string, styles themes.Styles) textinput.Model {
	in := textinput.New()
	in.Prompt = prompt
	in.Placeholder = placeholder
	in.PromptStyle = styles.Prompt
	in.TextStyle = styles.Text
	in.PlaceholderStyle = styles.Placeholder
	in.Cursor.SetMode(cursor.CursorStatic)
	return in
}

// NewValueArea returns a themed, unlimited text area for a JSON value,
// with line numbers and a steady cursor.
func NewValueArea(styles themes.Styles) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = true
	ta.Prompt = ""
	ta.CharLimit, ta.MaxHeight, ta.MaxWidth = 0, 0, 0
	st := textarea.Style{
		CursorLineNumber: styles.Accent, EndOfBuffer: styles.Muted, LineNumber: styles.Muted,
		Placeholder: styles.Placeholder, Prompt: styles.Accent, Text: styles.Text,
	}
	ta.FocusedStyle, ta.BlurredStyle = st, st
	ta.Cursor.SetMode(cursor.CursorStatic)
	return ta
}
