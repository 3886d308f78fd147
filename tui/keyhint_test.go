package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"kvdeck/themes"
	"kvdeck/views/fleet"
)

// TestGotoSaysHowToWriteAKey: :goto with a bare word
// says the key to type.
func TestGotoSaysHowToWriteAKey(t *testing.T) {
	for line, want := range map[string]string{
		"goto users":     `write ["users"]`,
		`goto "users"`:   `write ["users"]`,
		`goto ["users"`:  `["users", 42]: a list of parts`,
		`goto users, 42`: `["users", 42]: a list of parts`,
	} {
		if _, err := parseCommand(line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf(":%s: %v, want it to say %q", line, err, want)
		}
	}
}

// TestFleetHelpNamesItsKeys: the Fleet's help names its keys from their
// bindings (the view's open, the global fleet and help keys): rebound,
// it names the new ones.
func TestFleetHelpNamesItsKeys(t *testing.T) {
	m := model{width: 200, styles: themes.NewStyles(themes.Dark()), keys: DefaultGlobalKeys()}
	m.fl.view = fleet.New(fleet.Deps{}, m.styles)
	text := strings.Join(m.fleetHelpLines(), " ")
	for _, want := range []string{"enter opens the store under the cursor", "In those tabs F, or an esc", "? or esc closes this help."} {
		if !strings.Contains(text, want) {
			t.Errorf("the Fleet's help lacks %q:\n%s", want, text)
		}
	}
	m.keys.Fleet = key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "fleet"))
	m.keys.Help = key.NewBinding(key.WithKeys("f1"), key.WithHelp("f1", "help"))
	text = strings.Join(m.fleetHelpLines(), " ")
	for _, want := range []string{"In those tabs W, or an esc", "f1 or esc closes this help."} {
		if !strings.Contains(text, want) {
			t.Errorf("rebound: the Fleet's help lacks %q:\n%s", want, text)
		}
	}
}
