package browse

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
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/widgets"
)

// FormKeys are the keys of the entry form (edit a value, new key).
type FormKeys struct {
	Save, Reload key.Binding
	widgets.FieldKeys
}

// DefaultFormKeys returns the entry form's default keys.
func DefaultFormKeys() FormKeys {
	return FormKeys{
		Save:      key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save (only if unchanged)")),
		Reload:    key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "reload stored value and stamp"), key.WithDisabled()),
		FieldKeys: widgets.DefaultFieldKeys(),
	}
}

// ttlKeep in the TTL field keeps the row's remaining time to live.
const ttlKeep = "keep"

// Form fields, in tab order.
const (
	fieldKey = iota
	fieldValue
	fieldTTL
)

// entryForm edits one value, or a new key and its value, with live
// validation, and builds the CAS-guarded commit that saves it.
type entryForm struct {
	isNew     bool
	keys      FormKeys
	styles    themes.Styles
	keyIn     textinput.Model
	value     textarea.Model
	ttl       textinput.Model
	focus     int
	key       codec.Key // the edited key (edit mode)
	stamp     string    // the stamp the user saw ("" = absent or expired)
	expiresAt *int64
	conflict  string // why the last save did not happen
	notice    string
	reloading bool // a reload of the stored row is in flight
	saving    bool
	width     int
	height    int
}

// newForm builds the parts every form has.
func newForm(styles themes.Styles, isNew bool) *entryForm {
	f := &entryForm{isNew: isNew, keys: DefaultFormKeys(), styles: styles}
	f.keyIn = widgets.NewInput("key  ", `["users", "alice"]`, styles)
	f.ttl = widgets.NewInput("ttl  ", "none", styles)
	f.value = widgets.NewValueArea(styles)
	return f
}

// newEditForm opens the form on a loaded entry; the save will be checked
// against the stamp shown now.
func newEditForm(styles themes.Styles, e store.Entry, now int64) *entryForm {
	f := newForm(styles, false)
	f.key = e.Key
	f.load(e, now)
	f.setFocus(fieldValue)
	return f
}

// newKeyForm opens the form for a new key, starting from prefix.
func newKeyForm(styles themes.Styles, prefix codec.Key) *entryForm {
	f := newForm(styles, true)
	text := "["
	if len(prefix) > 0 {
		text = strings.TrimSuffix(codec.Format(prefix), "]") + ", "
	}
	f.keyIn.SetValue(text)
	f.value.SetValue("{}")
	f.setFocus(fieldKey)
	return f
}

// load fills the form from a stored row.
func (f *entryForm) load(e store.Entry, now int64) {
	f.stamp, f.expiresAt = "", e.ExpiresAt
	if e.Live(now) {
		f.stamp = e.Versionstamp()
	}
	var buf bytes.Buffer
	if json.Indent(&buf, e.Value, "", "  ") != nil {
		buf.Reset()
		buf.Write(e.Value)
	}
	f.value.SetValue(buf.String())
	for range f.value.LineCount() {
		f.value.CursorUp()
	}
	f.value.CursorStart()
	f.ttl.SetValue("")
	if e.ExpiresAt != nil {
		f.ttl.SetValue(ttlKeep)
	}
}

// reloaded takes the fresh read of the row after a conflict.
func (f *entryForm) reloaded(st entryState, now int64) {
	f.reloading, f.conflict = false, ""
	f.keys.Reload.SetEnabled(false)
	switch {
	case st.err != nil:
		f.conflict = "reload failed: " + st.err.Error()
	case !st.found:
		f.stamp, f.expiresAt = "", nil
		f.notice = "the key is gone now (deleted or swept); saving creates it again if it is still absent"
	default:
		f.load(st.e, now)
		f.notice = "reloaded: the text holds the stored value at stamp " + st.e.Versionstamp()
	}
}

