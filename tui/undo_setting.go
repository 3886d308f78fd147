package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// The undo overlay's words for an entry that changed a store-level
// setting (a file's journal mode, `kvdeck wal`): it names no key, and
// its undo sets the value back (journal.SettingPlan).

// entryWhat is what the list shows of an entry in its KEYS column: its
// keys, or the setting it changed and the value it set (the preview
// shows the one before).
func entryWhat(e journal.Entry) string {
	if c := e.Setting; c != nil {
		return c.Name + " → " + c.To
	}
	return keysText(e.Keys)
}

// settingPreview is the preview of a setting's undo: the setting as it
// is now and as the undo leaves it, and why it would be refused.
func (m model) settingPreview(p journal.Plan) []string {
	st, w, sp, e := m.styles, m.width-6, p.Setting, p.Entry
	head := fmt.Sprintf("Undo %s: %s (%s) of %s, %s. The setting as it is now → as the undo leaves it:", e.ID, e.Op, e.Kind,
		usertext.FormatTime(e.Time.UnixMilli()), entryOutcome(e))
	lines := append([]string{""}, widgets.ProseLines(head, st.Text, w)...)
	lines = append(lines, "", st.Label.Render(sp.Change.Name), "  "+st.Text.Render(sp.Now+" → "+sp.Change.To), "")
	if why := sp.Conflict(); why != "" {
		return append(lines, widgets.ProseLines("The undo would be refused: "+why+". Nothing would be changed.", st.Error, w)...)
	}
	return append(lines, widgets.ProseLines("enter asks, then sets it back, tried once without waiting: refused while another process has the file open or a connection is using it. Undoing the undo redoes.", st.Muted, w)...)
}

// askSettingUndo asks before a setting's undo (refused at once when the
// setting changed since).
func (m *model) askSettingUndo(p journal.Plan) tea.Cmd {
	e, sp := p.Entry, p.Setting
	if why := sp.Conflict(); why != "" {
		return views.Flash(views.FlashError, "undo %s refused, nothing was changed: %s", e.ID, why)
	}
	do := makeUndo(journal.Of(m.store), m.store, m.session, m.undo.gen, p)
	return views.Confirm("Undo "+e.ID+"?", "undo", do,
		fmt.Sprintf("Sets %s of %s back from %s to %s, as before %s (%s, %s).", sp.Change.Name, m.info.Display, sp.Now, sp.Change.To,
			e.ID, e.Op, usertext.FormatTime(e.Time.UnixMilli())),
		"Refused, with nothing changed, while another process has the file open or a connection is using it.")
}

// settingUndone is the flash of a setting's undo done, and the store's
// description read again (its journal mode changed: the status bar's
// mark follows).
func (m *model) settingUndone(p journal.Plan) views.FlashMsg {
	m.info = m.store.Info()
	return views.FlashMsg{Level: views.FlashOK, Text: fmt.Sprintf("undone %s (%s): %s is %s again; z again lists it, and undoing the undo redoes",
		p.Entry.ID, p.Entry.Op, p.Setting.Change.Name, p.Setting.Change.To)}
}
