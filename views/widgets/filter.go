package widgets

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/themes"
)

// FilterKeys start a list filter and clear the one in force.
type FilterKeys struct {
	Filter, ClearFilter key.Binding
}

// DefaultFilterKeys returns / to filter and esc to clear the filter (esc
// is live only while a filter is in force).
func DefaultFilterKeys() FilterKeys {
	return FilterKeys{
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter"), key.WithDisabled()),
	}
}

// Filter is the `/` filter of a list tab (Leases, Alarms, Queues, Sweep):
// it applies as it is typed, enter keeps it, esc drops it; matching is
// case-insensitive on the text a tab gives for each row. The tab's Keys
// embed FilterKeys (help lists them with the tab's); the filter enables
// ClearFilter while a filter is in force.
type Filter struct {
	input  InputKeys
	in     textinput.Model
	text   string
	typing bool
	styles themes.Styles
}

// NewFilter returns an empty filter; placeholder says what it matches.
func NewFilter(placeholder string, st themes.Styles) Filter {
	return Filter{input: DefaultInputKeys(), in: NewInput("/ ", placeholder, st), styles: st}
}

// SetWidth sizes the input for a view w cells wide.
func (f *Filter) SetWidth(w int) { f.in.Width = max(w-20, 10) }

// SetLineWidth sizes the input so that the filter line (prompt, text and
// cursor) fits in w cells (a narrow list pane).
func (f *Filter) SetLineWidth(w int) { f.in.Width = max(w-3, 4) }

// Typing reports whether the filter input has the keys.
func (f Filter) Typing() bool { return f.typing }

// Text is the filter in force ("" for none).
func (f Filter) Text() string { return f.text }

// Match reports whether a row with this search text passes.
func (f Filter) Match(text string) bool {
	return f.text == "" || strings.Contains(strings.ToLower(text), strings.ToLower(f.text))
}

// Start handles the keys of a list that has the filter: / starts typing,
// esc clears the filter in force. ok says msg was one of them; changed
// that the filter text changed (the list re-follows its selection).
func (f *Filter) Start(msg tea.KeyMsg, k *FilterKeys) (ok, changed bool, cmd tea.Cmd) {
	switch {
	case key.Matches(msg, k.Filter):
		f.typing = true
		f.in.SetValue(f.text)
		f.in.CursorEnd()
		return true, false, f.in.Focus()
	case key.Matches(msg, k.ClearFilter):
		f.Set("", k)
		return true, true, nil
	}
	return false, false, nil
}

// Type handles a key while typing: the filter applies as it is typed,
// enter keeps it, esc drops it. changed says the filter text changed.
func (f *Filter) Type(msg tea.KeyMsg, k *FilterKeys) (changed bool) {
	before := f.text
	switch {
	case key.Matches(msg, f.input.Accept):
		f.typing = false
		f.in.Blur()
	case key.Matches(msg, f.input.Cancel):
		f.typing = false
		f.in.Blur()
		f.Set("", k)
	default:
		f.in, _ = f.in.Update(msg)
		f.Set(f.in.Value(), k)
	}
	return f.text != before
}

// Set puts text in force (a jump clears the filter so that its row shows).
func (f *Filter) Set(text string, k *FilterKeys) {
	f.text = text
	k.ClearFilter.SetEnabled(text != "")
}

// Help lists the keys while typing.
func (f Filter) Help() []key.Binding { return []key.Binding{f.input.Accept, f.input.Cancel} }

// View is the filter line: the input while typing, the filter in force,
// or "" for none.
func (f Filter) View() string {
	switch {
	case f.typing:
		return f.in.View()
	case f.text != "":
		return f.styles.Accent.Render("/"+f.text) + f.styles.Muted.Render(" (esc clears)")
	}
	return ""
}

// Nothing is the line a filtered-out list shows.
func (f Filter) Nothing() string { return "Nothing matches /" + f.text + "." }
