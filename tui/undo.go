package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// The undo overlay (z): the store's write journal, newest first; enter
// previews an entry's inverse, key by key (now → will be), and enter
// again asks, then makes the checked undo (journal.Undo: one
// store.Restore refused whole when any key changed since the write). The
// journal is read, settled and undone in commands; the overlay shows
// what they answered.

// undoState is the overlay while it is open.
type undoState struct {
	gen      int // tags the reads and the undo of this opening
	loading  bool
	entries  []journal.Entry // newest first
	notes    []journal.Note
	err      error
	cursor   int
	planning bool
	plan     *journal.Plan // the preview (enter), nil on the list
	planErr  error
}

// undoKeys are the overlay's keys.
type undoKeys struct {
	Up, Down, Preview, Undo, Back, Close, Reload key.Binding
}

func defaultUndoKeys() undoKeys {
	return undoKeys{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "newer")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "older")),
		Preview: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "preview the undo")),
		Undo:    key.NewBinding(key.WithKeys("enter", "u"), key.WithHelp("enter", "undo it (asks)")),
		Back:    key.NewBinding(key.WithKeys("esc", "left", "h"), key.WithHelp("esc", "back to the list")),
		Close:   key.NewBinding(key.WithKeys("esc", "z", "q"), key.WithHelp("esc", "close")),
		Reload:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "read the journal again")),
	}
}

// Answers of the overlay's commands, tagged with the session and the
// opening's generation.
type (
	journalListed struct {
		session, gen int
		entries      []journal.Entry
		notes        []journal.Note
		err          error
	}
	undoPlanned struct {
		session, gen int
		plan         journal.Plan
		err          error
	}
	undoDone struct {
		session, gen int
		plan         journal.Plan
		res          store.RestoreResult
		err          error
	}
)

// listJournal settles the entries of unknown outcome (by reading their
// keys) and reads the journal.
func listJournal(j *journal.Journal, s *store.Store, session, gen int) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		settled := j.Settle(ctx, s)
		entries, notes, err := j.List()
		if err == nil && settled != nil {
			err = fmt.Errorf("settling entries of unknown outcome: %w", settled)
		}
		for i, k := 0, len(entries)-1; i < k; i, k = i+1, k-1 {
			entries[i], entries[k] = entries[k], entries[i]
		}
		return journalListed{session: session, gen: gen, entries: entries, notes: notes, err: err}
	})
}

// planUndo builds the inverse of entry id and reads its keys now.
func planUndo(j *journal.Journal, s *store.Store, session, gen int, id string) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		p, err := j.PlanUndo(ctx, s, id)
		return undoPlanned{session: session, gen: gen, plan: p, err: err}
	})
}

// makeUndo makes the plan's inverse, checked again on every key.
func makeUndo(j *journal.Journal, s *store.Store, session, gen int, p journal.Plan) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		res, err := j.Undo(ctx, s, p)
		return undoDone{session: session, gen: gen, plan: p, res: res, err: err}
	})
}

// undoOff says why z does nothing in this session ("" when it works).
func (m model) undoOff() string {
	switch {
	case m.store.ReadOnly() && m.sw.current.Name != "":
		return "z (undo) is off: " + m.readOnlyWhy() + " (nothing is written, nothing journaled)"
	case m.store.ReadOnly():
		return "z (undo) is off: the store was opened with --read-only (nothing is written, nothing journaled)"
	case journal.Of(m.store) == nil:
		return "z (undo) is off: this session's writes are not journaled (--no-journal or KVDECK_JOURNAL=off), so there is nothing to undo"
	}
	return ""
}

// openUndo opens the overlay and reads the journal.
func (m model) openUndo() (model, tea.Cmd) {
	if why := m.undoOff(); why != "" {
		out := m.flash.show(views.FlashMsg{Level: views.FlashError, Text: why})
		return m, out
	}
	m.undoGen++
	m.undo = &undoState{gen: m.undoGen, loading: true}
	return m, listJournal(journal.Of(m.store), m.store, m.session, m.undoGen)
}

