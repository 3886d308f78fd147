package compose

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/themes"
	"kvdeck/views/widgets"
)

// OpEditorKeys are the keys of the Compose tab's operation editor.
type OpEditorKeys struct {
	Keep, Fill key.Binding
	widgets.FieldKeys
}

// DefaultOpEditorKeys returns the operation editor's default keys.
func DefaultOpEditorKeys() OpEditorKeys {
	return OpEditorKeys{
		Keep:      key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "stage it")),
		Fill:      key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "expect the stored stamp")),
		FieldKeys: widgets.DefaultFieldKeys(),
	}
}

// The editor's fields.
const (
	edKey = iota
	edStamp
	edValue
	edTTL
)

// opEditor stages one operation, or changes a staged one, with live
// feedback on every field: the key as parsed, the stamp, the JSON value,
// the expiry.
type opEditor struct {
	kind    opKind
	index   int // the op being changed; -1 for a new one
	keys    OpEditorKeys
	styles  themes.Styles
	keyIn   textinput.Model
	stampIn textinput.Model
	value   textarea.Model
	ttlIn   textinput.Model
	fields  []int
	focus   int // index into fields
	filling bool
	notice  string
	width   int
}

// newOpEditor opens the editor on op (index -1: a new op of op.kind).
func newOpEditor(st themes.Styles, op stagedOp, index int) *opEditor {
	e := &opEditor{kind: op.kind, index: index, keys: DefaultOpEditorKeys(), styles: st}
	e.keyIn = widgets.NewInput("key    ", `["users", "alice"]`, st)
	e.stampIn = widgets.NewInput("stamp  ", "absent", st)
	e.ttlIn = widgets.NewInput("expire ", "none", st)
	e.value = widgets.NewValueArea(st)
	e.fields = []int{edKey}
	switch op.kind {
	case opCheck:
		e.fields = append(e.fields, edStamp)
	case opSet:
		e.fields = append(e.fields, edValue, edTTL)
	}
	e.keys.Fill.SetEnabled(op.kind == opCheck)
	if op.key != nil {
		e.keyIn.SetValue(codec.Format(op.key))
	} else {
		e.keyIn.SetValue("[")
	}
	e.stampIn.SetValue(op.stamp)
	e.value.SetValue("{}")
	var pretty bytes.Buffer
	if op.value != nil && json.Indent(&pretty, op.value, "", "  ") == nil {
		e.value.SetValue(pretty.String())
	}
	if op.expireIn != nil {
		e.ttlIn.SetValue(op.expireIn.String())
	}
	e.setFocus(0)
	return e
}

// SetSize sets the editor's inside size.
func (e *opEditor) SetSize(w, h int) {
	e.width = w
	e.keyIn.Width, e.stampIn.Width, e.ttlIn.Width = w-8, w-8, w-8
	e.value.SetWidth(w)
	e.value.SetHeight(max(h-10, 3))
}

func (e *opEditor) setFocus(i int) {
	e.focus = i
	e.keyIn.Blur()
	e.stampIn.Blur()
	e.value.Blur()
	e.ttlIn.Blur()
	switch e.fields[i] {
	case edKey:
		e.keyIn.Focus()
	case edStamp:
		e.stampIn.Focus()
	case edValue:
		e.value.Focus()
	default:
		e.ttlIn.Focus()
	}
}

// Update moves between fields and types into the focused one; keep, fill
// and cancel are the owner's (they change the composition or read the
// store).
func (e opEditor) Update(msg tea.KeyMsg) (opEditor, tea.Cmd) {
	n := len(e.fields)
	switch {
	case key.Matches(msg, e.keys.Next):
		e.setFocus((e.focus + 1) % n)
		return e, nil
	case key.Matches(msg, e.keys.Prev):
		e.setFocus((e.focus + n - 1) % n)
		return e, nil
	}
	var cmd tea.Cmd
	switch e.fields[e.focus] {
	case edKey:
		e.keyIn, cmd = e.keyIn.Update(msg)
	case edStamp:
		e.stampIn, cmd = e.stampIn.Update(msg)
	case edValue:
		e.value, cmd = e.value.Update(msg)
	default:
		e.ttlIn, cmd = e.ttlIn.Update(msg)
	}
	e.notice = ""
	return e, cmd
}

// parsedKey is the key field's key, checked to encode.
func (e opEditor) parsedKey() (codec.Key, error) {
	k, err := codec.Parse(e.keyIn.Value())
	if err == nil {
		_, err = codec.Encode(k)
	}
	return k, err
}

