package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// The undo overlay (z): the store's write journal as actions (what one
// command or key did), newest first, with the selected action's keys and
// outcome below the list; enter previews the action's undo (R its redo),
// key by key (now → will be), and enter again asks, then makes it
// (journal.Undo: checked on every key, refused whole when one changed
// since). The journal is read, settled and undone in commands; the
// overlay shows what they answered.

// undoState is the overlay (overlay.go) while it is open.
type undoState struct {
	opaque
	// j is the journal listed; undoOff, when not empty, says why undo is
	// off in this session (--no-journal): the list is read-only.
	j       *journal.Journal
	undoOff string
	gen     int // tags the reads and the undo of this opening
	loading bool
	hist    journal.History
	actions []journal.Action // newest first
	notes   []journal.Note
	err     error
	list    widgets.ListCursor
	filter  widgets.Filter
	// planning: a preview is being read; plan is the preview (nil on the
	// list); planErr why it cannot be made.
	planning bool
	redo     bool
	plan     *journal.Plan
	planErr  error
	off      int // the preview's first line shown
}

func (*undoState) layer() layer { return layerUndo }

func (*undoState) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handleUndo(msg))
}

func (*undoState) draw(m model, _ string, h int) string { return m.undoView(h) }

func (*undoState) help(m model) ([]key.Binding, bool) { return m.undoHelp(), true }

func (u *undoState) generation() int { return u.gen }

func (*undoState) answer(m model, msg tea.Msg) (model, tea.Cmd) { return m.onUndoMsg(msg) }

// undo is the overlay open, nil when none is.
func (m model) undo() *undoState { return opened[*undoState](m.overlays) }

// undoKeys are the overlay's keys.
type undoKeys struct {
	Nav                                      widgets.NavKeys
	Filter                                   widgets.FilterKeys
	Preview, Redo, Undo, Back, Close, Reload key.Binding
}

func defaultUndoKeys() undoKeys {
	return undoKeys{
		Nav:     widgets.DefaultNavKeys(),
		Filter:  widgets.DefaultFilterKeys(),
		Preview: key.NewBinding(key.WithKeys("enter", "u"), key.WithHelp("enter", "preview its undo")),
		Redo:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "preview its redo")),
		Undo:    key.NewBinding(key.WithKeys("enter", "y"), key.WithHelp("enter", "make it (asks)")),
		Back:    key.NewBinding(key.WithKeys("esc", "left", "h"), key.WithHelp("esc", "back to the list")),
		Close:   key.NewBinding(key.WithKeys("esc", "z", "q"), key.WithHelp("esc", "close")),
		Reload:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "read again")),
	}
}

// Answers of the overlay's commands, tagged with the session and the
// opening's generation.
type (
	journalListed struct {
		session, gen int
		hist         journal.History
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
		res          journal.Result
		err          error
	}
)

func (a journalListed) overlayGen() int { return a.gen }
func (a undoPlanned) overlayGen() int   { return a.gen }
func (a undoDone) overlayGen() int      { return a.gen }

// orphaned: the undo's outcome is said though its overlay was closed.
func (a undoDone) orphaned(m model) (model, tea.Cmd) { return m.onUndone(a) }

// listJournal settles the writes of unknown outcome (by reading their
// keys; not when read-only: settling writes their outcome to the
// journal) and reads the journal as actions.
func listJournal(j *journal.Journal, s *store.Store, session, gen int, readOnly bool) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		var settled error
		if !readOnly {
			settled = j.Settle(ctx, s)
		}
		h, notes, err := j.History()
		if err == nil && settled != nil {
			err = fmt.Errorf("settling writes of unknown outcome: %w", settled)
		}
		return journalListed{session: session, gen: gen, hist: h, notes: notes, err: err}
	})
}

// planUndo builds the inverse of action id (its undo, or its redo) and
// reads its keys now.
func planUndo(j *journal.Journal, s *store.Store, session, gen int, id string, redo bool) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		var p journal.Plan
		var err error
		if redo {
			p, err = j.PlanRedo(ctx, s, id)
		} else {
			p, err = j.PlanUndo(ctx, s, id)
		}
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
	case m.writeStore().ReadOnly() && m.sw.current.Name != "":
		return "z (undo) is off: " + m.readOnlyWhy() + " (nothing is written, nothing journaled)"
	case m.writeStore().ReadOnly():
		return "z (undo) is off: the store was opened with --read-only (nothing is written, nothing journaled)"
	case journal.Of(m.writeStore()) == nil:
		return "z (undo) is off: this session's writes are not journaled (--no-journal or KVDECK_JOURNAL=off), so there is nothing to undo"
	}
	return ""
}

