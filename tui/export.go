package tui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/internal/dumpfile"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
)

// Export to a dump file: the bulk menu's o writes the
// marked keys' current rows as `kvdeck dump` lines (internal/dumpfile),
// which `kvdeck load` and `kvdeck diff` read. A prompt asks for the path
// (an existing file is replaced only when enter is pressed again); the
// rows are read exportPage keys per statement in commands, written to a
// temporary file (0600) beside the target and renamed onto it at the end,
// so esc, which stops between pages, leaves no file. A read: no journal.

// exportPage is how many keys one read asks for.
const exportPage = 200

// bulkExportKey is the bulk menu's export entry, in every tab's menu.
var bulkExportAction = views.BulkAction{Key: "o", Name: "export to a dump file"}

// exportRun is an export being asked for or running, an overlay
// (overlay.go): its prompt over the body, then its progress on the
// message line.
type exportRun struct {
	bare
	gen       int
	what      string
	keys      []codec.Key
	input     textinput.Model
	overwrite bool // the path exists and enter replaces it
	path      string
	tmp       *os.File
	w         *bufio.Writer
	now       int64
	next      int  // keys read
	written   int  // rows written
	running   bool // enter was pressed: opening, then reading
	stopping  bool
}

func (*exportRun) layer() layer { return layerExport }

func (*exportRun) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handleExport(msg))
}

func (e *exportRun) draw(m model, body string, h int) string {
	if e.running {
		return body
	}
	return m.over(body, m.exportView(), h)
}

func (e *exportRun) line(m model) (string, bool) {
	if !e.running {
		return "", false
	}
	return m.exportProgress(), true
}

func (e *exportRun) generation() int { return e.gen }

func (*exportRun) answer(m model, msg tea.Msg) (model, tea.Cmd) { return m.onExportMsg(msg) }

// export is the export open, nil when none is.
func (m model) export() *exportRun { return opened[*exportRun](m.overlays) }

type (
	// exportOpened answers the open of the temp file (or that the path exists).
	exportOpened struct {
		gen    int
		tmp    *os.File
		exists bool
		err    error
	}
	// exportPaged answers one page: the rows written.
	exportPaged struct {
		gen, n int
		err    error
	}
)

func (o exportOpened) overlayGen() int { return o.gen }
func (p exportPaged) overlayGen() int  { return p.gen }

// exportDefault is the path offered: kvdeck-export-<store>-<time>.jsonl in
// the current directory.
func (m model) exportDefault() string {
	name := filepath.Base(strings.TrimSuffix(m.info.Display, "/"))
	name = strings.TrimSuffix(name, filepath.Ext(name))
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
	if name == "" {
		name = "store"
	}
	t := time.UnixMilli(m.store.Now()).UTC().Format("20060102-150405")
	return fmt.Sprintf("kvdeck-export-%s-%s.jsonl", name, t)
}

// startExport opens the path prompt for req's keys.
func (m model) startExport(req views.BulkMsg) (model, tea.Cmd) {
	in := textinput.New()
	in.Prompt = "file: "
	in.CharLimit = 4096
	in.SetValue(m.exportDefault())
	in.CursorEnd()
	e := &exportRun{gen: m.overlays.newGen(), what: req.What, keys: req.Keys, input: in}
	m.overlays.put(e)
	return m, e.input.Focus()
}

// handleExport: at the prompt, enter starts (or, over an existing file,
// asks again) and esc cancels; while running, esc stops between pages.
func (m model) handleExport(msg tea.KeyMsg) (model, tea.Cmd) {
	e := *m.export()
	if e.running {
		if key.Matches(msg, m.input.Cancel) {
			e.stopping = true
			m.overlays.put(&e)
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, m.input.Cancel):
		m.overlays.drop(layerExport)
		return m, nil
	case msg.Type == tea.KeyEnter:
		path := strings.TrimSpace(e.input.Value())
		if path == "" {
			return m, nil
		}
		replace := e.overwrite && path == e.path
		e.path, e.overwrite, e.running = path, false, true
		e.now = m.store.Now()
		m.overlays.put(&e)
		return m, exportOpen(e.gen, path, replace)
	}
	var cmd tea.Cmd
	e.input, cmd = e.input.Update(msg)
	e.overwrite = false
	m.overlays.put(&e)
	return m, cmd
}

// exportOpen creates the temporary file beside path, unless path exists
// and replace is false.
func exportOpen(gen int, path string, replace bool) tea.Cmd {
	return func() tea.Msg {
		if _, err := os.Lstat(path); err == nil && !replace {
			return exportOpened{gen: gen, exists: true}
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return exportOpened{gen: gen, err: err}
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), ".kvdeck-export-*.tmp") // 0600
		return exportOpened{gen: gen, tmp: tmp, err: err}
	}
}

