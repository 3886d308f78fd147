package widgets

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"kvdeck/themes"
)

// The form is the one form of five tabs (Leases, Alarms, Queues, Browse,
// Compose); these tests pin what each of them relies on without a tab.

var errTooShort = errors.New("too short")

// atLeast3 is a live check: ok names the text, err says why not.
func atLeast3(s string) (string, error) {
	if len(s) < 3 {
		return "", errTooShort
	}
	return "holds " + s, nil
}

func newTestForm() *Form {
	lipgloss.SetColorProfile(termenv.Ascii)
	f := NewForm("ACQUIRE", "acquires the lease as kvdeck", themes.NewStyles(themes.Dark())).
		Add("class", "Pod", "class", NonEmpty("a class")).
		Add("id", "", "id", atLeast3).
		Add("ttl", "30s", "ttl", nil)
	f.SetWidth(60)
	return f
}

func typeText(f *Form, s string) {
	for _, r := range s {
		f.Handle(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func press(f *Form, k tea.KeyType) FormAction {
	a, _ := f.Handle(tea.KeyMsg{Type: k})
	return a
}

// viewText is the form's view 60 cells wide, as plain text.
func viewText(f *Form) string { return ansi.Strip(strings.Join(f.View(60), "\n")) }

// TestFormFocusMovesAndSkipsFixed: tab and shift+tab (and the arrows)
// move the focus round the fields, past a fixed one; typing goes to the
// focused field only.
func TestFormFocusMovesAndSkipsFixed(t *testing.T) {
	f := newTestForm()
	if f.Focused() != 0 {
		t.Fatalf("a new form focuses field %d, want the first", f.Focused())
	}
	f.Fix(1) // the id is kept, as a reschedule keeps the alarm's id
	for _, step := range []struct {
		key  tea.KeyType
		want int
	}{
		{tea.KeyTab, 2}, {tea.KeyTab, 0}, {tea.KeyShiftTab, 2}, {tea.KeyUp, 0}, {tea.KeyDown, 2},
	} {
		if a := press(f, step.key); a != formTyped {
			t.Fatalf("%v reported %v to the owner", step.key, a)
		}
		if f.Focused() != step.want {
			t.Fatalf("after %v the focus is on field %d, want %d", step.key, f.Focused(), step.want)
		}
	}
	typeText(f, "0")
	if f.Value(2) != "30s0" || f.Value(0) != "Pod" || f.Value(1) != "" {
		t.Errorf("typing went astray: %q %q %q", f.Value(0), f.Value(1), f.Value(2))
	}
	// Fixing the focused field moves the focus on.
	f.FocusOn(0)
	f.Fix(0)
	if f.Focused() != 2 {
		t.Errorf("fixing the focused field left the focus on %d, want 2", f.Focused())
	}
}

// TestFormSubmitCancelAndBusy: enter and esc are the owner's, reported
// as FormSubmit and FormCancel; a submit in flight is not reported again;
// typing clears the last submit's error and notice.
func TestFormSubmitCancelAndBusy(t *testing.T) {
	f := newTestForm()
	if a := press(f, tea.KeyEnter); a != FormSubmit {
		t.Errorf("enter: %v, want FormSubmit", a)
	}
	if a := press(f, tea.KeyEsc); a != FormCancel {
		t.Errorf("esc: %v, want FormCancel", a)
	}
	f.Busy = true
	if a := press(f, tea.KeyEnter); a != formTyped {
		t.Errorf("enter while busy: %v, the submit would run twice", a)
	}
	if v := viewText(f); !strings.Contains(v, "working…") {
		t.Errorf("a busy form does not say so:\n%s", v)
	}
	f.Busy, f.Err, f.Notice = false, "lease held by someone else", "was: released"
	if v := viewText(f); !strings.Contains(v, "✗ lease held by someone else") {
		t.Errorf("the submit's error is not shown:\n%s", v)
	}
	typeText(f, "x")
	if f.Err != "" || f.Notice != "" {
		t.Errorf("typing kept the last outcome: %q %q", f.Err, f.Notice)
	}
}

// TestFormValuesAndLiveChecks: Values returns every field's text, or the
// first failing check's error named by its label (wrapped: errors.Is
// finds the check's own); the view shows each check's verdict under its
// field as it is typed.
func TestFormValuesAndLiveChecks(t *testing.T) {
	f := newTestForm()
	if _, err := f.Values(); !errors.Is(err, errTooShort) || !strings.HasPrefix(err.Error(), "id: ") {
		t.Fatalf("Values with a short id: %v, want id: %v", err, errTooShort)
	}
	v := viewText(f)
	for _, want := range []string{"ACQUIRE", "❯ class Pod", "✓ Pod", "✗ too short", "acquires the lease as kvdeck", "enter submit"} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	press(f, tea.KeyTab)
	typeText(f, "abc")
	vals, err := f.Values()
	if err != nil || strings.Join(vals, "|") != "Pod|abc|30s" {
		t.Fatalf("Values = %q, %v", vals, err)
	}
	v = viewText(f)
	if !strings.Contains(v, "✓ holds abc") || strings.Contains(v, "✗") {
		t.Errorf("the id's check did not follow the typing:\n%s", v)
	}
	if !strings.Contains(v, "❯ id") || strings.Contains(v, "❯ class") {
		t.Errorf("the focus mark did not move with the focus:\n%s", v)
	}
	f.SetValue(0, "  ")
	if _, err := f.Values(); err == nil || !strings.HasPrefix(err.Error(), "class: type a class") {
		t.Errorf("Values with a blank class: %v", err)
	}
}

// TestFormFixedFieldIsTerminalSafe: a fixed field shows its stored text
// escaped, since it may come from the store (an alarm's class). The text
// input drops C0 controls itself; a bidi override it keeps.
func TestFormFixedFieldIsTerminalSafe(t *testing.T) {
	f := newTestForm()
	f.SetValue(0, "Cart\u202etxt.exe")
	f.Fix(0)
	if out := strings.Join(f.View(60), "\n"); strings.Contains(out, "\u202e") {
		t.Fatalf("the fixed field reaches the terminal raw:\n%q", out)
	}
	if v := viewText(f); !strings.Contains(v, `Cart\u202etxt.exe  (fixed)`) {
		t.Errorf("the fixed field is not shown escaped:\n%s", v)
	}
}

// TestFormAreaTakesEnter: with a multi-line field (Browse's value,
// Compose's operation) enter types a newline and ctrl+s submits; tab
// still moves between fields.
func TestFormAreaTakesEnter(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	f := NewForm("EDIT", "", themes.NewStyles(themes.Dark())).Add("key", `["a"]`, "key", nil).AddArea("value", `{"n":1}`)
	f.SetSize(60, 20)
	press(f, tea.KeyTab)
	if f.Focused() != 1 {
		t.Fatalf("tab focused %d, want the value", f.Focused())
	}
	if a := press(f, tea.KeyEnter); a != formTyped {
		t.Fatalf("enter in the value area reported %v", a)
	}
	typeText(f, "2")
	if got := f.Value(1); got != "{\"n\":1}\n2" {
		t.Errorf("the area holds %q, want a newline then 2", got)
	}
	if a := press(f, tea.KeyCtrlS); a != FormSubmit {
		t.Errorf("ctrl+s: %v, want FormSubmit", a)
	}
	if v := viewText(f); !strings.Contains(v, "ctrl+s submit") {
		t.Errorf("the key line does not name ctrl+s:\n%s", v)
	}
	f.SetSubmitHelp("save")
	if v := viewText(f); !strings.Contains(v, "ctrl+s save") {
		t.Errorf("SetSubmitHelp did not rename the submit:\n%s", v)
	}
}
