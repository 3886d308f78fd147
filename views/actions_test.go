package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// toy is a tab with three keys: g reads, d deletes (off with nothing
// selected), and r retries, a write its mode switches off.
type toy struct {
	keys     toyKeys
	selected bool
	ran      []string
}

type toyKeys struct{ Go, Delete, Retry key.Binding }

func newToy() toy {
	return toy{keys: toyKeys{
		Go:     key.NewBinding(key.WithKeys("g", "enter"), key.WithHelp("g/enter", "go")),
		Delete: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete")),
		Retry:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "retry"), key.WithDisabled()),
	}}
}

func (k *toyKeys) actions() Actions[toy] {
	run := func(name string) func(*toy, tea.KeyMsg) tea.Cmd {
		return func(m *toy, _ tea.KeyMsg) tea.Cmd { m.ran = append(m.ran, name); return nil }
	}
	return Actions[toy]{
		{Binding: &k.Go, Do: run("go"), Short: 2},
		{Binding: &k.Delete, What: "delete", Asks: AskDialog, Do: run("delete"), Col: 1, Short: 1,
			Off: func(m toy) string {
				if !m.selected {
					return Hint("select a row: %s deletes it", m.keys.Delete)
				}
				return ""
			}},
		{Binding: &k.Retry, What: "retry", Asks: AskDialog, Do: run("retry"), Col: 1},
	}
}

func press(k string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)} }

// flashOf is the flash cmd shows ("" for none).
func flashOf(t *testing.T, cmd tea.Cmd) string {
	t.Helper()
	if cmd == nil {
		return ""
	}
	f, ok := cmd().(FlashMsg)
	if !ok {
		t.Fatalf("the command sent %T, not a flash", cmd())
	}
	return f.Text
}

// TestActionsDispatch: the table runs the action of the key pressed; a
// write in read-only mode is refused with its reason and runs nothing,
// even when its mode switched it off; an action that is off says why and
// runs nothing.
func TestActionsDispatch(t *testing.T) {
	for _, tc := range []struct {
		key              string
		readOnly, picked bool
		ran, flash       string
		handled          bool
	}{
		{key: "g", ran: "go", handled: true},
		{key: "d", picked: true, ran: "delete", handled: true},
		{key: "d", flash: "select a row: d deletes it", handled: true},
		{key: "d", readOnly: true, picked: true, flash: "read-only: delete (d) is off", handled: true},
		{key: "r", readOnly: true, flash: "read-only: retry (r) is off", handled: true},
		{key: "r"},
		{key: "x"},
	} {
		m := newToy()
		m.selected = tc.picked
		cmd, handled := m.keys.actions().Dispatch(&m, press(tc.key), tc.readOnly)
		if got := strings.Join(m.ran, ","); got != tc.ran || handled != tc.handled {
			t.Errorf("%+v: ran %q handled %v", tc, got, handled)
		}
		if got := flashOf(t, cmd); !strings.HasPrefix(got, tc.flash) || (tc.flash == "") != (got == "") {
			t.Errorf("%+v: flash %q", tc, got)
		}
	}
}

// TestActionsHelp: the one-line help lists the keys by their Short
// place, the full help by column in table order; read-only, the writes
// are switched off there (help leaves them out) and not in the key map.
func TestActionsHelp(t *testing.T) {
	m := newToy()
	names := func(bs []key.Binding) string {
		var out []string
		for _, b := range bs {
			if b.Enabled() {
				out = append(out, b.Help().Desc)
			}
		}
		return strings.Join(out, ",")
	}
	as := m.keys.actions()
	if got := names(as.ShortHelp(false)); got != "delete,go" {
		t.Errorf("short help %q", got)
	}
	if got := names(as.ShortHelp(true)); got != "go" {
		t.Errorf("read-only short help %q", got)
	}
	full := as.FullHelp(false)
	if len(full) != 2 || names(full[0]) != "go" || names(full[1]) != "delete" {
		t.Errorf("full help %v", full)
	}
	m.keys.Retry.SetEnabled(true)
	if full := m.keys.actions().FullHelp(true); names(full[1]) != "" {
		t.Errorf("read-only full help lists writes: %q", names(full[1]))
	}
	if !m.keys.Delete.Enabled() || !m.keys.Retry.Enabled() {
		t.Error("help switched the key map's writes off")
	}
}

// TestHintNamesTheBoundKey: a hint names a key by its binding, the
// first of help's alternatives; rebound, the hint names the new key.
func TestHintNamesTheBoundKey(t *testing.T) {
	m := newToy()
	if got := Hint("%s goes · %s deletes", m.keys.Go, m.keys.Delete); got != "g goes · d deletes" {
		t.Errorf("hint %q", got)
	}
	m.keys.Delete = key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "delete"))
	if got := Hint("%s goes · %s deletes", m.keys.Go, m.keys.Delete); got != "g goes · X deletes" {
		t.Errorf("rebound: hint %q", got)
	}
	_, _ = m.keys.actions().Dispatch(&m, press("d"), false)
	cmd, _ := m.keys.actions().Dispatch(&m, press("X"), false)
	if got := flashOf(t, cmd); got != "select a row: X deletes it" || len(m.ran) != 0 {
		t.Errorf("rebound: X said %q and ran %v", got, m.ran)
	}
	for k, want := range map[string]string{"←/h": "←", "ctrl+s": "ctrl+s", "/": "/", "+": "+"} {
		if got := KeyName(key.NewBinding(key.WithHelp(k, ""))); got != want {
			t.Errorf("KeyName(%q) = %q, want %q", k, got, want)
		}
	}
}
