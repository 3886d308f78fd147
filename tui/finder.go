package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// The key finder (ctrl+p, :find TEXT): the keys of the
// whole store whose text contains what is typed, found in the database
// (store.FindKeys: instr on the encoded key, confirmed by decoding), page
// after page in commands, at most store.DefaultFindMax of them. esc stops
// a scan between pages (the page in flight is dropped), then closes;
// enter on a match jumps to it in Browse (a jump: [ comes back). The
// texts found are kept for the session: with an empty line, the list
// shows them, and enter finds one again.

// maxRecentFinds bounds the recent finds kept.
const maxRecentFinds = 20

// finderState is the overlay (overlay.go) while it is open.
type finderState struct {
	opaque
	gen      int // tags the pages of the scan running
	input    textinput.Model
	text     string // what the list's matches contain ("" before a find)
	scanning bool
	stopped  bool // esc stopped the scan
	matches  []store.FoundKey
	scanned  int // keys read so far
	pages    int
	err      error
	cursor   int
}

// finderKeys are the overlay's keys.
type finderKeys struct {
	Up, Down, Enter, Cancel key.Binding
}

func defaultFinderKeys() finderKeys {
	return finderKeys{
		Up:     key.NewBinding(key.WithKeys("up", "ctrl+k"), key.WithHelp("↑", "previous")),
		Down:   key.NewBinding(key.WithKeys("down", "ctrl+j"), key.WithHelp("↓", "next")),
		Enter:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "find / jump to the key in Browse")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop the scan, close")),
	}
}

// finderPage is one page's answer, tagged with the session and the scan.
type finderPage struct {
	session, gen int
	text         string
	page         store.FindPage
	err          error
}

func (p finderPage) overlayGen() int { return p.gen }

func (*finderState) layer() layer { return layerFinder }

func (*finderState) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handleFinder(msg))
}

func (*finderState) draw(m model, _ string, h int) string { return m.finderView(h) }

func (*finderState) help(m model) ([]key.Binding, bool) { return m.finderHelp(), true }

func (f *finderState) generation() int { return f.gen }

func (*finderState) answer(m model, msg tea.Msg) (model, tea.Cmd) {
	return answerWith(m, msg, model.onFinderPage)
}

// finder is the finder open, nil when none is.
func (m model) finder() *finderState { return opened[*finderState](m.overlays) }

// findPage reads the page after raw key after.
func findPage(s *store.Store, session, gen int, text string, after []byte, limit int) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		p, err := s.FindKeys(ctx, text, after, limit)
		return finderPage{session: session, gen: gen, text: text, page: p, err: err}
	})
}

// openFinder opens the overlay; a text finds at once (:find TEXT).
func (m model) openFinder(text string) (model, tea.Cmd) {
	in := widgets.NewInput("find ", "text in a key (string or bytes parts)", m.styles)
	in.Width = max(m.width-12, 10)
	in.SetValue(text)
	f := &finderState{input: in}
	m.overlays.put(f)
	focus := f.input.Focus()
	if text == "" {
		return m, focus
	}
	next, cmd := m.startFind(text)
	return next, tea.Batch(focus, cmd)
}

// startFind starts a scan for text (dropping the one running).
func (m model) startFind(text string) (model, tea.Cmd) {
	f := *m.finder()
	m.overlays.put(&f)
	f.gen, f.text, f.scanning, f.stopped = m.overlays.newGen(), text, true, false
	f.matches, f.scanned, f.pages, f.err, f.cursor = nil, 0, 0, nil, 0
	m.finds = slices.DeleteFunc(m.finds, func(s string) bool { return s == text })
	m.finds = append([]string{text}, m.finds...)
	if len(m.finds) > maxRecentFinds {
		m.finds = m.finds[:maxRecentFinds]
	}
	return m, findPage(m.store, m.session, f.gen, text, nil, store.DefaultFindMax)
}

// handleFinder handles keys while the overlay is open.
func (m model) handleFinder(msg tea.KeyMsg) (model, tea.Cmd) {
	f, k := *m.finder(), m.finderKeys
	m.overlays.put(&f)
	typed := strings.TrimSpace(f.input.Value())
	switch {
	case key.Matches(msg, k.Cancel):
		if f.scanning {
			f.scanning, f.stopped = false, true
			f.gen = m.overlays.newGen() // the page in flight is dropped
			return m, nil
		}
		m.overlays.drop(layerFinder)
		return m, nil
	case key.Matches(msg, k.Up):
		f.cursor = max(f.cursor-1, 0)
		return m, nil
	case key.Matches(msg, k.Down):
		f.cursor = max(min(f.cursor+1, m.finderRows()-1), 0)
		return m, nil
	case key.Matches(msg, k.Enter):
		switch {
		case typed == "" && f.cursor < len(m.finds):
			f.input.SetValue(m.finds[f.cursor])
			f.input.CursorEnd()
			return m.startFind(m.finds[f.cursor])
		case typed == "":
			return m, nil
		case typed != f.text:
			return m.startFind(typed)
		case f.cursor < len(f.matches):
			to := f.matches[f.cursor].Key
			m.overlays.drop(layerFinder)
			return m.gotoKey(to)
		}
		return m, nil
	}
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(msg)
	if strings.TrimSpace(f.input.Value()) != typed {
		f.cursor = 0
	}
	return m, cmd
}

