package reader

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/editsession"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// | hands the selected value, any size, to $PAGER (less when unset) or a
// command typed at its prompt, from the tree or the reader: as JSON,
// pretty-printed and sanitized (the reader's L is for the screen only: a
// filter such as jq must get JSON). The value is streamed to the
// command's stdin from the store a chunk at a time (entry.Stream):
// neither kvdeck nor a temporary file holds it whole.
//
// A pager (the last command of the line is $PAGER's, or a known pager)
// gets the terminal. Any other command is a filter: it runs in a command
// of its own while the TUI stays, its output and errors are read (up to
// outputCap bytes) and shown in the entry pane, where esc stops it while
// it runs and closes the output after. The commands typed are kept, the
// newest last (up to historyCap): up and down at the prompt go through
// them.

// The history is kept across sessions (history.go).

// outputCap is how much of a filter's output the entry pane keeps; the
// rest is read and counted, so that the filter is not blocked on a full
// pipe.
const outputCap = 1 << 20

// historyCap is how many commands the prompt's history keeps.
const historyCap = 100

// filterGrace is how long a filter's output pipe is read after it was
// stopped (a child of the shell may hold it open).
const filterGrace = time.Second

// pagerClosed: the pager exited.
type pagerClosed struct {
	err error
}

// OpenPipe opens, on row, the prompt of the command the value is piped
// to, the last command typed (else $PAGER, else less) typed in: enter
// runs it, esc closes it, up and down go through the commands typed.
func (m *Model) OpenPipe(row entry.Row) tea.Cmd {
	if !row.Found {
		return views.Flash(views.FlashInfo, "select a stored key: | hands its value to $PAGER")
	}
	m.row = row
	m.loadHistory()
	in := widgets.NewInput("| ", "a command to pipe the value to", m.styles)
	text := pagerText()
	if n := len(m.history); n > 0 {
		text = m.history[n-1]
	}
	in.SetValue(text)
	in.CursorEnd()
	in.Width = m.promptWidth
	m.pipe = &in
	m.histAt = len(m.history)
	return in.Focus()
}

// PromptView is the pipe prompt, for the parent's footer ("" when closed).
func (m Model) PromptView() string {
	if m.pipe == nil {
		return ""
	}
	return m.pipe.View()
}

// handlePipe edits, runs or closes the command prompt.
func (m Model) handlePipe(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.input.Accept):
		text := strings.TrimSpace(m.pipe.Value())
		m.pipe = nil
		if text == "" {
			return m, nil
		}
		m.remember(text)
		save := m.saveHistory()
		if isPager(text) {
			return m, tea.Batch(save, tea.Exec(m.pager(text), func(err error) tea.Msg { return pagerClosed{err: err} }))
		}
		return m, tea.Batch(save, m.runFilter(text))
	case key.Matches(msg, m.input.Cancel):
		m.pipe = nil
		return m, nil
	case msg.Type == tea.KeyUp, msg.Type == tea.KeyDown:
		m.recall(msg.Type == tea.KeyUp)
		return m, nil
	}
	in, cmd := m.pipe.Update(msg)
	m.pipe = &in
	return m, cmd
}

// remember adds text to the history, as its newest (once).
func (m *Model) remember(text string) {
	h := make([]string, 0, len(m.history)+1)
	for _, t := range m.history {
		if t != text {
			h = append(h, t)
		}
	}
	h = append(h, text)
	if len(h) > historyCap {
		h = h[len(h)-historyCap:]
	}
	m.history = h
}

// recall puts the previous (older) or next command of the history in the
// prompt; past the newest, the prompt is empty.
func (m *Model) recall(older bool) {
	switch {
	case older && m.histAt > 0:
		m.histAt--
	case !older && m.histAt < len(m.history):
		m.histAt++
	default:
		return
	}
	text := ""
	if m.histAt < len(m.history) {
		text = m.history[m.histAt]
	}
	m.pipe.SetValue(text)
	m.pipe.CursorEnd()
}

// knownPager reports whether name is a command that pages what it reads
// on the terminal (besides $PAGER's): a command line ending in one is
// run as a pager, with the terminal.
func knownPager(name string) bool {
	switch name {
	case "less", "more", "most", "pg", "bat", "batcat", "moar", "ov", "w3m", "lnav", "jless", "fx",
		"vi", "vim", "nvim", "view", "nano", "emacs", "micro":
		return true
	}
	return false
}

// isPager reports whether the command line's last command (after its
// last |) is a pager: $PAGER's command or a known pager.
func isPager(text string) bool {
	name := commandName(text)
	if name == "" {
		return false
	}
	return knownPager(name) || name == commandName(pagerText())
}

// commandName is the name of the last command of a shell line, without
// its directory and variable assignments before it ("" when unclear).
func commandName(text string) string {
	if i := strings.LastIndex(text, "|"); i >= 0 {
		text = text[i+1:]
	}
	for _, f := range strings.Fields(text) {
		if editsession.Assignment(f) {
			continue
		}
		if f == "exec" || f == "command" {
			continue
		}
		return filepath.Base(strings.Trim(f, `'"`))
	}
	return ""
}

// pager is the command text run as the pager, reading the selected row's
// value.
func (m *Model) pager(text string) *pagerCmd {
	src := entry.NewStream(m.deps.Store, m.row.E.Raw, m.row.JSON, false)
	return &pagerCmd{Cmd: m.deps.Edits.Command(pagerCommand(text)), src: src}
}

// pagerCmd is the pager under the editor session, its stdin the value:
// bubbletea hands it the terminal's input, which it keeps for its keys
// through /dev/tty, as a pager reading a pipe does.
type pagerCmd struct {
	*editsession.Cmd
	src io.Reader
}

// SetStdin gives the pager the value, not the terminal.
func (c *pagerCmd) SetStdin(io.Reader) { c.Stdin = c.src }

// pagerText is $PAGER, else less.
func pagerText() string {
	if value := strings.TrimSpace(os.Getenv("PAGER")); value != "" {
		return value
	}
	return "less"
}

// pagerCommand runs shell text (as git runs $PAGER); the shell becomes
// the pager where it can (editsession.Script), so the session stops the
// pager itself.
func pagerCommand(value string) *exec.Cmd {
	return exec.Command("sh", "-c", editsession.Script(value))
}

// onPager reports a pager that failed.
func onPager(msg pagerClosed) tea.Cmd {
	if msg.err != nil {
		return views.Flash(views.FlashError, "the pager failed: %v", msg.err)
	}
	return nil
}
