package editor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// ttlKeep in the TTL field keeps the row's remaining time to live.
const ttlKeep = "keep"

// entryForm edits one value, or a new key and its value, with live
// validation, and builds the CAS-guarded commit that saves it. Its fields
// are the TUI's one form (widgets.Form): submit (ctrl+s) saves, esc
// cancels; ctrl+r (reload) is its own.
type entryForm struct {
	*widgets.Form
	isNew     bool
	reload    key.Binding
	styles    themes.Styles
	now       func() int64
	key       codec.Key // the edited key (edit mode)
	stamp     string    // the stamp the user saw ("" = absent or expired)
	expiresAt *int64
	// orig is the stored row the form was filled from (nil: a new key, or
	// a row gone since): a save that would write it again is not made.
	orig *widgets.RowImage
	// asked tags the save confirmation in flight (E), 0 when none.
	asked     int
	reloading bool         // a reload of the stored row is in flight
	sent      *formRequest // the last save sent (a conflict shows it as yours)
	saving    bool
	// filled are the fields' texts as the form was filled (from the
	// stored row, or a new key's start): the edit is what differs.
	filled []string
	// alt is the other text after a reload replaced yours with theirs
	// (nil before any): ctrl+r swaps it in, so neither is lost. altYours
	// says which it is.
	alt      []string
	altYours bool
	swap     key.Binding
	// discardAsk tags the "discard your edit?" question in flight.
	discardAsk int
	keyField   int // the index of each field; -1 when absent
	valField   int
	ttlField   int
	width      int
}

// newForm builds the parts every form has: the key field for a new key,
// the value and the TTL.
func newForm(styles themes.Styles, now func() int64, isNew bool, title string) *entryForm {
	f := &entryForm{isNew: isNew, styles: styles, now: now, keyField: -1,
		reload: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "reload stored value and stamp (yours kept)"), key.WithDisabled()),
		swap:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "swap: your text ↔ theirs"), key.WithDisabled())}
	f.Form = widgets.NewForm(title, "", styles)
	if isNew {
		f.keyField, f.valField = 0, 1
		f.Add("key", "", `["users", "alice"]`, nil).Feedback(func(text string) string { return widgets.KeyFeedback(styles, text) })
	}
	f.AddArea("value", "").Feedback(func(text string) string { return widgets.JSONFeedback(styles, text) })
	f.ttlField = f.valField + 1
	f.Add("ttl", "", "none", nil).Feedback(f.ttlHint)
	f.SetSubmitHelp("save (only if unchanged)")
	return f
}

// newEditForm opens the form on a loaded entry; the save will be checked
// against the stamp shown now.
func newEditForm(styles themes.Styles, e store.Entry, now func() int64) *entryForm {
	f := newForm(styles, now, false, "")
	f.key = e.Key
	f.load(e, now())
	f.FocusOn(f.valField)
	return f
}

// newKeyForm opens the form for a new key, starting from prefix.
func newKeyForm(styles themes.Styles, now func() int64, prefix codec.Key) *entryForm {
	f := newForm(styles, now, true, "NEW KEY")
	text := "["
	if len(prefix) > 0 {
		text = strings.TrimSuffix(codec.Format(prefix), "]") + ", "
	}
	f.SetValue(f.keyField, text)
	f.SetValue(f.valField, "{}")
	f.FocusOn(f.keyField)
	f.filled = f.texts()
	return f
}

// texts are the fields' texts, in field order.
func (f *entryForm) texts() []string {
	out := make([]string, 0, 3)
	if f.keyField >= 0 {
		out = append(out, f.Value(f.keyField))
	}
	return append(out, f.Value(f.valField), f.Value(f.ttlField))
}

// setTexts puts texts (from texts) back into the fields.
func (f *entryForm) setTexts(texts []string) {
	i := 0
	if f.keyField >= 0 {
		f.SetValue(f.keyField, texts[i])
		i++
	}
	f.SetValue(f.valField, texts[i])
	f.ToTop(f.valField)
	f.SetValue(f.ttlField, texts[i+1])
}

// differs reports whether texts are not what the form was filled with.
func (f *entryForm) differs(texts []string) bool {
	return texts != nil && !slices.Equal(texts, f.filled)
}

