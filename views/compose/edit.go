package compose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// opEditor stages one operation, or changes a staged one, with live
// feedback on every field: the key as parsed, the stamp, the JSON value,
// the expiry. Its fields are the TUI's one form (widgets.Form): submit
// (ctrl+s, or enter without a value field) stages, esc cancels; ctrl+r
// (fill the stored stamp, on a check) is its own.
type opEditor struct {
	*widgets.Form
	kind    opKind
	index   int // the op being changed; -1 for a new one
	fill    key.Binding
	styles  themes.Styles
	filling bool
	width   int
}

// The editor's fields, in order (a check has key and stamp, a set key,
// value and expiry, a delete the key).
const (
	edKey   = 0
	edStamp = 1
	edValue = 1
	edTTL   = 2
)

// newOpEditor opens the editor on op (index -1: a new op of op.kind).
func newOpEditor(st themes.Styles, op stagedOp, index int) *opEditor {
	e := &opEditor{kind: op.kind, index: index, styles: st,
		fill: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "expect the stored stamp"))}
	verb := "NEW "
	if index >= 0 {
		verb = fmt.Sprintf("OP %d: ", index+1)
	}
	note := ""
	if op.kind == opDel {
		note = "deletes the row if the commit's checks hold (no stamp is issued)"
	}
	e.Form = widgets.NewForm(verb+strings.ToUpper(op.kind.String()), note, st)
	keyText := "["
	if op.key != nil {
		keyText = codec.Format(op.key)
	}
	e.Add("key", keyText, `["users", "alice"]`, nil).Feedback(func(text string) string { return widgets.KeyFeedback(st, text) })
	switch op.kind {
	case opCheck:
		e.Add("stamp", op.stamp, "absent", nil).Feedback(e.stampFeedback)
	case opSet:
		value := "{}"
		var pretty bytes.Buffer
		if op.value != nil && json.Indent(&pretty, op.value, "", "  ") == nil {
			value = pretty.String()
		}
		ttl := ""
		if op.expireIn != nil {
			ttl = op.expireIn.String()
		}
		e.AddArea("value", value).Feedback(func(text string) string { return widgets.JSONFeedback(st, text) })
		e.Add("expire", ttl, "none", nil).Feedback(e.ttlFeedback)
	case opDel:
	}
	e.SetSubmitHelp("stage it")
	e.fill.SetEnabled(op.kind == opCheck)
	e.FocusOn(0)
	return e
}

// SetSize sets the editor's inside size.
func (e *opEditor) SetSize(w, h int) {
	e.width = w
	e.Form.SetSize(w, h)
}

// parsedKey is the key field's key, checked to encode.
func (e *opEditor) parsedKey() (codec.Key, error) {
	k, err := widgets.ParseKey(e.Value(edKey))
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
func (e *opEditor) op() (stagedOp, error) {
	op := stagedOp{kind: e.kind}
	var err error
	if op.key, err = e.parsedKey(); err != nil {
		return op, fmt.Errorf("key: %w", err)
	}
	switch e.kind {
	case opCheck:
		if op.stamp, err = parseStamp(e.Value(edStamp)); err != nil {
			return op, fmt.Errorf("stamp: %w", err)
		}
	case opSet:
		if op.value, err = codec.NormalizeJSON([]byte(e.Value(edValue))); err != nil {
			return op, fmt.Errorf("value: %w", err)
		}
		if op.expireIn, err = parseTTL(e.Value(edTTL)); err != nil {
			return op, fmt.Errorf("expire: %w", err)
		}
	case opDel:
	}
	return op, nil
}

// filled takes the stored stamp read for the key field.
func (e *opEditor) filled(found bool, stamp string, err error) {
	e.filling, e.Working = false, ""
	switch {
	case err != nil:
		e.Err = "read failed: " + err.Error()
	case !found:
		e.SetValue(edStamp, "")
		e.Notice = "the key is absent (or expired) now: the check expects it absent"
	default:
		e.SetValue(edStamp, stamp)
		e.Notice = "the check expects the stamp stored now"
	}
}

// startFill shows that the stored stamp is being read.
func (e *opEditor) startFill() {
	e.filling, e.Working, e.Err, e.Notice = true, "reading the stored stamp…", "", ""
}

// view renders the editor: a title, each field with its feedback.
func (e *opEditor) view() string { return strings.Join(e.Form.View(e.width), "\n") }

// ShortHelp returns the editor's main keys.
func (e *opEditor) ShortHelp() []key.Binding {
	k := e.Keys()
	return []key.Binding{k.Submit, e.fill, k.Next, k.Cancel}
}

// FullHelp returns every editor key.
func (e *opEditor) FullHelp() [][]key.Binding {
	k := e.Keys()
	return [][]key.Binding{{k.Submit, e.fill, k.Next, k.Prev, k.Cancel}}
}

func (e *opEditor) stampFeedback(text string) string {
	s, err := parseStamp(text)
	switch {
	case err != nil:
		return e.styles.Error.Render("✗ " + err.Error())
	case s == "":
		return e.styles.OK.Render("✓ ") + e.styles.Muted.Render(views.Hint("absent: holds while the key is absent or expired · %s: the stored stamp", e.fill))
	}
	return e.styles.OK.Render("✓ ") + e.styles.Muted.Render("holds while a live row has exactly this stamp")
}

func (e *opEditor) ttlFeedback(text string) string {
	d, err := parseTTL(text)
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
