package themes

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestByName(t *testing.T) {
	for _, name := range append(Names(), "", "HC") {
		th, err := ByName(name, false)
		if err != nil {
			t.Fatalf("ByName(%q): %v", name, err)
		}
		if th.Mono || th.Text == (lipgloss.AdaptiveColor{}) {
			t.Errorf("ByName(%q) = %+v, want a coloured theme", name, th)
		}
	}
	if _, err := ByName("solarized", false); err == nil {
		t.Error("ByName(solarized) succeeded; want an error naming the choices")
	}
	th, err := ByName("dark", true)
	if err != nil || !th.Mono {
		t.Errorf("ByName(dark, noColor) = %+v, %v; want Mono", th, err)
	}
}

// TestEveryColourSet catches a palette field added to Theme but not filled.
func TestEveryColourSet(t *testing.T) {
	for _, th := range []Theme{Auto(), Dark(), Light(), HighContrast()} {
		v := reflect.ValueOf(th)
		for i := 0; i < v.NumField(); i++ {
			c, ok := v.Field(i).Interface().(lipgloss.AdaptiveColor)
			if ok && (c.Light == "" || c.Dark == "") {
				t.Errorf("theme %s: %s is not set", th.Name, v.Type().Field(i).Name)
			}
		}
	}
}

// TestMonoHasNoColour checks that the NO_COLOR theme emits attributes only.
func TestMonoHasNoColour(t *testing.T) {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.TrueColor)
	s := NewStyles(Mono())
	got := s.PartString.Renderer(r).Render("x") + s.Selected.Renderer(r).Render("y")
	for _, bad := range []string{"38;", "48;"} {
		if strings.Contains(got, bad) {
			t.Errorf("mono styles emit colour sequence %q: %q", bad, got)
		}
	}
	if !strings.Contains(got, "7") { // reverse video
		t.Errorf("mono selection has no reverse video: %q", got)
	}
}

// TestStatesVisibleWithoutColour: every pair of styles that tells two
// states apart must differ in the characters drawn when colours are
// stripped (the Ascii profile), not only in colour, in every theme a
// NO_COLOR user can get. The focused pane was told from the others by its
// border colour alone (Race's selected client looked like the
// other one under NO_COLOR).
func TestStatesVisibleWithoutColour(t *testing.T) {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	s := NewStyles(Mono())
	pane := s.Pane.Renderer(r).Render("x")
	focused := s.PaneFocused.Renderer(r).Render("x")
	if pane == focused {
		t.Errorf("under NO_COLOR the focused pane looks like any other:\n%s\n%s", pane, focused)
	}
}

// TestForProfileDrawsTheSameColours: a theme converted once for a
// 256-colour or a 16-colour terminal draws every colour, on a dark and a
// light background, with the bytes lipgloss writes for the hex colour.
func TestForProfileDrawsTheSameColours(t *testing.T) {
	for _, p := range []termenv.Profile{termenv.ANSI256, termenv.ANSI, termenv.TrueColor} {
		for _, dark := range []bool{true, false} {
			r := lipgloss.NewRenderer(io.Discard, termenv.WithProfile(p))
			r.SetHasDarkBackground(dark)
			for _, name := range Names() {
				hex, _ := ByName(name, false)
				conv := hex.ForProfile(p)
				pairs := [][2]lipgloss.AdaptiveColor{{hex.Text, conv.Text}, {hex.Muted, conv.Muted}, {hex.Accent, conv.Accent},
					{hex.Border, conv.Border}, {hex.Selected, conv.Selected}, {hex.Error, conv.Error}, {hex.Warn, conv.Warn},
					{hex.OK, conv.OK}, {hex.PartString, conv.PartString}, {hex.PartNumber, conv.PartNumber},
					{hex.PartBigint, conv.PartBigint}, {hex.PartBool, conv.PartBool}, {hex.PartBytes, conv.PartBytes}}
				for _, c := range pairs {
					want := r.NewStyle().Foreground(c[0]).Background(c[0]).Render("x")
					if got := r.NewStyle().Foreground(c[1]).Background(c[1]).Render("x"); got != want {
						t.Errorf("profile %v dark %v theme %s: %+v drawn %q, the hex colour %+v %q", p, dark, name, c[1], got, c[0], want)
					}
				}
				if p != termenv.TrueColor && conv.Accent == hex.Accent {
					t.Errorf("profile %v theme %s: the accent was not converted", p, name)
				}
			}
		}
	}
}
