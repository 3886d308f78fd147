package widgets

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/themes"
)

// FieldKeys move between the fields of an editor whose fields may span
// lines (up and down stay with a text area) and leave it: Browse's entry
// form and Compose's operation editor.
type FieldKeys struct {
	Next, Prev, Cancel key.Binding
}

// DefaultFieldKeys returns tab / shift+tab between fields and esc to
// cancel.
func DefaultFieldKeys() FieldKeys {
	return FieldKeys{
		Next:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// FormKeys are the keys of a small form of one-line fields (acquire a
// lease, set an alarm, send a message).
type FormKeys struct {
	Submit, Next, Prev, Cancel key.Binding
}

// DefaultFormKeys returns enter to submit, tab / shift+tab (or the
// arrows) between fields and esc to cancel.
func DefaultFormKeys() FormKeys {
	return FormKeys{
		Submit: key.NewBinding(key.WithKeys("enter", "ctrl+s"), key.WithHelp("enter", "submit")),
		Next:   key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab", "next field")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "previous field")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// fieldCheck validates a field's text as it is typed: ok says what the
// text means ("lapses at 12:00:30"), err why it cannot be used.
type fieldCheck func(text string) (ok string, err error)

// miniField is one labelled input with its live check.
type miniField struct {
	label string
	in    textinput.Model
	check fieldCheck
	fixed bool // shown, not editable, skipped by the focus
}

// Form is a few one-line fields with live validation. The owner
// handles Submit and Cancel (they need the store); the form moves between
// fields and takes the typing. Owners hold it by pointer and it changes in
// place, as the model copies that share it are discarded.
type Form struct {
	title  string
	note   string // what submitting will do
	fields []miniField
	focus  int
	keys   FormKeys
	styles themes.Styles
	Err    string // why the last submit did not happen
	Busy   bool   // the submit is in flight
}

// NewForm returns an empty form; add its fields with add.
func NewForm(title, note string, st themes.Styles) *Form {
	return &Form{title: title, note: note, keys: DefaultFormKeys(), styles: st}
}

// Add appends a field holding value; the first field added has the focus.
func (f *Form) Add(label, value, placeholder string, check fieldCheck) *Form {
	in := NewInput("", placeholder, f.styles)
	in.SetValue(value)
	in.CursorEnd()
	if len(f.fields) == 0 {
		in.Focus()
	}
	f.fields = append(f.fields, miniField{label: label, in: in, check: check})
	return f
}

// SetWidth sizes the inputs for a pane w cells wide.
func (f *Form) SetWidth(w int) {
	for i := range f.fields {
		f.fields[i].in.Width = max(w-f.labelWidth()-5, 4)
	}
}

func (f *Form) labelWidth() int {
	n := 0
	for _, fl := range f.fields {
		n = max(n, len(fl.label))
	}
	return n
}

// Fix makes field i fixed: shown with its value, never focused nor typed
// into (a reschedule keeps the alarm's class and id).
func (f *Form) Fix(i int) *Form {
	f.fields[i].fixed = true
	f.fields[i].in.Blur()
	if f.focus == i {
		f.step(1)
	}
	return f
}

// step moves the focus by dir (1 or -1) to the next field that is not
// fixed.
func (f *Form) step(dir int) {
	i := f.focus
	for range f.fields {
		i = (i + dir + len(f.fields)) % len(f.fields)
		if !f.fields[i].fixed {
			f.FocusOn(i)
			return
		}
	}
}

// FocusOn moves the focus to field i.
func (f *Form) FocusOn(i int) {
	f.focus = (i + len(f.fields)) % len(f.fields)
	for j := range f.fields {
		if j == f.focus {
			f.fields[j].in.Focus()
		} else {
			f.fields[j].in.Blur()
		}
	}
}

// FormAction is what a key did in a mini form.
type FormAction int

// The form actions: the owner submits or closes the form; typing and
// moving between fields are the form's own.
const (
	formTyped FormAction = iota
	FormSubmit
	FormCancel
)

// Handle takes a key: Submit and Cancel are reported to the owner (it
// holds the store; a submit in flight is not reported again); other keys
// move between fields or type into the focused one.
func (f *Form) Handle(msg tea.KeyMsg) (FormAction, tea.Cmd) {
	switch {
	case key.Matches(msg, f.keys.Cancel):
		return FormCancel, nil
	case key.Matches(msg, f.keys.Submit):
		if f.Busy {
			return formTyped, nil
		}
		return FormSubmit, nil
	case key.Matches(msg, f.keys.Next):
		f.step(1)
		return formTyped, nil
	case key.Matches(msg, f.keys.Prev):
		f.step(-1)
		return formTyped, nil
	}
	if f.fields[f.focus].fixed {
		return formTyped, nil
	}
	f.Err = ""
	var cmd tea.Cmd
	f.fields[f.focus].in, cmd = f.fields[f.focus].in.Update(msg)
	return formTyped, cmd
}

// Values returns the fields' texts, or the first field's error.
func (f Form) Values() ([]string, error) {
	out := make([]string, len(f.fields))
	for i, fl := range f.fields {
		out[i] = fl.in.Value()
		if fl.check == nil {
			continue
		}
		if _, err := fl.check(out[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", fl.label, err)
		}
	}
	return out, nil
}

// View renders the form w cells wide: the title, each field with its
// live check under it, the note, and the outcome of the last submit.
func (f Form) View(w int) []string {
	st := f.styles
	lw := f.labelWidth()
	out := []string{st.PaneTitle.Render(f.title)}
	for i, fl := range f.fields {
		// The focused field is marked, not only coloured: it shows without
		// colour too.
		label := st.Label.Render(fmt.Sprintf("  %-*s ", lw, fl.label))
		if i == f.focus {
			label = st.Prompt.Render(fmt.Sprintf("❯ %-*s ", lw, fl.label))
		}
		if fl.fixed {
			out = append(out, label+st.Text.Render(Sanitize(fl.in.Value()))+st.Muted.Render("  (fixed)"))
			continue
		}
		out = append(out, label+fl.in.View())
		if fl.check != nil {
			ok, err := fl.check(fl.in.Value())
			note := st.OK.Render("✓ " + ok)
			if err != nil {
				note = st.Error.Render("✗ " + err.Error())
			}
			out = append(out, strings.Repeat(" ", lw+3)+FitWidth(note, max(w-lw-3, 1)))
		}
	}
	if f.note != "" {
		out = append(out, ProseLines(f.note, st.Muted, w)...)
	}
	switch {
	case f.Busy:
		out = append(out, st.Muted.Render("working…"))
	case f.Err != "":
		out = append(out, ProseLines("✗ "+f.Err, st.FlashError, w)...)
	default:
		out = append(out, st.HelpKey.Render("enter")+st.HelpDesc.Render(" submit · ")+
			st.HelpKey.Render("tab")+st.HelpDesc.Render(" next field · ")+
			st.HelpKey.Render("esc")+st.HelpDesc.Render(" cancel"))
	}
	return out
}

// Help lists the form's keys.
func (f Form) Help() []key.Binding {
	return []key.Binding{f.keys.Submit, f.keys.Next, f.keys.Prev, f.keys.Cancel}
}

// NonEmpty checks that a field holds something.
func NonEmpty(what string) fieldCheck {
	return func(s string) (string, error) {
		if strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("type %s", what)
		}
		return strings.TrimSpace(s), nil
	}
}
