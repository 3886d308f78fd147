package race

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// TestRaceHintsNameTheirKeys: the failed commit's hint says "press A"
// (the key, apart from client A) and ctrl+s, the live phase names enter;
// each from its binding: rebound, the hints name the new keys, and those
// keys act.
func TestRaceHintsNameTheirKeys(t *testing.T) {
	h := newRaceHarness(t, false)
	h.Keys("enter", "l", "enter", "h", "enter", "l", "enter", "h", "enter") // A read, B read, A stage, B stage, A commit…
	h.Confirm()
	h.Keys("l", "enter") // … B's commit fails
	h.Confirm()
	h.RequireView("on client B, press A to recover (re-read, re-stage), then ctrl+s to commit.")

	h.M.keys.Recover = key.NewBinding(key.WithKeys("V"), key.WithHelp("V", "recover"))
	h.M.keys.Commit = key.NewBinding(key.WithKeys("ctrl+w"), key.WithHelp("ctrl+w", "commit"))
	h.RequireView("on client B, press V to recover (re-read, re-stage), then ctrl+w to commit.")
	h.Keys("V", "ctrl+w")
	if len(h.Confirms) != 1 {
		t.Fatalf("the rebound V then ctrl+w did not ask for B's commit: %d dialog(s)", len(h.Confirms))
	}
	h.Confirm()

	h.Keys("m")
	h.RequireView("ready: enter starts")
	h.M.keys.Start = key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "start workers"))
	h.M.updateKeys()
	h.RequireView("ready: S starts")
}