// openUndo opens the overlay and reads the journal.
func (m model) openUndo() (model, tea.Cmd) {
	j, off := journal.Of(m.writeStore()), m.undoOff()
	if off != "" && m.journalReadable() {
		var err error
		if j, err = m.cfg.ReadJournal(m.writeStore().Info().Display); err != nil {
			out := m.flash.show(views.FlashMsg{Level: views.FlashError, Text: off + "; its journal cannot be read: " + err.Error()})
			return m, out
		}
	} else if off != "" {
		out := m.flash.show(views.FlashMsg{Level: views.FlashError, Text: off})
		return m, out
	}
	u := &undoState{j: j, undoOff: off, gen: m.overlays.newGen(), loading: true, filter: widgets.NewFilter("id, command, key or outcome", m.styles)}
	u.filter.SetLineWidth(m.width - 6)
	m.overlays.put(u)
	return m, listJournal(j, m.writeStore(), m.session, u.gen, off != "")
}

// journalReadable reports whether z lists the journal read-only: the
// session journals nothing (--no-journal) on a store it may write, and
// the journal can be read (as undo --list reads it).
func (m model) journalReadable() bool {
	return m.cfg.JournalOff && m.cfg.ReadJournal != nil && !m.writeStore().ReadOnly() && journal.Of(m.writeStore()) == nil
}

// undoKeyOn reports whether z does something here (the list, read-only
// or not), for help.
func (m model) undoKeyOn() bool { return m.undoOff() == "" || m.journalReadable() }

// previewing: the overlay shows a preview (or is reading one).
func (u *undoState) previewing() bool { return u.plan != nil || u.planErr != nil || u.planning }

// handleUndo handles keys while the overlay is open.
func (m model) handleUndo(msg tea.KeyMsg) (model, tea.Cmd) {
	u, k := *m.undo(), m.undoKeys
	m.overlays.put(&u)
	j := u.j
	if u.previewing() {
		switch {
		case key.Matches(msg, k.Back):
			u.plan, u.planErr, u.planning = nil, nil, false
		case key.Matches(msg, m.keys.Quit), msg.String() == "z":
			m.overlays.drop(layerUndo)
		case key.Matches(msg, k.Undo) && u.plan != nil:
			return m, m.askUndo(*u.plan)
		default:
			u.off = clampHelp(scrollHelp(msg, u.off, m.helpPage()), len(m.previewLines()), m.helpPage())
		}
		return m, nil
	}
	if u.filter.Typing() {
		if u.filter.Type(msg, &m.undoKeys.Filter) {
			u.list.Follow(m.undoIDs(), m.undoPage())
		}
		return m, nil
	}
	if ok, changed, cmd := u.filter.Start(msg, &m.undoKeys.Filter); ok {
		if changed {
			u.list.Follow(m.undoIDs(), m.undoPage())
		}
		return m, cmd
	}
	acts := m.undoShown()
	switch {
	case key.Matches(msg, k.Close):
		m.overlays.drop(layerUndo)
	case u.list.Handle(msg, k.Nav, m.undoIDs(), m.undoPage()):
	case key.Matches(msg, k.Reload) && !u.loading:
		u.loading = true
		return m, listJournal(j, m.writeStore(), m.session, u.gen, u.undoOff != "")
	case (key.Matches(msg, k.Preview) || key.Matches(msg, k.Redo)) && u.undoOff != "":
		return m, views.Flash(views.FlashError, "the list is read-only: this session journals nothing (--no-journal or KVDECK_JOURNAL=off), so it undoes nothing; kvdeck undo ID does")
	case (key.Matches(msg, k.Preview) || key.Matches(msg, k.Redo)) && u.list.Cur < len(acts) && !u.loading:
		a := m.undoRoot(acts[u.list.Cur])
		u.planning, u.redo, u.off = true, key.Matches(msg, k.Redo), 0
		return m, planUndo(j, m.writeStore(), m.session, u.gen, a.ID, u.redo)
	}
	return m, nil
}

// undoRoot is the user action an undo or a redo in the list stands for:
// z on an undo previews the user action's undo or redo.
func (m model) undoRoot(a journal.Action) journal.Action {
	return m.undo().hist.Root(a)
}

