package editor

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// An edit conflict: e's save found the key moved on from the stamp the
// form was filled at. The conflict screen reads what
// is stored now (theirs) and shows it against the edit (yours) as a
// structural diff, with three ways on: keep editing (the text as typed),
// discard the edit, or save yours over THEIR stamp: a confirmed commit
// whose check is the stamp just read, so a third writer who moved the key
// again meanwhile still loses nothing (that save conflicts in turn and
// the screen shows the newer theirs). It is journaled as every Browse
// write ("browse: save over their stamp").

// ConflictKeys are the conflict screen's keys.
type ConflictKeys struct {
	Keep, Discard, Overwrite key.Binding
}

// DefaultConflictKeys returns the conflict screen's keys: e edits (again),
// x drops the edit (as Compose's x drops an op), ctrl+s saves (the form's
// save key), asking first.
func DefaultConflictKeys() ConflictKeys {
	return ConflictKeys{
		Keep:      key.NewBinding(key.WithKeys("e", "esc"), key.WithHelp("e/esc", "keep editing")),
		Discard:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "discard your edit")),
		Overwrite: key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save yours over their stamp (asks)")),
	}
}

// conflictState is the conflict screen: the edit refused and what is
// stored now.
type conflictState struct {
	keys    ConflictKeys
	yours   formRequest // the save the check refused
	based   string      // the stamp the edit was based on ("" = absent)
	loading bool        // theirs is being read
	read    bool        // a read of theirs has landed
	gen     int         // tags the conflict (its confirmation)
	readGen int         // tags the newest read of theirs
	found   bool        // theirs: a live row at the key
	theirs  store.Entry // ... that row
	err     error       // the read failed
	diff    widgets.ValueDiff
	// discardAsk tags the "discard your edit?" question of esc without a
	// form (discard.go).
	discardAsk int
}

// theirsRead answers readTheirs.
type theirsRead struct {
	session, gen int
	found        bool
	entry        store.Entry
	err          error
}

// readTheirs reads the live row at k: what the conflict is against.
func readTheirs(src *store.Store, session, gen int, k codec.Key) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		e, ok, err := src.Get(ctx, k)
		return theirsRead{session: session, gen: gen, found: ok, entry: e, err: err}
	})
}

// openConflict shows the conflict screen for the refused save req and
// reads theirs.
func (m *Model) openConflict(req formRequest, based string) tea.Cmd {
	c := &conflictState{keys: DefaultConflictKeys(), yours: req, based: based, loading: true, gen: m.nextTag()}
	c.readGen = c.gen
	m.conflict = c
	return readTheirs(m.deps.Store, m.deps.Session, c.readGen, req.mut.Key)
}

// Recheck reads theirs again (the root's refresh: the store moved), so
// the conflict screen compares with what is stored now; the overwrite is
// checked against the stamp read last either way.
func (m *Model) Recheck() tea.Cmd {
	c := m.conflict
	if c == nil || c.loading || m.committing {
		return nil
	}
	c.loading, c.readGen = true, m.nextTag()
	return readTheirs(m.deps.Store, m.deps.Session, c.readGen, c.yours.mut.Key)
}

// onTheirs takes the read of the stored row and compares it with yours.
func (m Model) onTheirs(msg theirsRead) (Model, tea.Cmd) {
	c := m.conflict
	if c == nil || msg.session != m.deps.Session || msg.gen != c.readGen {
		return m, nil
	}
	c.loading, c.read, c.found, c.theirs, c.err = false, true, msg.found, msg.entry, msg.err
	var theirs []byte
	if msg.found {
		theirs = msg.entry.Value
	}
	c.diff = widgets.NewValueDiff(theirs, c.yours.mut.Value)
	return m, nil
}

// theirStamp is the stamp the overwrite checks ("" = absent or expired).
func (c *conflictState) theirStamp() string {
	if c.found {
		return c.theirs.Versionstamp()
	}
	return ""
}

// handleConflict handles the keys while the conflict screen is open.
func (m Model) handleConflict(msg tea.KeyMsg) (Model, tea.Cmd) {
	c := m.conflict
	switch {
	case key.Matches(msg, c.keys.Keep) && m.form != nil:
		m.conflict = nil
		return m, nil
	case key.Matches(msg, c.keys.Keep):
		// Without a form (E on a value over its 64 KiB) there is no
		// text to go back to: esc discards, once asked.
		return m, m.askDiscard()
	case key.Matches(msg, c.keys.Discard):
		m.conflict, m.form = nil, nil
		m.ask.Refresh = true
		return m, views.Flash(views.FlashInfo, "your edit of %s was discarded; nothing was written", codec.Format(c.yours.mut.Key))
	case key.Matches(msg, c.keys.Overwrite):
		if !c.read || c.err != nil || m.committing {
			return m, nil
		}
		return m, m.askOverwrite(c)
	}
	return m, nil
}