// unsaved reports whether the form holds typed text that closing it
// would lose: its fields edited, or your text kept aside by a reload.
func (f *entryForm) unsaved() bool {
	return f.differs(f.texts()) || f.altYours && f.differs(f.alt)
}

// swapTexts is ctrl+r after a reload: your text and theirs (as reloaded,
// with any edit made to it) trade places; the save stays checked against
// the stamp read last.
func (f *entryForm) swapTexts() {
	cur := f.texts()
	f.setTexts(f.alt)
	f.alt, f.altYours = cur, !f.altYours
	f.Err = ""
	if f.altYours {
		f.Notice = "theirs is back in the form (as reloaded); ctrl+r swaps your text in again"
	} else {
		f.Notice = "your text is back; ctrl+r swaps theirs in again. The save stays checked against stamp " + stampText(f.stamp)
	}
}

// load fills the form from a stored row.
func (f *entryForm) load(e store.Entry, now int64) {
	f.stamp, f.expiresAt = "", e.ExpiresAt
	f.orig = &widgets.RowImage{Value: e.Value, ExpiresAt: e.ExpiresAt}
	if e.Live(now) {
		f.stamp = e.Versionstamp()
	}
	var buf bytes.Buffer
	if json.Indent(&buf, e.Value, "", "  ") != nil {
		buf.Reset()
		buf.Write(e.Value)
	}
	f.SetValue(f.valField, buf.String())
	f.ToTop(f.valField)
	f.SetValue(f.ttlField, "")
	if e.ExpiresAt != nil {
		f.SetValue(f.ttlField, ttlKeep)
	}
	f.filled = f.texts()
	f.setHeader()
}

// setHeader names the edited key and the guard the save runs under.
func (f *entryForm) setHeader() {
	if f.isNew {
		return
	}
	st := f.styles
	guard := "saves only if the key is still at stamp " + f.stamp
	if f.stamp == "" {
		guard = "saves only if the key is still absent or expired"
	}
	f.Header = []string{st.PaneTitle.Render("EDIT ") + widgets.KeySpans(st, f.key).Render(false), st.Muted.Render(guard)}
}

// setState shows what is in flight; a save is refused meanwhile.
func (f *entryForm) setState(saving, reloading bool) {
	f.saving, f.reloading = saving, reloading
	f.Busy, f.Working = saving || reloading, ""
	switch {
	case saving:
		f.Working = "saving…"
	case reloading:
		f.Working = "reloading…"
	}
}

// reloaded takes the fresh read of the row after a conflict.
func (f *entryForm) reloaded(st entry.Row, now int64) {
	f.setState(false, false)
	f.Err = ""
	f.reload.SetEnabled(false)
	switch {
	case st.Err != nil:
		f.Err = "reload failed: " + st.Err.Error()
	case st.Size > widgets.ValueCap: // never load a cut value: a save would write its head
		f.Err = fmt.Sprintf("the value is %d bytes now; the TUI edits values up to %d bytes (kvdeck get / set handle it whole)", st.Size, widgets.ValueCap)
	case !st.Found:
		f.stamp, f.expiresAt, f.orig = "", nil, nil
		f.setHeader()
		f.Notice = "the key is gone now (deleted or swept); saving creates it again if it is still absent"
	default:
		mine := f.texts()
		yours := []byte(f.Value(f.valField))
		f.load(st.E, now)
		f.Notice = "reloaded: the text holds the stored value at stamp " + st.E.Versionstamp() + lostEdit(f.styles, st.E.Value, yours)
		if f.differs(mine) {
			// Yours is kept aside, not dropped: ctrl+r swaps it back.
			f.alt, f.altYours = mine, true
			f.swap.SetEnabled(true)
			f.Notice += ". ctrl+r swaps your text back in"
		}
	}
}

// lostEdit says where the text a reload replaced (yours) differed from
// the stored value (theirs), by JSON path, on one line (theirs against
// yours); "" when it did not differ or is not JSON.
func lostEdit(st themes.Styles, theirs, yours []byte) string {
	d := widgets.NewValueDiff(theirs, yours)
	if d.Whole || len(d.Changes) == 0 {
		return ""
	}
	return ". Your text differed (theirs → yours): " + widgets.DiffLines(st, d, 160, 1)[0].Render(true)
}