// undoShown are the actions the filter lets through, newest first.
func (m model) undoShown() []journal.Action {
	u := m.undo()
	if u.filter.Text() == "" {
		return u.actions
	}
	var out []journal.Action
	for _, a := range u.actions {
		if u.filter.Match(a.ID + " " + a.Op + " " + actionWhat(a) + " " + m.actionState(a)) {
			out = append(out, a)
		}
	}
	return out
}

// undoIDs are the shown actions' IDs.
func (m model) undoIDs() []string {
	return widgets.IDs(m.undoShown(), func(a journal.Action) string { return a.ID })
}

// onUndoMsg takes the overlay's answers.
func (m model) onUndoMsg(msg tea.Msg) (model, tea.Cmd) {
	u := m.undo()
	switch msg := msg.(type) {
	case journalListed:
		if u == nil || msg.session != m.session || msg.gen != u.gen {
			return m, nil
		}
		v := *u
		v.loading, v.hist, v.notes, v.err = false, msg.hist, msg.notes, msg.err
		v.actions = make([]journal.Action, len(msg.hist.Actions))
		for i, a := range msg.hist.Actions {
			v.actions[len(v.actions)-1-i] = a
		}
		m.overlays.put(&v)
		v.list.Follow(m.undoIDs(), m.undoPage())
	case undoPlanned:
		if u == nil || msg.session != m.session || msg.gen != u.gen || !u.planning {
			return m, nil
		}
		v := *u
		v.planning, v.plan, v.planErr = false, nil, msg.err
		if msg.err == nil {
			v.plan = &msg.plan
		}
		m.overlays.put(&v)
	case undoDone:
		return m.onUndone(msg)
	}
	return m, nil
}

// askUndo asks before the undo, naming keys as they are now and as they
// will be; a plan already refused (a key changed since the action) is
// refused at once, naming the keys.
func (m *model) askUndo(p journal.Plan) tea.Cmd {
	a := p.Action
	if len(p.Conflicts) > 0 {
		return views.Flash(views.FlashError, "%s", refusalText(p, p.Conflicts))
	}
	if settingsOnly(p) {
		return m.askSettingUndo(p)
	}
	lines := []string{fmt.Sprintf("Puts back %d key(s) as they were before %s (%s, %s), checked on every key:",
		len(p.Ops), a.ID, usertext.Sanitize(a.Op), usertext.FormatTime(a.Time.UnixMilli()))}
	if p.Redo {
		lines[0] = fmt.Sprintf("Makes %s (%s, %s) again on %d key(s), checked on every key:", a.ID, usertext.Sanitize(a.Op), usertext.FormatTime(a.Time.UnixMilli()), len(p.Ops))
	}
	for i, op := range p.Ops {
		if i == 3 {
			lines = append(lines, fmt.Sprintf("… and %d more key(s): the preview lists them", len(p.Ops)-3))
			break
		}
		lines = append(lines, usertext.Sanitize(journal.KeyText(op.Key))+":")
		for _, l := range widgets.ChangeLines(rawImage(p.Now[string(op.Key)]), rawImage(op.Put)) {
			lines = append(lines, "  "+l) // under its key, wrapped under the value
		}
	}
	lines = append(lines, atomicText(len(p.Ops)))
	for _, n := range journal.PlanNotes(p) {
		lines = append(lines, usertext.Sanitize(n)+".")
	}
	do := makeUndo(journal.Of(m.writeStore()), m.writeStore(), m.session, m.undo().gen, p)
	verb := "Undo"
	if p.Redo {
		verb = "Redo"
	}
	return views.Confirm(verb+" "+a.ID+"?", strings.ToLower(verb), do, lines...)
}

// atomicText says how many commits an undo of n keys takes and what a
// change by another writer does to it.
func atomicText(n int) string {
	if n <= journal.UndoChunk {
		return "One commit: if anyone changed one of these keys since, nothing is written."
	}
	return fmt.Sprintf("Every key is checked first: if anyone changed one, nothing is written. Then %d commits of up to %d keys (a live service commits between them); one refused part-way stops the rest.", (n+journal.UndoChunk-1)/journal.UndoChunk, journal.UndoChunk)
}