// finderRows is how many rows the list shows: the matches, or the recent
// finds while the line is empty.
func (m model) finderRows() int {
	if strings.TrimSpace(m.finder().input.Value()) == "" {
		return len(m.finds)
	}
	return len(m.finder().matches)
}

// onFinderPage takes a page: its matches join the list, and the next
// page is asked for until the bound or the end of the store.
func (m model) onFinderPage(msg finderPage) (model, tea.Cmd) {
	if m.finder() == nil || msg.session != m.session || msg.gen != m.finder().gen || !m.finder().scanning {
		return m, nil
	}
	f := *m.finder()
	m.overlays.put(&f)
	f.pages++
	if msg.err != nil {
		f.err, f.scanning = msg.err, false
		return m, nil
	}
	f.matches = append(f.matches, msg.page.Matches...)
	f.scanned += msg.page.Scanned
	if msg.page.Next == nil || len(f.matches) >= store.DefaultFindMax {
		f.scanning = false
		return m, nil
	}
	return m, findPage(m.store, m.session, f.gen, f.text, msg.page.Next, store.DefaultFindMax-len(f.matches))
}

// finderStatus says where the scan is.
func (f *finderState) status() string {
	n := len(f.matches)
	switch {
	case f.err != nil:
		return "find failed: " + f.err.Error()
	case f.scanning:
		return fmt.Sprintf("scanning… %d key(s) read, %d found · esc stops", f.scanned, n)
	case f.stopped:
		return fmt.Sprintf("stopped after %d key(s): %d found", f.scanned, n)
	case n >= store.DefaultFindMax:
		return fmt.Sprintf("the first %d matches (%d key(s) read): type more to narrow", n, f.scanned)
	}
	return fmt.Sprintf("%d found in %d key(s)", n, f.scanned)
}

// finderView draws the overlay.
func (m model) finderView(h int) string {
	f, st, w := m.finder(), m.styles, m.width-4
	lines := []string{f.input.View(), ""}
	typed := strings.TrimSpace(f.input.Value())
	var rows []string
	switch {
	case typed == "":
		if len(m.finds) == 0 {
			lines = append(lines, st.Muted.Render(widgets.FitWidth("Type text that a key's string or bytes part contains; enter finds it in the whole store. Numbers do not match.", w)))
		} else {
			lines = append(lines, st.Label.Render("recent finds (enter finds again)"))
		}
		for _, s := range m.finds {
			rows = append(rows, widgets.FitWidth(widgets.Sanitize(s), w-3))
		}
	case f.text == "" || typed != f.text && !f.scanning:
		lines = append(lines, st.Muted.Render("enter finds it"))
	default:
		style := st.Muted
		if f.err != nil {
			style = st.Error
		}
		lines = append(lines, style.Render(widgets.FitWidth(widgets.Sanitize(f.status()), w)))
		for _, fk := range f.matches {
			rows = append(rows, m.highlight(codec.Format(fk.Key), f.text, w-3))
		}
	}
	page := max(h-3-len(lines), 1)
	from, to := widgets.Centered(f.cursor, len(rows), page)
	for i := from; i < to; i++ {
		if i == f.cursor {
			lines = append(lines, st.Selected.Render(" ❯ ")+rows[i])
		} else {
			lines = append(lines, "   "+rows[i])
		}
	}
	return m.scrolledAt("FIND · keys across the store", lines, h, 0)
}

// highlight is a key's text, sanitized and fitted to w cells, with the
// first occurrence of needle (as the text shows it) marked.
func (m model) highlight(text, needle string, w int) string {
	text = widgets.FitWidth(widgets.Sanitize(text), w)
	shown := widgets.Sanitize(needle)
	i := strings.Index(text, shown)
	if i < 0 || shown == "" {
		return m.styles.Text.Render(text)
	}
	j := i + len(shown)
	return m.styles.Text.Render(text[:i]) + m.styles.Accent.Bold(true).Underline(true).Render(text[i:j]) + m.styles.Text.Render(text[j:])
}

// finderHelp is the overlay's one-line help.
func (m model) finderHelp() []key.Binding {
	k := m.finderKeys
	return []key.Binding{k.Enter, k.Up, k.Down, k.Cancel}
}