// askOverwrite asks before saving yours over their stamp.
func (m *Model) askOverwrite(c *conflictState) tea.Cmd {
	stamp := c.theirStamp()
	gen := c.gen
	do := func() tea.Msg { return overwriteConfirmed{gen: gen, stamp: stamp} }
	guard := "only if it is still at their stamp " + stamp
	if stamp == "" {
		guard = "only if it is still absent (it was deleted or expired since you opened it)"
	}
	return views.Confirm("Save yours over their change?", "save over", do,
		"Replaces their value of "+codec.Format(c.yours.mut.Key)+" with yours,",
		guard+"; if a third writer changed it meanwhile, nothing is written.")
}

// overwriteConfirmed: the user said yes to the overwrite of conflict gen
// over stamp, the one the dialog named.
type overwriteConfirmed struct {
	gen   int
	stamp string
}

// onOverwrite commits yours against their stamp, once confirmed.
func (m Model) onOverwrite(msg overwriteConfirmed) (Model, tea.Cmd) {
	c := m.conflict
	if c == nil || msg.gen != c.gen || m.committing {
		return m, nil
	}
	check := store.Check{Key: c.yours.mut.Key, Versionstamp: msg.stamp}
	m.committing = true
	if m.form != nil {
		m.form.setState(true, false)
	}
	return m, commit(m.deps.Store, m.deps.Session, m.nextTag(), opOverwrite, check, c.yours.mut)
}

// conflictView is the right pane while the conflict screen is open.
func (m Model) conflictView(w, h int) string {
	st := m.styles
	c := m.conflict
	inner := m.inner()
	lines := []string{st.PaneTitle.Render("CONFLICT ") + widgets.KeySpans(st, c.yours.mut.Key).Render(false)}
	based := "absent"
	if c.based != "" {
		based = "at stamp " + c.based
	}
	switch {
	case !c.read:
		lines = append(lines, widgets.ProseLines("Another writer changed the key since you opened it ("+based+"). Reading what is stored now…", st.Warn, inner)...)
	case c.err != nil:
		lines = append(lines, widgets.ProseLines("✗ cannot read what is stored now: "+widgets.Sanitize(c.err.Error()), st.Error, inner)...)
	default:
		now := "deleted or expired"
		if c.found {
			now = "at stamp " + c.theirs.Versionstamp()
		}
		lines = append(lines, widgets.ProseLines("Another writer changed the key since you opened it: "+based+" then, "+now+" now. Nothing was written.", st.Warn, inner)...)
		lines = append(lines, "", st.Label.Render("theirs → yours"))
		rows := max(h-st.Pane.GetVerticalFrameSize()-len(lines)-3, 1)
		for _, l := range widgets.DiffLines(st, c.diff, inner, rows) {
			lines = append(lines, l.Render(false))
		}
	}
	k := c.keys
	help := []string{k.Keep.Help().Key + " " + k.Keep.Help().Desc, k.Discard.Help().Key + " " + k.Discard.Help().Desc}
	if m.form == nil {
		help = []string{"x/esc " + k.Discard.Help().Desc}
	}
	if c.read && c.err == nil {
		help = append(help, k.Overwrite.Help().Key+" "+k.Overwrite.Help().Desc)
	}
	lines = append(append(lines, ""), widgets.ProseLines(strings.Join(help, " · "), st.Muted, inner)...)
	return widgets.Pane(st.PaneFocused, strings.Join(lines, "\n"), w, h)
}

// onOverwritten reports the overwrite's outcome: saved, refused again (a
// third writer: the screen reads the newer theirs), or failed.
func (m Model) onOverwritten(msg committed) (Model, tea.Cmd) {
	if m.form != nil {
		m.form.setState(false, false)
	}
	c := m.conflict
	switch {
	case msg.err != nil:
		return m, views.Flash(views.FlashError, "not saved over their stamp: %v", msg.err)
	case !msg.res.OK && c != nil:
		out := m.openConflict(c.yours, msg.expected)
		return m, tea.Batch(out, views.Flash(views.FlashError, "not saved: the key moved again since you read theirs (a third writer); nothing was written, compare again"))
	case !msg.res.OK:
		return m, views.Flash(views.FlashError, "not saved: the key moved again; nothing was written")
	}
	m.conflict, m.form = nil, nil
	m.ask.Refresh = true
	return m, views.Flash(views.FlashOK, "saved %s over their stamp %s, at stamp %s", codec.Format(msg.key), stampText(msg.expected), msg.res.Versionstamp)
}

// stampText is a stamp, or what an empty check stamp means.
func stampText(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}
