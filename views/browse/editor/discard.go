package editor

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Typed text is never lost to a reflex key: esc on a form whose text was
// edited (or that keeps your text aside after a reload) asks before it
// drops the edit, as esc on the conflict screen does when there is no
// form to go back to; n keeps editing. What a quit would drop is the
// root's to ask about and keep (Held).

// discardConfirmed answers the "discard your edit?" dialog of the form
// (or of the conflict screen) asked under tag.
type discardConfirmed struct{ session, tag int }

// askDiscard asks before esc drops the edit in the form or on the
// conflict screen.
func (m *Model) askDiscard() tea.Cmd {
	tag, session := m.nextTag(), m.deps.Session
	what := "the new key"
	switch {
	case m.conflict != nil:
		what = "your edit of " + codec.Format(m.conflict.yours.mut.Key)
	case m.form != nil && !m.form.isNew:
		what = "your edit of " + codec.Format(m.form.key)
	}
	switch {
	case m.form != nil:
		m.form.discardAsk = tag
	case m.conflict != nil:
		m.conflict.discardAsk = tag
	}
	return views.Confirm("Discard your edit?", "discard", func() tea.Msg { return discardConfirmed{session: session, tag: tag} },
		widgets.Sanitize(what)+" is not saved: discarding drops the text you typed; nothing is written.",
		"n keeps editing (ctrl+s saves).")
}

// onDiscardConfirmed drops the edit the dialog was asked for.
func (m Model) onDiscardConfirmed(msg discardConfirmed) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	var k codec.Key
	switch {
	case m.conflict != nil && m.conflict.discardAsk == msg.tag:
		k = m.conflict.yours.mut.Key
	case m.conflict == nil && m.form != nil && m.form.discardAsk == msg.tag:
		k = m.form.key
	default:
		return m, nil // answered for a form or a screen gone since
	}
	m.ask.Refresh = m.conflict != nil // the screen compared with theirs: show it
	m.conflict, m.form = nil, nil
	what := "the new key was discarded"
	if k != nil {
		what = fmt.Sprintf("your edit of %s was discarded", codec.Format(k))
	}
	return m, views.Flash(views.FlashInfo, "%s; nothing was written", what)
}

// Held is the typed text a quit would drop (views.Holder): the form's
// edited text, your text kept aside by a reload, or, on the conflict
// screen of a value too large for the form, your edited value. The root
// keeps each in a private file on the way out and says how to save it.
func (m Model) Held() []views.Held {
	if m.form == nil {
		if c := m.conflict; c != nil {
			return []views.Held{heldValue(c.yours.mut.Key, c.yours.mut.Value, "your edit of")}
		}
		return nil
	}
	f := m.form
	var out []views.Held
	if f.differs(f.texts()) {
		out = append(out, f.heldText(f.texts(), "your edit of"))
	}
	if f.altYours && f.differs(f.alt) {
		out = append(out, f.heldText(f.alt, "your text (swapped out by a reload) of"))
	}
	return out
}

// heldText is the form's texts as held: the value, for the form's key
// (a new key's as typed, when it parses).
func (f *entryForm) heldText(texts []string, what string) views.Held {
	i := 0
	k := f.key
	if f.keyField >= 0 {
		k, _ = widgets.ParseKey(texts[0])
		i = 1
	}
	return heldValue(k, []byte(texts[i]), what)
}

// heldValue is value typed for k (nil: a new key that does not parse),
// kept in a file; the command that writes it is a blind set, said so.
func heldValue(k codec.Key, value []byte, what string) views.Held {
	h := views.Held{Keep: value}
	if k == nil {
		h.What = "the new key you were typing, not saved"
		return h
	}
	h.What = widgets.Sanitize(what + " " + codec.Format(k) + ", not saved")
	h.Use = "set " + views.ShellQuote(codec.Format(k)) + " - < FILE"
	return h
}
