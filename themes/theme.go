// Package themes holds kvdeck's semantic palette and the lipgloss styles
// built from it. Views ask for meaning (Error, a string key part, a JSON
// number), never for a colour: a theme decides how each looks.
package themes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Theme is a semantic palette. Each colour is adaptive: lipgloss picks the
// Light or Dark value from the terminal's background.
type Theme struct {
	// Name is how --theme selects the theme.
	Name string
	// Mono means "no colours at all" (NO_COLOR): emphasis comes from
	// reverse video, bold and strike-through instead.
	Mono bool

	Text     lipgloss.AdaptiveColor
	Muted    lipgloss.AdaptiveColor
	Accent   lipgloss.AdaptiveColor
	Border   lipgloss.AdaptiveColor
	Selected lipgloss.AdaptiveColor // background of the selected row
	Error    lipgloss.AdaptiveColor
	Warn     lipgloss.AdaptiveColor
	OK       lipgloss.AdaptiveColor

	// One colour per key-part type, so that "42", 42 and 42n differ at a
	// glance; JSON values reuse them for their own strings, numbers and
	// booleans.
	PartString lipgloss.AdaptiveColor
	PartNumber lipgloss.AdaptiveColor
	PartBigint lipgloss.AdaptiveColor
	PartBool   lipgloss.AdaptiveColor
	PartBytes  lipgloss.AdaptiveColor
}

// palette is one side (dark or light background) of a theme.
type palette struct {
	text, muted, accent, border, selected, err, warn, ok string
	str, num, big, boolean, bytes                        string
}

var (
	darkPalette = palette{
		text: "#E4E6EB", muted: "#8A8F98", accent: "#7AA2F7", border: "#3B4252", selected: "#2E3A59",
		err: "#F7768E", warn: "#E0AF68", ok: "#9ECE6A",
		str: "#A6E3A1", num: "#FAB387", big: "#F5C2E7", boolean: "#89DCEB", bytes: "#CBA6F7",
	}
	lightPalette = palette{
		text: "#1F2328", muted: "#6B6F76", accent: "#2F5BD8", border: "#C8CCD4", selected: "#DCE6FA",
		err: "#C0233F", warn: "#9A5B00", ok: "#2E7D32",
		str: "#2B7A3B", num: "#B35900", big: "#A3217A", boolean: "#0B7285", bytes: "#6A3FB5",
	}
	hcDarkPalette = palette{
		text: "#FFFFFF", muted: "#D0D0D0", accent: "#FFFF00", border: "#FFFFFF", selected: "#0000AA",
		err: "#FF5555", warn: "#FFB000", ok: "#55FF55",
		str: "#55FF55", num: "#FFB000", big: "#FF77FF", boolean: "#55FFFF", bytes: "#AAAAFF",
	}
	hcLightPalette = palette{
		text: "#000000", muted: "#303030", accent: "#0000CC", border: "#000000", selected: "#FFD700",
		err: "#B00000", warn: "#7A4000", ok: "#005500",
		str: "#005500", num: "#7A4000", big: "#800080", boolean: "#004C6D", bytes: "#3A00A0",
	}
)

// build pairs a light-background and a dark-background palette.
func build(name string, light, dark palette) Theme {
	c := func(l, d string) lipgloss.AdaptiveColor { return lipgloss.AdaptiveColor{Light: l, Dark: d} }
	return Theme{
		Name:       name,
		Text:       c(light.text, dark.text),
		Muted:      c(light.muted, dark.muted),
		Accent:     c(light.accent, dark.accent),
		Border:     c(light.border, dark.border),
		Selected:   c(light.selected, dark.selected),
		Error:      c(light.err, dark.err),
		Warn:       c(light.warn, dark.warn),
		OK:         c(light.ok, dark.ok),
		PartString: c(light.str, dark.str),
		PartNumber: c(light.num, dark.num),
		PartBigint: c(light.big, dark.big),
		PartBool:   c(light.boolean, dark.boolean),
		PartBytes:  c(light.bytes, dark.bytes),
	}
}

// Auto follows the terminal's background: the light palette on a light
// background, the dark one on a dark background.
func Auto() Theme { return build("auto", lightPalette, darkPalette) }

// Dark is for dark backgrounds whatever the terminal reports.
func Dark() Theme { return build("dark", darkPalette, darkPalette) }

// Light is for light backgrounds whatever the terminal reports.
func Light() Theme { return build("light", lightPalette, lightPalette) }

// HighContrast uses pure, saturated colours on either background.
func HighContrast() Theme { return build("high-contrast", hcLightPalette, hcDarkPalette) }

// Mono has no colours at all: what NO_COLOR asks for. Selection and states
// are shown with reverse video, bold and strike-through.
func Mono() Theme { return Theme{Name: "mono", Mono: true} }

// Names lists the themes --theme accepts.
func Names() []string { return []string{"auto", "dark", "light", "high-contrast"} }

// ByName returns the theme called name ("" means auto). When noColor is
// true (NO_COLOR is set) the result is Mono whatever the name, as
// https://no-color.org asks.
func ByName(name string, noColor bool) (Theme, error) {
	var t Theme
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "auto":
		t = Auto()
	case "dark":
		t = Dark()
	case "light":
		t = Light()
	case "high-contrast", "highcontrast", "hc":
		t = HighContrast()
	default:
		return Theme{}, fmt.Errorf("unknown theme %q; choose one of %s", name, strings.Join(Names(), ", "))
	}
	if noColor {
		return Mono(), nil
	}
	return t, nil
}

// ForProfile returns t with every colour written as profile p's own code
// (an ANSI-256 index on a 256-colour terminal, one of the 16 on a basic
// one), the colour lipgloss would pick for it: lipgloss converts a hex
// colour to the terminal's palette on every render, by a perceptual
// nearest-colour search, which was a tenth of an idle screen's redraws.
// On a true-colour or a colourless terminal t is returned as it is.
func (t Theme) ForProfile(p termenv.Profile) Theme {
	if p != termenv.ANSI256 && p != termenv.ANSI {
		return t
	}
	code := func(hex string) string {
		switch c := p.Color(hex).(type) {
		case termenv.ANSI256Color:
			return strconv.Itoa(int(c))
		case termenv.ANSIColor:
			return strconv.Itoa(int(c))
		}
		return hex
	}
	for _, c := range []*lipgloss.AdaptiveColor{&t.Text, &t.Muted, &t.Accent, &t.Border, &t.Selected, &t.Error, &t.Warn, &t.OK,
		&t.PartString, &t.PartNumber, &t.PartBigint, &t.PartBool, &t.PartBytes} {
		c.Light, c.Dark = code(c.Light), code(c.Dark)
	}
	return t
}