// handleUndo handles keys while the overlay is open.
func (m model) handleUndo(msg tea.KeyMsg) (model, tea.Cmd) {
	u, k := *m.undo, m.undoKeys
	m.undo = &u
	j := journal.Of(m.store)
	if u.plan != nil || u.planErr != nil || u.planning {
		switch {
		case key.Matches(msg, k.Back):
			u.plan, u.planErr, u.planning = nil, nil, false
		case key.Matches(msg, m.keys.Quit), msg.String() == "z":
			m.undo = nil
		case key.Matches(msg, k.Undo) && u.plan != nil:
			return m, m.askUndo(*u.plan)
		default:
			m.helpOff = clampHelp(scrollHelp(msg, m.helpOff, m.helpPage()), len(m.previewLines()), m.helpPage())
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Close):
		m.undo = nil
	case key.Matches(msg, k.Up):
		u.cursor = max(u.cursor-1, 0)
	case key.Matches(msg, k.Down):
		u.cursor = max(min(u.cursor+1, len(u.entries)-1), 0)
	case key.Matches(msg, k.Reload) && !u.loading:
		u.loading = true
		return m, listJournal(j, m.store, m.session, u.gen)
	case key.Matches(msg, k.Preview) && u.cursor < len(u.entries) && !u.loading:
		u.planning, m.helpOff = true, 0
		return m, planUndo(j, m.store, m.session, u.gen, u.entries[u.cursor].ID)
	}
	return m, nil
}

// onUndoMsg takes the overlay's answers.
func (m model) onUndoMsg(msg tea.Msg) (model, tea.Cmd) {
	u := m.undo
	switch msg := msg.(type) {
	case journalListed:
		if u == nil || msg.session != m.session || msg.gen != u.gen {
			return m, nil
		}
		v := *u
		v.loading, v.entries, v.notes, v.err = false, msg.entries, msg.notes, msg.err
		v.cursor = max(min(v.cursor, len(v.entries)-1), 0)
		m.undo = &v
	case undoPlanned:
		if u == nil || msg.session != m.session || msg.gen != u.gen || !u.planning {
			return m, nil
		}
		v := *u
		v.planning, v.plan, v.planErr = false, nil, msg.err
		if msg.err == nil {
			v.plan = &msg.plan
		}
		m.undo = &v
	case undoDone:
		return m.onUndone(msg)
	}
	return m, nil
}

// askUndo asks before the undo, naming each key as it is now and as it
// will be; a plan already refused (a key changed since the write) is
// refused at once, naming the key, its stamp and its value now.
func (m *model) askUndo(p journal.Plan) tea.Cmd {
	e := p.Entry
	if p.Setting != nil {
		return m.askSettingUndo(p)
	}
	if len(p.Conflicts) > 0 {
		return views.Flash(views.FlashError, "%s", refusalText(e.ID, p.Conflicts))
	}
	lines := []string{fmt.Sprintf("Puts back %d key(s) as they were before %s (%s, %s), in one commit checked on every key:",
		len(p.Ops), e.ID, e.Op, usertext.FormatTime(e.Time.UnixMilli()))}
	for i, op := range p.Ops {
		if i == 3 {
			lines = append(lines, fmt.Sprintf("… and %d more key(s): the preview lists them all", len(p.Ops)-3))
			break
		}
		lines = append(lines, journal.KeyText(op.Key)+":")
		lines = append(lines, widgets.ChangeLines(rawImage(p.Now[string(op.Key)]), rawImage(op.Put))...)
	}
	lines = append(lines, "If anyone changed one of these keys since the write, nothing is written. Restored rows get a new versionstamp.")
	do := makeUndo(journal.Of(m.store), m.store, m.session, m.undo.gen, p)
	return views.Confirm("Undo "+e.ID+"?", "undo", do, lines...)
}