// onUndone reports the undo: done, or refused with the keys that changed.
func (m model) onUndone(msg undoDone) (model, tea.Cmd) {
	if msg.session != m.session {
		return m, nil
	}
	p, res := msg.plan, msg.res
	id, verb := p.Action.ID, p.Verb()
	var text views.FlashMsg
	switch {
	case msg.err != nil && errors.Is(msg.err, journal.ErrNotUndoable):
		text = views.FlashMsg{Level: views.FlashError, Text: fmt.Sprintf("%s %s: %v", verb, id, msg.err)}
	case msg.err != nil:
		text = views.FlashMsg{Level: views.FlashError, Text: fmt.Sprintf("%s %s failed after %d key(s): %v", verb, id, res.Restored, msg.err)}
	case res.SeqBelow > 0:
		text = views.FlashMsg{Level: views.FlashError, Text: fmt.Sprintf("%s %s refused, nothing was written: the store's seq went down to %d, below stamp %d this journal recorded (the database was recreated or copied back)", verb, id, res.SeqBelow, p.MinSeq)}
	case !res.OK && res.Restored == 0:
		text = views.FlashMsg{Level: views.FlashError, Text: refusalText(p, res.Conflicts)}
	case res.OK && settingsOnly(p):
		text = m.settingsSet(p, res)
	case !res.OK:
		text = views.FlashMsg{Level: views.FlashError, Text: fmt.Sprintf("%s %s stopped part-way: %d of %d key(s) restored (action %s), then a key changed: %s", verb, id, res.Restored, len(p.Ops), res.Action, conflictList(res.Conflicts))}
	default:
		at := ""
		if res.First != "" {
			at = " at stamp " + res.First + " (restored rows get a new versionstamp)"
		}
		again := "R in z redoes it"
		if p.Redo {
			again = "z undoes it again"
		}
		text = views.FlashMsg{Level: views.FlashOK, Text: fmt.Sprintf("%s %s (%s): %s%s; %s", map[bool]string{false: "undone", true: "redone"}[p.Redo], id, usertext.Sanitize(p.Action.Op), journal.DoneText(p, res.Restored), at, again)}
	}
	out := m.flash.show(text)
	if m.undo() == nil || msg.gen != m.undo().gen {
		return m, out
	}
	v := *m.undo()
	m.overlays.put(&v)
	j := v.j
	if msg.err == nil && !res.OK && res.Restored == 0 {
		// Refused: the preview again, read now, marks the keys that
		// changed with their stamp and value.
		v.plan, v.planErr, v.planning = nil, nil, true
		return m, tea.Batch(out, planUndo(j, m.writeStore(), m.session, v.gen, id, p.Redo))
	}
	// Back to the list, read again: the undo is an action of its own.
	v.plan, v.planErr, v.planning, v.loading = nil, nil, false, true
	v.list = widgets.ListCursor{}
	return m, tea.Batch(out, listJournal(j, m.writeStore(), m.session, v.gen, v.undoOff != ""))
}

// refusalText names the keys that changed since the action: their stamp
// and value now (the first few, and how many).
func refusalText(p journal.Plan, conflicts []journal.Conflict) string {
	return fmt.Sprintf("%s %s refused, nothing was written: %s changed since the action: %s", p.Verb(), p.Action.ID, journal.ChangedText(conflicts), conflictList(conflicts))
}

// conflictList names up to three conflicts.
func conflictList(conflicts []journal.Conflict) string {
	var parts []string
	for i, c := range conflicts {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(conflicts)-3))
			break
		}
		parts = append(parts, usertext.Sanitize(c.Text()))
	}
	return strings.Join(parts, "; ")
}

// rawImage is a physical row as a preview shows it (nil: no row).
func rawImage(r *store.RawRow) *widgets.RowImage {
	if r == nil {
		return nil
	}
	return &widgets.RowImage{Value: r.Value, ExpiresAt: r.ExpiresAt}
}

// undoDetailLines is how many lines the selected action's detail takes.
const undoDetailLines = 4

// undoPage is how many actions the list shows at once.
func (m model) undoPage() int {
	h := max(m.height-3, 1)
	return max(h-3-2-undoDetailLines, 1)
}

