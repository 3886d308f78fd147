package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// The undo overlay's words for an action that changed a store-level
// setting and no row (a file's journal mode, `kvdeck wal`): its undo and
// redo set the value back (journal.Plan.Settings), and the store's
// description is read again after, so that the status bar's mark
// follows.

// actionWhat is what the list shows of an action after its command: its
// first keys, or the setting it changed and the value it set.
func actionWhat(a journal.Action) string {
	if ss := a.Settings(); len(ss) > 0 && a.KeyCount == 0 {
		return ss[0].Name + " → " + ss[0].To
	}
	return keysText(a.FirstKeys, a.KeyCount)
}

// keysLine is the detail's line of an action's keys (ks, the first
// ones), or of the settings it changed when it names no key.
func keysLine(a journal.Action, ks []string) string {
	if ss := a.Settings(); len(ss) > 0 && a.KeyCount == 0 {
		var parts []string
		for _, c := range ss {
			parts = append(parts, c.Name+" "+c.From+" → "+c.To)
		}
		return "setting " + strings.Join(parts, ", ")
	}
	return "keys " + strings.Join(ks, ", ")
}

// settingsOnly: the plan sets settings back and puts back no row.
func settingsOnly(p journal.Plan) bool { return len(p.Ops) == 0 && len(p.Settings) > 0 }

// settingPreview is the preview of a settings-only plan: each setting as
// it is now → as the undo leaves it, and what refuses it.
func (m model) settingPreview(p journal.Plan) []string {
	st, w, a := m.styles, m.width-6, p.Action
	verb := map[bool]string{false: "Undo", true: "Redo"}[p.Redo]
	head := fmt.Sprintf("%s %s: %s of %s, %s. The setting as it is now → as the %s leaves it:", verb, a.ID, a.Op,
		usertext.FormatTime(a.Time.UnixMilli()), a.Outcome(), strings.ToLower(verb))
	lines := append([]string{""}, widgets.ProseLines(widgets.Sanitize(head), st.Text, w)...)
	for _, s := range p.Settings {
		lines = append(lines, "", st.Label.Render(s.Change.Name), st.Text.Render("  "+s.Now+" → "+s.Change.To))
		if why := s.Conflict(); why != "" {
			lines = append(lines, indented("✗ changed since the action: "+why, st.Error, w)...)
		}
	}
	lines = append(lines, "")
	if len(p.Conflicts) > 0 {
		return append(lines, widgets.ProseLines(fmt.Sprintf("The %s would be refused: %s changed since the action. Nothing would be changed.", strings.ToLower(verb), journal.ChangedText(p.Conflicts)), st.Error, w)...)
	}
	return append(lines, widgets.ProseLines("enter asks, then sets it back, tried once without waiting: refused, with nothing changed, while another process has the file open or a connection is using it.", st.Muted, w)...)
}

// askSettingUndo asks before a settings-only undo or redo.
func (m *model) askSettingUndo(p journal.Plan) tea.Cmd {
	a := p.Action
	verb := map[bool]string{false: "Undo", true: "Redo"}[p.Redo]
	var lines []string
	for _, s := range p.Settings {
		lines = append(lines, fmt.Sprintf("Sets %s of %s back from %s to %s (%s %s, %s, %s).", s.Change.Name, usertext.Sanitize(m.info.Display), s.Now, s.Change.To,
			strings.ToLower(verb), a.ID, usertext.Sanitize(a.Op), usertext.FormatTime(a.Time.UnixMilli())))
	}
	lines = append(lines, "Refused, with nothing changed, while another process has the file open or a connection is using it.")
	do := makeUndo(journal.Of(m.store), m.store, m.session, m.undo().gen, p)
	return views.Confirm(verb+" "+a.ID+"?", strings.ToLower(verb), do, lines...)
}

// settingsSet is the flash of a settings-only undo or redo made; the
// store's description is read again (its journal mode changed).
func (m *model) settingsSet(p journal.Plan, res journal.Result) views.FlashMsg {
	m.info = m.store.Info()
	var set []string
	for _, c := range res.Set {
		set = append(set, c.Name+" is "+c.To+" again")
	}
	again := "R in z redoes it"
	if p.Redo {
		again = "z undoes it again"
	}
	return views.FlashMsg{Level: views.FlashOK, Text: fmt.Sprintf("%s %s (%s): %s; %s", map[bool]string{false: "undone", true: "redone"}[p.Redo],
		p.Action.ID, usertext.Sanitize(p.Action.Op), strings.Join(set, ", "), again)}
}