// onUndone reports the undo: done, or refused with the keys that changed.
func (m model) onUndone(msg undoDone) (model, tea.Cmd) {
	if msg.session != m.session {
		return m, nil
	}
	id := msg.plan.Entry.ID
	var text views.FlashMsg
	switch {
	case msg.err != nil && errors.Is(msg.err, journal.ErrNotUndoable):
		text = views.FlashMsg{Level: views.FlashError, Text: fmt.Sprintf("undo %s: %v", id, msg.err)}
	case msg.err != nil:
		text = views.FlashMsg{Level: views.FlashError, Text: fmt.Sprintf("undo %s failed: %v", id, msg.err)}
	case !msg.res.OK:
		text = views.FlashMsg{Level: views.FlashError, Text: refusalText(id, msg.res.Conflicts)}
	case msg.plan.Setting != nil:
		text = m.settingUndone(msg.plan)
	default:
		at := ""
		if msg.res.Versionstamp != "" {
			at = " at stamp " + msg.res.Versionstamp + " (restored rows get a new versionstamp)"
		}
		text = views.FlashMsg{Level: views.FlashOK, Text: fmt.Sprintf("undone %s (%s): %d key(s) put back%s; z again lists it, and undoing the undo redoes", id, msg.plan.Entry.Op, len(msg.plan.Ops), at)}
	}
	out := m.flash.show(text)
	if m.undo == nil || msg.gen != m.undo.gen {
		return m, out
	}
	v := *m.undo
	m.undo = &v
	j := journal.Of(m.store)
	if msg.err == nil && !msg.res.OK {
		// Refused: the preview again, read now, marks the keys that
		// changed with their stamp and value.
		v.plan, v.planErr, v.planning = nil, nil, true
		return m, tea.Batch(out, planUndo(j, m.store, m.session, v.gen, id))
	}
	// Back to the list, read again: the undo is an entry of its own.
	v.plan, v.planErr, v.planning, v.loading, v.cursor = nil, nil, false, true, 0
	return m, tea.Batch(out, listJournal(j, m.store, m.session, v.gen))
}

// refusalText names every key that changed since the write: its stamp and
// value now.
func refusalText(id string, conflicts []store.RestoreConflict) string {
	parts := make([]string, len(conflicts))
	for i, c := range conflicts {
		parts[i] = journal.ConflictText(c)
	}
	return fmt.Sprintf("undo %s refused, nothing was written: %d key(s) changed since the write: %s", id, len(conflicts), strings.Join(parts, "; "))
}

// rawImage is a physical row as a preview shows it (nil: no row).
func rawImage(r *store.RawRow) *widgets.RowImage {
	if r == nil {
		return nil
	}
	return &widgets.RowImage{Value: r.Value, ExpiresAt: r.ExpiresAt}
}

// undoView draws the overlay: the journal, or an entry's preview.
func (m model) undoView(h int) string {
	u := m.undo
	if u.plan != nil || u.planErr != nil || u.planning {
		lines := m.previewLines()
		return m.scrolledAt("UNDO · PREVIEW", lines, h, clampHelp(m.helpOff, len(lines), max(h-3, 1)))
	}
	title := "UNDO · the write journal, newest first"
	if j := journal.Of(m.store); j != nil {
		title += " · " + j.Path()
	}
	lines := []string{""}
	switch {
	case u.loading && len(u.entries) == 0:
		lines = append(lines, m.styles.Muted.Render("reading the journal…"))
	case u.err != nil:
		lines = append(lines, m.styles.Error.Render(widgets.Sanitize(u.err.Error())))
	case len(u.entries) == 0:
		lines = append(lines, m.styles.Muted.Render("No journaled write yet: every write kvdeck makes on this store (here or from the CLI) lands here, and z undoes it."))
	}
	for _, n := range u.notes {
		lines = append(lines, m.styles.Warn.Render(widgets.Sanitize("skipped: "+n.String())))
	}
	if len(u.entries) > 0 {
		lines = append(lines, m.styles.Label.Render(fmt.Sprintf("   %-8s  %-24s  %-16s  %-*s  %s", "ID", "TIME (UTC)", "OP", m.keysWidth(), "KEYS", "OUTCOME")))
	}
	page := max(h-3-len(lines), 1)
	off := max(min(u.cursor-page/2, len(u.entries)-page), 0)
	for i := off; i < min(off+page, len(u.entries)); i++ {
		lines = append(lines, m.entryLine(u.entries[i], i == u.cursor))
	}
	return m.scrolledAt(title, lines, h, 0)
}

// entryLine is one journal entry in the list.
func (m model) entryLine(e journal.Entry, selected bool) string {
	mark := "   "
	if selected {
		mark = " ❯ "
	}
	op := e.Op
	if op == "" {
		op = e.Kind
	}
	kw := m.keysWidth()
	text := fmt.Sprintf("%s%-8s  %s  %-16s  %-*s  %s", mark, e.ID, usertext.FormatTimeFixed(e.Time.UnixMilli()),
		widgets.ClipText(op, 16), kw, widgets.ClipText(entryWhat(e), kw), entryOutcome(e))
	text = widgets.FitWidth(widgets.Sanitize(text), m.width-4)
	switch {
	case selected:
		return m.styles.Selected.Render(text)
	case journal.Undoable(e, m.undo.entries) != nil:
		return m.styles.Muted.Render(text)
	}
	return m.styles.Text.Render(text)
}

