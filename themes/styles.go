package themes

import "github.com/charmbracelet/lipgloss"

// Styles are every lipgloss style kvdeck draws with, built once from a
// Theme by NewStyles and passed to the views by value.
type Styles struct {
	// Plain foregrounds for text of one meaning.
	Text, Muted, Accent, Error, Warn, OK lipgloss.Style
	// Bold is Text in bold, for values that deserve the eye first.
	Bold lipgloss.Style

	// App chrome.
	AppName     lipgloss.Style // "kvdeck" in the tab bar
	TabActive   lipgloss.Style
	TabInactive lipgloss.Style
	StatusBar   lipgloss.Style // the bottom line
	StatusSep   lipgloss.Style // separators between status items
	Badge       lipgloss.Style // READ-ONLY
	Pane        lipgloss.Style // a bordered box
	PaneFocused lipgloss.Style // the box that gets the keys
	PaneTitle   lipgloss.Style
	Label       lipgloss.Style // field names in detail panes
	Dialog      lipgloss.Style // confirmation dialogs
	DialogTitle lipgloss.Style

	// Rows and lists.
	Selected lipgloss.Style // the selected row (whole line)
	Count    lipgloss.Style // child counts
	KeyMark  lipgloss.Style // "this node is itself a key"
	Expired  lipgloss.Style // expired-but-unswept data: struck through

	// Key parts, one per type.
	PartString, PartNumber, PartBigint, PartBool, PartBytes lipgloss.Style

	// JSON tokens.
	JSONKey, JSONString, JSONNumber, JSONBool, JSONNull, JSONPunct lipgloss.Style

	// Flash line levels.
	FlashInfo, FlashOK, FlashError lipgloss.Style

	// Help (bubbles/help takes these as its Styles).
	HelpKey, HelpDesc, HelpSep lipgloss.Style

	// Text inputs.
	Prompt, Placeholder lipgloss.Style
}

// NewStyles builds every style of t once.
func NewStyles(t Theme) Styles {
	fg := func(c lipgloss.AdaptiveColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	s := Styles{
		Text:   fg(t.Text),
		Muted:  fg(t.Muted),
		Accent: fg(t.Accent),
		Error:  fg(t.Error),
		Warn:   fg(t.Warn),
		OK:     fg(t.OK),
		Bold:   fg(t.Text).Bold(true),

		AppName:     fg(t.Accent).Bold(true).Padding(0, 1),
		TabActive:   fg(t.Accent).Bold(true).Underline(true),
		TabInactive: fg(t.Muted),
		StatusBar:   fg(t.Muted),
		StatusSep:   fg(t.Border),
		Badge:       fg(t.Warn).Bold(true).Reverse(true),
		Pane:        lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.Border).Padding(0, 1),
		PaneFocused: lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(t.Accent).Padding(0, 1),
		PaneTitle:   fg(t.Accent).Bold(true),
		Label:       fg(t.Muted),
		Dialog:      lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).BorderForeground(t.Warn).Padding(1, 2),
		DialogTitle: fg(t.Warn).Bold(true),

		Selected: lipgloss.NewStyle().Background(t.Selected).Foreground(t.Text).Bold(true),
		Count:    fg(t.Muted),
		KeyMark:  fg(t.Accent),
		Expired:  fg(t.Muted).Strikethrough(true),

		PartString: fg(t.PartString),
		PartNumber: fg(t.PartNumber),
		PartBigint: fg(t.PartBigint),
		PartBool:   fg(t.PartBool),
		PartBytes:  fg(t.PartBytes),

		JSONKey:    fg(t.Accent),
		JSONString: fg(t.PartString),
		JSONNumber: fg(t.PartNumber),
		JSONBool:   fg(t.PartBool),
		JSONNull:   fg(t.Muted).Italic(true),
		JSONPunct:  fg(t.Muted),

		FlashInfo:  fg(t.Accent),
		FlashOK:    fg(t.OK),
		FlashError: fg(t.Error).Bold(true),

		HelpKey:  fg(t.Accent),
		HelpDesc: fg(t.Muted),
		HelpSep:  fg(t.Border),

		Prompt:      fg(t.Accent).Bold(true),
		Placeholder: fg(t.Muted),
	}
	if t.Mono {
		s.monochrome()
	}
	return s
}

// monochrome marks by attribute what a colour theme marks by colour
// alone: a selection needs reverse video to be seen, and the focused pane
// a thick border.
func (s *Styles) monochrome() {
	s.Selected = lipgloss.NewStyle().Reverse(true).Bold(true)
	s.PaneFocused = s.PaneFocused.Border(lipgloss.ThickBorder())
}