// undoView draws the overlay: the journal, or an action's preview.
func (m model) undoView(h int) string {
	u, st := m.undo(), m.styles
	if u.previewing() {
		lines := m.previewLines()
		title := "UNDO · PREVIEW"
		if u.redo {
			title = "REDO · PREVIEW"
		}
		return m.scrolledAt(title, lines, h, clampHelp(u.off, len(lines), max(h-3, 1)))
	}
	w := m.width - 4
	lines := []string{}
	switch {
	case u.filter.Typing() || u.filter.Text() != "":
		lines = append(lines, u.filter.View())
	default:
		lines = append(lines, st.Muted.Render(widgets.FitWidth(fmt.Sprintf("%d action(s), newest first · one per command or key", len(u.actions)), w)))
	}
	shown := m.undoShown()
	switch {
	case u.loading && len(u.actions) == 0:
		lines = append(lines, st.Muted.Render("reading the journal…"))
	case u.err != nil:
		lines = append(lines, widgets.ProseLines(widgets.Sanitize(u.err.Error()), st.Error, w)...)
	case len(u.actions) == 0:
		lines = append(lines, widgets.ProseLines("No journaled write yet: every write kvdeck makes on this store (here or from the CLI) lands here, one action per command or key, and z undoes it.", st.Muted, w)...)
	case len(shown) == 0:
		lines = append(lines, st.Muted.Render(u.filter.Nothing()))
	}
	for _, n := range u.notes {
		lines = append(lines, st.Warn.Render(widgets.FitWidth(widgets.Sanitize("skipped: "+n.String()), w)))
	}
	page := m.undoPage()
	from, to := u.list.Window(len(shown), page)
	for i := from; i < to; i++ {
		lines = append(lines, m.actionLine(shown[i], i == u.list.Cur, w))
	}
	for len(lines) < page+1 {
		lines = append(lines, "")
	}
	if a, ok := widgets.Selected(u.list, shown); ok {
		lines = append(lines, st.Muted.Render(strings.Repeat("─", max(w, 1))))
		detail := m.actionDetail(a, w)
		lines = append(lines, detail[:min(len(detail), undoDetailLines)]...)
	}
	title := "UNDO · the write journal"
	if u.undoOff != "" {
		title += " · read-only: undo is off (--no-journal or KVDECK_JOURNAL=off)"
	}
	return m.scrolledAt(title, lines, h, 0)
}

// actionLine is one action in the list: id, time, state, command and
// its first key.
func (m model) actionLine(a journal.Action, selected bool, w int) string {
	mark := "  "
	if selected {
		mark = "❯ "
	}
	what := a.Op
	if what == "" && len(a.Entries) > 0 {
		what = a.Entries[0].Kind
	}
	what += " · " + actionWhat(a)
	text := fmt.Sprintf("%s%-8s  %s  %-11s  %s", mark, a.ID, strings.Replace(usertext.FormatTimeFixed(a.Time.UnixMilli())[5:19], "T", " ", 1), widgets.ClipText(m.actionState(a), 11), what)
	text = widgets.FitWidth(widgets.Sanitize(text), w)
	switch {
	case selected:
		return m.styles.Selected.Render(text)
	case a.Undoes != "" || m.undo().hist.Undoable(a) != nil:
		return m.styles.Muted.Render(text)
	}
	return m.styles.Text.Render(text)
}

// actionState is an action's state in a word or two: what undo would do
// with it.
func (m model) actionState(a journal.Action) string {
	h := m.undo().hist
	switch {
	case a.Life < h.NewestLife:
		return "old db life"
	case a.Undoes != "":
		if t, ok := h.Action(a.Undoes); ok && t.Undoes != "" {
			return "redo"
		}
		return "undo"
	case h.Undone(a):
		return "undone"
	}
	switch o := a.Outcome(); o {
	case "applied":
		if h.Undoable(a) != nil {
			return "not undoable"
		}
		return "applied"
	default:
		return o
	}
}

