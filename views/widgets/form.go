package widgets

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
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
	label    string
	in       textinput.Model
	area     textarea.Model // the text of a multi-line field (multi)
	multi    bool
	check    fieldCheck
	feedback func(text string) string // draws the live feedback itself
	fixed    bool                     // shown, not editable, skipped by the focus
}

// value is the field's text.
func (fl miniField) value() string {
	if fl.multi {
		return fl.area.Value()
	}
	return fl.in.Value()
}

// Form is the one form of the TUI: labelled one-line fields and multi-line
// ones (a JSON value), each with its live feedback, the focused one marked
// with ❯ (it shows without colour too). The owner handles Submit and Cancel
// (they need the store) and any key of its own (Browse's reload, Compose's
// fill); the form moves between fields and takes the typing. Owners hold
// it by pointer and it changes in place, as the model copies that share it
// are discarded. Used by the coordination tabs' small forms, Browse's
// entry form and Compose's operation editor.
type Form struct {
	title   string
	note    string // what submitting will do
	fields  []miniField
	focus   int
	keys    FormKeys
	styles  themes.Styles
	width   int
	Header  []string // drawn lines between the title and the fields
	Err     string   // why the last submit did not happen
	Notice  string   // what the last action of the owner did
	Busy    bool     // the submit is in flight
	Working string   // what is in flight, shown instead of the keys
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

// AddArea appends a multi-line field holding value (a JSON value, with
// line numbers), its cursor at the end (ToTop moves it). A form with such a field
// leaves enter and the arrows to it: ctrl+s submits and tab / shift+tab
// move between fields (FieldKeys).
func (f *Form) AddArea(label, value string) *Form {
	ta := NewValueArea(f.styles)
	if len(f.fields) == 0 {
		ta.Focus()
	} else {
		ta.Blur()
	}
	f.fields = append(f.fields, miniField{label: label, area: ta, multi: true})
	f.SetValue(len(f.fields)-1, value)
	fk := DefaultFieldKeys()
	f.keys.Submit.SetKeys("ctrl+s")
	f.keys.Submit.SetHelp("ctrl+s", f.keys.Submit.Help().Desc)
	f.keys.Next, f.keys.Prev = fk.Next, fk.Prev
	return f
}

// Feedback makes the last field added draw its live feedback with fn
// (which styles it) instead of its check's ✓ / ✗ line.
func (f *Form) Feedback(fn func(text string) string) *Form {
	f.fields[len(f.fields)-1].feedback = fn
	return f
}

// SetSubmitHelp names what submitting does, in help and the key line.
func (f *Form) SetSubmitHelp(desc string) {
	f.keys.Submit.SetHelp(f.keys.Submit.Help().Key, desc)
}

// SetWidth sizes the inputs for a pane w cells wide.
func (f *Form) SetWidth(w int) {
	f.width = w
	for i := range f.fields {
		f.fields[i].in.Width = max(w-f.labelWidth()-5, 4)
		if f.fields[i].multi {
			f.fields[i].area.SetWidth(max(w-2, 8))
		}
	}
}

// SetSize sizes the form for a pane w x h inside: the multi-line fields
// share the height the other lines leave.
func (f *Form) SetSize(w, h int) {
	f.SetWidth(w)
	areas, used := 0, 3+len(f.Header) // title, status, a spare line
	for _, fl := range f.fields {
		used += 2 // the field and its feedback
		if fl.multi {
			areas++
		}
	}
	if f.note != "" {
		used += len(Wrap(f.note, max(w, 1)))
	}
	for i := range f.fields {
		if f.fields[i].multi {
			f.fields[i].area.SetHeight(max((h-used)/areas, 3))
		}
	}
}

// Value returns field i's text.
func (f *Form) Value(i int) string { return f.fields[i].value() }

// SetValue replaces field i's text.
func (f *Form) SetValue(i int, text string) {
	if fl := &f.fields[i]; fl.multi {
		fl.area.SetValue(text) // the cursor at its end
		return
	}
	f.fields[i].in.SetValue(text)
	f.fields[i].in.CursorEnd()
}

// ToTop puts the cursor of multi-line field i at the start of its text
// (a stored value is read from its top).
func (f *Form) ToTop(i int) {
	fl := &f.fields[i]
	for range fl.area.LineCount() {
		fl.area.CursorUp()
	}
	fl.area.CursorStart()
}

// Focused returns the index of the field with the focus.
func (f *Form) Focused() int { return f.focus }

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
	if f.fields[i].multi {
		f.fields[i].area.Blur()
	}
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
		fl := &f.fields[j]
		switch {
		case j == f.focus && fl.multi:
			fl.area.Focus()
		case j == f.focus:
			fl.in.Focus()
		case fl.multi:
			fl.area.Blur()
		default:
			fl.in.Blur()
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
	f.Err, f.Notice = "", ""
	var cmd tea.Cmd
	if fl := &f.fields[f.focus]; fl.multi {
		fl.area, cmd = fl.area.Update(msg)
	} else {
		fl.in, cmd = fl.in.Update(msg)
	}
	return formTyped, cmd
}

// Values returns the fields' texts, or the first field's error.
func (f Form) Values() ([]string, error) {
	out := make([]string, len(f.fields))
	for i, fl := range f.fields {
		out[i] = fl.value()
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
	var out []string
	if f.title != "" {
		out = append(out, st.PaneTitle.Render(f.title))
	}
	out = append(out, f.Header...)
	for i := range f.fields {
		out = append(out, f.fieldLines(i, w)...)
	}
	if f.note != "" {
		out = append(out, ProseLines(f.note, st.Muted, w)...)
	}
	return append(out, f.statusLines(w)...)
}

// fieldLines draws field i: its label and input (or text area, or fixed
// text), then its live feedback when it has any.
func (f Form) fieldLines(i, w int) []string {
	st, fl, lw := f.styles, f.fields[i], f.labelWidth()
	// The focused field is marked, not only coloured: it shows without
	// colour too.
	label := st.Label.Render(fmt.Sprintf("  %-*s ", lw, fl.label))
	if i == f.focus {
		label = st.Prompt.Render(fmt.Sprintf("❯ %-*s ", lw, fl.label))
	}
	indent := lw + 3
	var out []string
	switch {
	case fl.fixed:
		return []string{label + st.Text.Render(Sanitize(fl.value())) + st.Muted.Render("  (fixed)")}
	case fl.multi:
		out = append(out, strings.TrimRight(label, " "))
		for _, l := range strings.Split(fl.area.View(), "\n") {
			out = append(out, "  "+l)
		}
		indent = 2
	default:
		out = append(out, label+fl.in.View())
	}
	var note string
	switch {
	case fl.feedback != nil:
		note = fl.feedback(fl.value())
	case fl.check != nil:
		ok, err := fl.check(fl.value())
		note = st.OK.Render("✓ " + ok)
		if err != nil {
			note = st.Error.Render("✗ " + err.Error())
		}
	default:
		return out
	}
	return append(out, strings.Repeat(" ", indent)+FitWidth(note, max(w-indent, 1)))
}

// statusLines is the form's last line: what is in flight, the last
// submit's error or the owner's notice, else the keys.
func (f Form) statusLines(w int) []string {
	st := f.styles
	switch {
	case f.Busy || f.Working != "":
		return []string{st.Muted.Render(cmp.Or(f.Working, "working…"))}
	case f.Err != "":
		return ProseLines("✗ "+f.Err, st.FlashError, w)
	case f.Notice != "":
		return ProseLines(f.Notice, st.FlashInfo, w)
	}
	var parts []string
	for _, b := range []key.Binding{f.keys.Submit, f.keys.Next, f.keys.Cancel} {
		parts = append(parts, st.HelpKey.Render(b.Help().Key)+st.HelpDesc.Render(" "+b.Help().Desc))
	}
	return []string{FitWidth(strings.Join(parts, st.HelpDesc.Render(" · ")), max(w, 1))}
}

// Keys returns the form's keys (an owner lists them with its own).
func (f Form) Keys() FormKeys { return f.keys }

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