// SetSize sets the form's inside size.
func (f *entryForm) SetSize(w, h int) {
	f.width, f.height = w, h
	f.keyIn.Width, f.ttl.Width = w-6, w-6
	f.value.SetWidth(w)
	f.value.SetHeight(max(h-9, 3))
}

func (f *entryForm) setFocus(i int) {
	f.focus = i
	f.keyIn.Blur()
	f.value.Blur()
	f.ttl.Blur()
	switch i {
	case fieldKey:
		f.keyIn.Focus()
	case fieldValue:
		f.value.Focus()
	default:
		f.ttl.Focus()
	}
}

// Update moves between fields and types into the focused one. Save,
// reload and cancel are the owner's to handle (they need the store).
func (f entryForm) Update(msg tea.Msg) (entryForm, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return f, nil
	}
	first := fieldValue
	if f.isNew {
		first = fieldKey
	}
	switch {
	case key.Matches(k, f.keys.Next):
		f.setFocus(first + (f.focus-first+1)%(fieldTTL-first+1))
		return f, nil
	case key.Matches(k, f.keys.Prev):
		f.setFocus(first + (f.focus-first+fieldTTL-first)%(fieldTTL-first+1))
		return f, nil
	}
	var cmd tea.Cmd
	switch f.focus {
	case fieldKey:
		f.keyIn, cmd = f.keyIn.Update(msg)
	case fieldValue:
		f.value, cmd = f.value.Update(msg)
	default:
		f.ttl, cmd = f.ttl.Update(msg)
	}
	return f, cmd
}

// formRequest is a validated save.
type formRequest struct {
	op    commitOp
	check store.Check
	mut   store.Mutation
}

// Request validates the form at now and builds its commit: a check that
// the key is still at the shown stamp (or still absent, for a new key or
// an expired row) and the set.
func (f entryForm) Request(now int64) (formRequest, error) {
	k, err := f.parsedKey()
	if err != nil {
		return formRequest{}, fmt.Errorf("key: %w", err)
	}
	if _, err := codec.NormalizeJSON([]byte(f.value.Value())); err != nil {
		return formRequest{}, fmt.Errorf("value is not valid JSON: %w", err)
	}
	ttl, err := f.expireIn(now)
	if err != nil {
		return formRequest{}, fmt.Errorf("ttl: %w", err)
	}
	op := opEdit
	if f.isNew {
		op = opNew
	}
	return formRequest{
		op:    op,
		check: store.Check{Key: k, Versionstamp: f.stamp},
		mut:   store.Mutation{Type: store.MutationSet, Key: k, Value: []byte(f.value.Value()), ExpireIn: ttl},
	}, nil
}

func (f entryForm) parsedKey() (codec.Key, error) {
	if !f.isNew {
		return f.key, nil
	}
	return codec.Parse(f.keyIn.Value())
}

// expireIn reads the TTL field: keep (the remaining time of the shown
// row, computed now), empty or none (no expiry), or a Go duration.
func (f entryForm) expireIn(now int64) (*time.Duration, error) {
	text := strings.TrimSpace(f.ttl.Value())
	switch text {
	case "", "none":
		return nil, nil
	case ttlKeep:
		if f.expiresAt == nil {
			return nil, nil
		}
		d := time.Duration(*f.expiresAt-now) * time.Millisecond
		if d <= 0 {
			return nil, errors.New("the row's time to live has run out; type a new one (30s, 5m) or none")
		}
		return &d, nil
	}
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return nil, fmt.Errorf("%q is not a duration > 0; type keep, none, or one like 30s or 5m", text)
	}
	return &d, nil
}

// ShortHelp returns the form's main keys.
func (f entryForm) ShortHelp() []key.Binding {
	return []key.Binding{f.keys.Save, f.keys.Reload, f.keys.Next, f.keys.Cancel}
}

// FullHelp returns every form key.
func (f entryForm) FullHelp() [][]key.Binding {
	return [][]key.Binding{{f.keys.Save, f.keys.Reload, f.keys.Next, f.keys.Prev, f.keys.Cancel}}
}