// actionDetail says all about the selected action: its outcome, writes
// and keys first (what a short screen must show), then its stamps, its
// database life and what undo and redo would do.
func (m model) actionDetail(a journal.Action, w int) []string {
	h, st := m.undo().hist, m.styles
	head := fmt.Sprintf("%s %s · %s · %d write(s) · %d key(s)", a.ID, a.Op, a.Outcome(), len(a.Entries), a.KeyCount)
	var ks []string
	for i, k := range a.FirstKeys {
		if i == 3 {
			ks = append(ks, fmt.Sprintf("+%d more", a.KeyCount-3))
			break
		}
		ks = append(ks, journal.KeyText(k))
	}
	out := widgets.ProseLines(widgets.Sanitize(head), st.Text, w)
	out = append(out, widgets.ProseLines(widgets.Sanitize(keysLine(a, ks)), st.Text, w)...)
	var state []string
	if first, last := a.Stamps(); first != "" {
		stamps := "stamp " + first
		if last != first {
			stamps = "stamps " + first + " to " + last
		}
		state = append(state, stamps)
	}
	switch {
	case a.Undoes != "":
		root := h.Root(a)
		state = append(state, "takes back "+a.Undoes+" (of "+root.ID+" "+root.Op+")")
	case h.Undone(a):
		chain := h.Chain(a)
		state = append(state, "undone by "+chain[len(chain)-1].ID+redoHint(m.undo()))
	default:
		switch err := h.Undoable(a); {
		case err != nil:
			state = append(state, strings.TrimPrefix(err.Error(), journal.ErrNotUndoable.Error()+": "))
		case m.undo().undoOff != "":
			state = append(state, "kvdeck undo "+a.ID+" undoes it (not this session: it journals nothing)")
		default:
			state = append(state, "enter previews its undo")
		}
	}
	if h.NewestLife > 0 {
		state = append(state, fmt.Sprintf("database life %d of %d", a.Life+1, h.NewestLife+1))
	}
	for _, e := range a.Entries {
		if e.Settled && e.Why != "" {
			state = append(state, e.ID+" settled: "+e.Why)
			break
		}
	}
	return append(out, widgets.ProseLines(widgets.Sanitize(strings.Join(state, " · ")), st.Muted, w)...)
}

// redoHint says how an undone action is redone: R, or the CLI when this
// session journals nothing.
func redoHint(u *undoState) string {
	if u != nil && u.undoOff != "" {
		return ": kvdeck redo redoes it"
	}
	return ": R redoes it"
}

// keysText is an action's first key and how many more (of n).
func keysText(first [][]byte, n int) string {
	switch {
	case len(first) == 0:
		return "-"
	case n == 1:
		return journal.KeyText(first[0])
	}
	return fmt.Sprintf("%s +%d", journal.KeyText(first[0]), n-1)
}

// previewKeys is how many keys the preview lists (those that refuse it
// first).
const previewKeys = 200

// previewLines is the preview of the selected action's undo or redo: per
// key, now → will be; the keys changed since the action, which refuse it;
// what cannot be taken back; what it changes besides the rows.
func (m model) previewLines() []string {
	u, st, w := m.undo(), m.styles, m.width-6
	lines := []string{""}
	if u.planning {
		return append(lines, st.Muted.Render("reading the keys…"))
	}
	if u.planErr != nil {
		return append(lines, widgets.ProseLines(widgets.Sanitize("This action cannot be "+map[bool]string{false: "undone", true: "redone"}[u.redo]+": "+u.planErr.Error()), st.Error, w)...)
	}
	p := u.plan
	if settingsOnly(*p) {
		return append(lines[:0], m.settingPreview(*p)...)
	}
	a := p.Action
	verb := "Undo"
	if p.Redo {
		verb = "Redo"
	}
	head := fmt.Sprintf("%s %s: %s of %s, %d write(s), %s. Per key, as it is now → as the %s leaves it:", verb, a.ID, a.Op,
		usertext.FormatTime(a.Time.UnixMilli()), len(a.Entries), a.Outcome(), strings.ToLower(verb))
	lines = append(lines, widgets.ProseLines(widgets.Sanitize(head), st.Text, w)...)
	lines = append(lines, m.previewKeyLines(*p, verb, w)...)
	for _, sk := range p.Skipped {
		lines = append(lines, "")
		lines = append(lines, widgets.ProseLines(widgets.Sanitize(fmt.Sprintf("Not taken back: %d key(s) of write %s: %s", len(sk.Keys), sk.Entry, sk.Why)), st.Warn, w)...)
	}
	lines = append(lines, "")
	if len(p.Conflicts) > 0 {
		lines = append(lines, widgets.ProseLines(fmt.Sprintf("The %s would be refused: %d key(s) changed since the action (another writer, or a later action of yours). Nothing would be written.", strings.ToLower(verb), len(p.Conflicts)), st.Error, w)...)
		return lines
	}
	for _, n := range journal.PlanNotes(*p) {
		lines = append(lines, widgets.ProseLines(widgets.Sanitize(capitalize(n)+"."), st.Warn, w)...)
	}
	for _, n := range m.ownLeaseNotes(*p) {
		lines = append(lines, widgets.ProseLines(widgets.Sanitize(n), st.Accent, w)...)
	}
	lines = append(lines, widgets.ProseLines("enter asks, then "+strings.ToLower(atomicText(len(p.Ops))[:1])+atomicText(len(p.Ops))[1:], st.Muted, w)...)
	return lines
}