// onExportMsg handles the export's answers.
func (m model) onExportMsg(msg tea.Msg) (model, tea.Cmd) {
	if m.export() == nil {
		return m, nil
	}
	e := *m.export()
	switch msg := msg.(type) {
	case exportOpened:
		if msg.gen != e.gen {
			return m, nil
		}
		switch {
		case msg.err != nil:
			m.overlays.drop(layerExport)
			return m, views.Flash(views.FlashError, "export: %v", msg.err)
		case msg.exists:
			e.overwrite, e.running = true, false
			m.overlays.put(&e)
			return m, nil
		}
		e.tmp, e.w = msg.tmp, bufio.NewWriter(msg.tmp)
		m.overlays.put(&e)
		return m, m.exportRead()
	case exportPaged:
		if msg.gen != e.gen {
			return m, nil
		}
		e.written += msg.n
		e.next = min(e.next+exportPage, len(e.keys))
		m.overlays.put(&e)
		if msg.err == nil && !e.stopping && e.next < len(e.keys) {
			return m, m.exportRead()
		}
		m.overlays.drop(layerExport)
		return m, exportFinish(e, msg.err)
	}
	return m, nil
}

// exportRead reads and writes the next page of keys in a command.
func (m model) exportRead() tea.Cmd {
	e := m.export()
	keys := e.keys[e.next:min(e.next+exportPage, len(e.keys))]
	s, w, gen, now := m.store, e.w, e.gen, e.now
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), views.WriteTimeout)
		defer cancel()
		rows, err := s.GetMany(ctx, keys)
		if err != nil {
			return exportPaged{gen: gen, err: err}
		}
		return exportPaged{gen: gen, n: writeRows(w, rows, now), err: w.Flush()}
	}
}

// writeRows writes the present rows as dump lines; the count written.
func writeRows(w *bufio.Writer, rows []*store.Entry, now int64) int {
	d := dumpfile.NewWriter(w, now)
	for _, r := range rows {
		if r != nil && d.Write(*r) != nil {
			break // the write error shows again at Flush
		}
	}
	return d.N
}

// exportFinish closes the temporary file and renames it onto the path, or
// removes it when the export failed or was stopped; the flash says which.
func exportFinish(e exportRun, err error) tea.Cmd {
	stopped := err == nil && e.next < len(e.keys)
	return func() tea.Msg {
		cerr := e.tmp.Close()
		if err == nil && !stopped {
			err = cerr
		}
		if err == nil && !stopped {
			err = os.Rename(e.tmp.Name(), e.path)
		}
		if err != nil || stopped {
			_ = os.Remove(e.tmp.Name())
		}
		path := usertext.Sanitize(e.path)
		switch {
		case err != nil:
			return views.FlashMsg{Level: views.FlashError, Text: fmt.Sprintf("export failed, nothing written: %v", err)}
		case stopped:
			return views.FlashMsg{Level: views.FlashInfo, Text: fmt.Sprintf("export stopped (esc) after %d of %d keys: nothing written", e.next, len(e.keys))}
		}
		text := fmt.Sprintf("exported %d rows to %s", e.written, path)
		if absent := len(e.keys) - e.written; absent > 0 {
			text += fmt.Sprintf(" (%d keys had no live row)", absent)
		}
		return views.FlashMsg{Level: views.FlashOK, Text: text}
	}
}

// exportView is the prompt over the body.
func (m model) exportView() string {
	e := m.export()
	lines := []string{m.styles.DialogTitle.Render("Export " + usertext.Sanitize(e.what) + " to a dump file"),
		"The rows as `kvdeck dump` writes them: `kvdeck load` and `kvdeck diff` read the file.", "",
		e.input.View(), ""}
	if e.overwrite {
		lines = append(lines, m.styles.FlashError.Render("That file exists: enter replaces it."))
	}
	lines = append(lines, m.styles.HelpDesc.Render("enter  export · esc  cancel"))
	return lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1).Width(min(90, max(m.width-4, 20))).Render(strings.Join(lines, "\n"))
}

// exportProgress is the message line during an export.
func (m model) exportProgress() string {
	e := m.export()
	tail := "esc stops (nothing is written)"
	if e.stopping {
		tail = "stopping…"
	}
	return fit(fmt.Sprintf("exporting %d/%d keys · %d rows · %s", e.next, len(e.keys), e.written, tail), m.width)
}