// SetSize sets the form's inside size.
func (f *entryForm) SetSize(w, h int) {
	f.width = w
	f.Form.SetSize(w, h)
}

// View renders the form: title, the guard it saves under, the fields with
// their live validation, and any conflict.
func (f *entryForm) View() string { return strings.Join(f.Form.View(f.width), "\n") }

// formRequest is a validated save.
type formRequest struct {
	op    commitOp
	check store.Check
	mut   store.Mutation
	// after is the row the save leaves: the value and the expiry it
	// computes at the instant of the request.
	after widgets.RowImage
}

// unchanged reports whether req would write what the form was filled
// from: the same normalized value and expiry (a new key always changes
// something).
func (f *entryForm) unchanged(req formRequest) bool {
	return !f.isNew && f.orig != nil && widgets.Unchanged(f.orig, &req.after)
}

// Request validates the form at now and builds its commit: a check that
// the key is still at the shown stamp (or still absent, for a new key or
// an expired row) and the set.
func (f *entryForm) Request(now int64) (formRequest, error) {
	k, err := f.parsedKey()
	if err != nil {
		return formRequest{}, fmt.Errorf("key: %w", err)
	}
	value := f.Value(f.valField)
	if _, err := codec.NormalizeJSON([]byte(value)); err != nil {
		return formRequest{}, fmt.Errorf("value is not valid JSON: %w", err)
	}
	ttl, err := f.expireIn(f.Value(f.ttlField), now)
	if err != nil {
		return formRequest{}, fmt.Errorf("ttl: %w", err)
	}
	op := opEdit
	if f.isNew {
		op = opNew
	}
	after := widgets.RowImage{Value: []byte(value)}
	if ttl != nil {
		at := now + ttl.Milliseconds()
		after.ExpiresAt = &at
	}
	return formRequest{
		op:    op,
		check: store.Check{Key: k, Versionstamp: f.stamp},
		mut:   store.Mutation{Type: store.MutationSet, Key: k, Value: []byte(value), ExpireIn: ttl},
		after: after,
	}, nil
}

func (f *entryForm) parsedKey() (codec.Key, error) {
	if !f.isNew {
		return f.key, nil
	}
	return widgets.ParseKey(f.Value(f.keyField))
}

// expireIn reads the TTL text: keep (the remaining time of the shown row,
// computed now), empty or none (no expiry), or a Go duration.
func (f *entryForm) expireIn(text string, now int64) (*time.Duration, error) {
	switch text = strings.TrimSpace(text); text {
	case "", "none":
		return nil, nil
	case ttlKeep:
		if f.expiresAt == nil {
			return nil, nil
		}
		d := widgets.MsUntil(*f.expiresAt, now)
		if d <= 0 {
			return nil, errors.New("the row's time to live has run out; type a new one (30s, 5m) or none")
		}
		return &d, nil
	}
	// The one parser of durations (usertext), as the CLI and every other
	// form: whole milliseconds, at least one (time.ParseDuration took
	// "500us" and stored 0 ms, a row expired as it was written).
	d, err := usertext.ParseDurationAtLeast(text, time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("%q: %w; type keep, none, or one like 30s or 5m", text, err)
	}
	return &d, nil
}

// ttlHint is the TTL field's live feedback.
func (f *entryForm) ttlHint(text string) string {
	now := f.now()
	hint := "none = no expiry · or a duration: 30s, 5m"
	if f.expiresAt != nil {
		left := widgets.MsUntil(*f.expiresAt, now)
		hint = fmt.Sprintf("keep = the remaining %s · ", widgets.Human(max(left, 0))) + hint
	}
	if _, err := f.expireIn(text, now); err != nil {
		return f.styles.Error.Render("✗ " + err.Error())
	}
	return f.styles.Muted.Render(hint)
}

// ShortHelp returns the form's main keys.
func (f *entryForm) ShortHelp() []key.Binding {
	k := f.Keys()
	return []key.Binding{k.Submit, f.reload, f.swap, k.Next, k.Cancel}
}

// FullHelp returns every form key.
func (f *entryForm) FullHelp() [][]key.Binding {
	k := f.Keys()
	return [][]key.Binding{{k.Submit, f.reload, f.swap, k.Next, k.Prev, k.Cancel}}
}