// ownLeaseNotes name the leases the plan puts back that this session
// acquired (the Leases tab knows their holder, a random id per
// acquisition): they come back under a new stamp, and the Leases tab
// calls them kvdeck's again at it, so d releases them.
func (m model) ownLeaseNotes(p journal.Plan) []string {
	var notes []string
	for _, op := range p.Ops {
		if op.Put == nil {
			continue
		}
		k, err := codec.Decode(op.Key)
		if err != nil {
			continue
		}
		var v struct {
			Holder string `json:"holder"`
		}
		if json.Unmarshal(op.Put.Value, &v) != nil || !m.tabs.leases.Acquired(k, v.Holder) {
			continue
		}
		notes = append(notes, fmt.Sprintf("Not for kvdeck: %s is its own lease (acquired in this session as holder %s): the Leases tab takes it back as kvdeck's at its new stamp, and d releases it.", codec.Format(k), v.Holder))
	}
	return notes
}

// previewKeyLines are the preview's keys, those changed since the action
// (which refuse it) first, each as it is now → as the undo or redo leaves
// it; the first previewKeys of them.
func (m model) previewKeyLines(p journal.Plan, verb string, w int) []string {
	st := m.styles
	conflict := map[string]journal.Conflict{}
	for _, c := range p.Conflicts {
		conflict[string(c.Key)] = c
	}
	ops := make([]store.RestoreOp, 0, len(p.Ops))
	for _, op := range p.Ops {
		if _, ok := conflict[string(op.Key)]; ok {
			ops = append(ops, op)
		}
	}
	for _, op := range p.Ops {
		if _, ok := conflict[string(op.Key)]; !ok {
			ops = append(ops, op)
		}
	}
	var lines []string
	for i, op := range ops {
		if i == previewKeys {
			lines = append(lines, "", st.Muted.Render(fmt.Sprintf("… and %d more key(s) (kvdeck %s %s -o json lists them)", len(ops)-i, strings.ToLower(verb), p.Action.ID)))
			break
		}
		lines = append(lines, "", st.Label.Render(widgets.ClipText(widgets.Sanitize(journal.KeyText(op.Key)), w)))
		for _, l := range widgets.ChangeLines(rawImage(p.Now[string(op.Key)]), rawImage(op.Put)) {
			lines = append(lines, indented(widgets.Sanitize(l), st.Text, w)...)
		}
		if c, ok := conflict[string(op.Key)]; ok {
			lines = append(lines, indented(widgets.Sanitize("✗ changed since the action: "+c.Text()), st.Error, w)...)
		}
	}
	return lines
}

// indented wraps text under a key, indented by two cells; a field's
// wrapped lines start under its value (widgets.WrapHanging).
func indented(text string, style lipgloss.Style, w int) []string {
	lines := widgets.WrapHanging("  "+text, w)
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}

// scrolledAt draws lines in a framed page under title from offset off.
func (m model) scrolledAt(title string, lines []string, h, off int) string {
	page := max(h-3, 1)
	shown := append([]string{m.styles.PaneTitle.Render(widgets.ClipText(title, m.width-4))}, lines[off:min(off+page, len(lines))]...)
	return widgets.Pane(m.styles.PaneFocused, strings.Join(shown, "\n"), m.width, h)
}

// undoHelp is the overlay's one-line help: the keys that do something
// now (no "make it" on a preview that would be refused).
func (m model) undoHelp() []key.Binding {
	k, u := m.undoKeys, m.undo()
	switch {
	case u.filter.Typing():
		return u.filter.Help()
	case u.previewing():
		if u.plan != nil && len(u.plan.Conflicts) == 0 {
			return []key.Binding{k.Undo, k.Back}
		}
		return []key.Binding{k.Back}
	case u.undoOff != "":
		// Read-only: enter and R say why they do nothing; help offers
		// neither.
		return []key.Binding{k.Filter.Filter, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom, k.Nav.Up, k.Nav.Down, k.Reload, k.Close}
	}
	return []key.Binding{k.Preview, k.Redo, k.Filter.Filter, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom, k.Nav.Up, k.Nav.Down, k.Reload, k.Close}
}