// keysWidth is the width of the list's KEYS column: what the other
// columns leave, keeping about 34 cells for the outcome and its stamp.
func (m model) keysWidth() int {
	return max(m.width-4-(3+8+2+24+2+16+2+2)-34, 12)
}

// keysText is an entry's first key and how many more.
func keysText(keys [][]byte) string {
	switch len(keys) {
	case 0:
		return "-"
	case 1:
		return journal.KeyText(keys[0])
	}
	return fmt.Sprintf("%s +%d", journal.KeyText(keys[0]), len(keys)-1)
}

// entryOutcome is an entry's outcome and its undo links (the preview
// adds its stamp).
func entryOutcome(e journal.Entry) string {
	out := string(e.Outcome)
	if e.Undoes != "" {
		out += " · undoes " + e.Undoes
	}
	if e.UndoneBy != "" {
		out += " · undone by " + e.UndoneBy
	}
	return out
}

// previewLines is the preview of the selected entry's undo: per key,
// now → will be; the keys changed since the write, which refuse it.
func (m model) previewLines() []string {
	u, st, w := m.undo, m.styles, m.width-6
	lines := []string{""}
	if u.planning {
		return append(lines, st.Muted.Render("reading the keys…"))
	}
	if u.planErr != nil {
		return append(lines, widgets.ProseLines("This entry cannot be undone: "+u.planErr.Error(), st.Error, w)...)
	}
	p := u.plan
	if p.Setting != nil {
		return m.settingPreview(*p)
	}
	e := p.Entry
	outcome := entryOutcome(e)
	if e.Stamp != "" {
		outcome += " at stamp " + e.Stamp
	}
	head := fmt.Sprintf("Undo %s: %s (%s) of %s, %s. Per key, as it is now → as the undo leaves it:", e.ID, e.Op, e.Kind,
		usertext.FormatTime(e.Time.UnixMilli()), outcome)
	lines = append(lines, widgets.ProseLines(head, st.Text, w)...)
	conflict := map[string]store.RestoreConflict{}
	for _, c := range p.Conflicts {
		conflict[string(c.Key)] = c
	}
	for _, op := range p.Ops {
		lines = append(lines, "", st.Label.Render(widgets.ClipText(journal.KeyText(op.Key), w)))
		for _, l := range widgets.ChangeLines(rawImage(p.Now[string(op.Key)]), rawImage(op.Put)) {
			lines = append(lines, widgets.ProseLines("  "+l, st.Text, w)...)
		}
		if c, ok := conflict[string(op.Key)]; ok {
			lines = append(lines, widgets.ProseLines("  ✗ changed since the write: "+journal.ConflictText(c), st.Error, w)...)
		}
	}
	lines = append(lines, "")
	if len(p.Conflicts) > 0 {
		lines = append(lines, widgets.ProseLines(fmt.Sprintf("The undo would be refused: %d key(s) changed since the write (another writer, or a later write of yours). Nothing would be written.", len(p.Conflicts)), st.Error, w)...)
	} else {
		lines = append(lines, widgets.ProseLines("enter asks, then puts every key back in one commit checked on each (refused whole if one changes meanwhile). Restored rows get a new versionstamp; undoing the undo redoes.", st.Muted, w)...)
	}
	return lines
}

// scrolledAt draws lines in a framed page under title from offset off.
func (m model) scrolledAt(title string, lines []string, h, off int) string {
	page := max(h-3, 1)
	shown := append([]string{m.styles.PaneTitle.Render(widgets.ClipText(title, m.width-4))}, lines[off:min(off+page, len(lines))]...)
	return widgets.Pane(m.styles.PaneFocused, strings.Join(shown, "\n"), m.width, h)
}

// undoHelp is the overlay's one-line help.
func (m model) undoHelp() []key.Binding {
	k := m.undoKeys
	if u := m.undo; u.plan != nil || u.planErr != nil || u.planning {
		return []key.Binding{k.Undo, k.Back}
	}
	return []key.Binding{k.Up, k.Down, k.Preview, k.Reload, k.Close}
}