// parseStamp reads the stamp field: empty or "absent" is "" (the key must
// be absent or expired), else a versionstamp (usertext.ParseStamp).
func parseStamp(text string) (string, error) {
	if text = strings.TrimSpace(text); text == "" || text == "absent" {
		return "", nil
	}
	return usertext.ParseStamp(text)
}

// parseTTL reads the expiry field: empty or "none" is no expiry, else a Go
// duration in whole milliseconds (zero or less writes a dead row, as in
// the reference).
func parseTTL(text string) (*time.Duration, error) {
	if text = strings.TrimSpace(text); text == "" || text == "none" {
		return nil, nil
	}
	d, err := usertext.ParseDuration(text)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// op validates the fields and returns the operation they describe.
func (e opEditor) op() (stagedOp, error) {
	op := stagedOp{kind: e.kind}
	var err error
	if op.key, err = e.parsedKey(); err != nil {
		return op, fmt.Errorf("key: %w", err)
	}
	switch e.kind {
	case opCheck:
		if op.stamp, err = parseStamp(e.stampIn.Value()); err != nil {
			return op, fmt.Errorf("stamp: %w", err)
		}
	case opSet:
		if op.value, err = codec.NormalizeJSON([]byte(e.value.Value())); err != nil {
			return op, fmt.Errorf("value: %w", err)
		}
		if op.expireIn, err = parseTTL(e.ttlIn.Value()); err != nil {
			return op, fmt.Errorf("expire: %w", err)
		}
	}
	return op, nil
}

// filled takes the stored stamp read for the key field.
func (e *opEditor) filled(found bool, stamp string, err error) {
	e.filling = false
	switch {
	case err != nil:
		e.notice = "✗ read failed: " + err.Error()
	case !found:
		e.stampIn.SetValue("")
		e.notice = "the key is absent (or expired) now: the check expects it absent"
	default:
		e.stampIn.SetValue(stamp)
		e.notice = "the check expects the stamp stored now"
	}
}

// view renders the editor: a title, each field with its feedback.
func (e opEditor) view() string {
	st := e.styles
	verb := "NEW "
	if e.index >= 0 {
		verb = fmt.Sprintf("OP %d: ", e.index+1)
	}
	out := []string{st.PaneTitle.Render(verb + strings.ToUpper(e.kind.String())), e.keyIn.View(), "       " + widgets.KeyFeedback(st, e.keyIn.Value())}
	switch e.kind {
	case opCheck:
		out = append(out, e.stampIn.View(), "       "+e.stampFeedback())
	case opSet:
		out = append(out, e.value.View(), widgets.JSONFeedback(st, e.value.Value()), e.ttlIn.View(), "       "+e.ttlFeedback())
	case opDel:
		out = append(out, st.Muted.Render("deletes the row if the commit's checks hold (no stamp is issued)"))
	}
	switch {
	case e.filling:
		out = append(out, st.Muted.Render("reading the stored stamp…"))
	case e.notice != "":
		out = append(out, widgets.ProseLines(e.notice, st.FlashInfo, e.width)...)
	}
	return strings.Join(out, "\n")
}

func (e opEditor) stampFeedback() string {
	s, err := parseStamp(e.stampIn.Value())
	switch {
	case err != nil:
		return e.styles.Error.Render("✗ " + err.Error())
	case s == "":
		return e.styles.OK.Render("✓ ") + e.styles.Muted.Render("absent: holds while the key is absent or expired · ctrl+r: the stored stamp")
	}
	return e.styles.OK.Render("✓ ") + e.styles.Muted.Render("holds while a live row has exactly this stamp")
}

func (e opEditor) ttlFeedback() string {
	d, err := parseTTL(e.ttlIn.Value())
	switch {
	case err != nil:
		return e.styles.Error.Render("✗ " + err.Error())
	case d == nil:
		return e.styles.Muted.Render("none, or a duration: 30s, 5m")
	case *d <= 0:
		return e.styles.Warn.Render("≤ 0: the row is written already expired (as the reference does)")
	}
	return e.styles.OK.Render("✓ ") + e.styles.Muted.Render("expires "+widgets.Human(*d)+" after the commit")
}

// errNoKeyToFill: ctrl+r needs a key that parses.
var errNoKeyToFill = errors.New("type a valid key first: ctrl+r reads its stored stamp")
