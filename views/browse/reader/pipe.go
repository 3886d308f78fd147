package reader

import (
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/editsession"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// | hands the selected value, any size, to $PAGER (less when unset) or a
// command typed at its prompt, from the tree or the reader, as the reader
// lays it out: pretty-printed, sanitized, and with strings' \n as lines
// when the reader's L is on. The value is streamed to the pager's stdin
// from the store a chunk at a time (entry.Stream): neither kvdeck nor a
// temporary file holds it whole.

// pagerClosed: the pager exited.
type pagerClosed struct {
	err error
}

// OpenPipe opens, on row, the prompt of the command the value is piped
// to, $PAGER (else less) typed in: enter runs it, esc closes it.
func (m *Model) OpenPipe(row entry.Row) tea.Cmd {
	if !row.Found {
		return views.Flash(views.FlashInfo, "select a stored key: | hands its value to $PAGER")
	}
	m.row = row
	in := widgets.NewInput("| ", "a command to pipe the value to", m.styles)
	in.SetValue(pagerText())
	in.CursorEnd()
	in.Width = m.promptWidth
	m.pipe = &in
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
		return m, tea.Exec(m.pager(text), func(err error) tea.Msg { return pagerClosed{err: err} })
	case key.Matches(msg, m.input.Cancel):
		m.pipe = nil
		return m, nil
	}
	in, cmd := m.pipe.Update(msg)
	m.pipe = &in
	return m, cmd
}

// pager is the command text run as the pager, reading the selected row's
// value.
func (m *Model) pager(text string) *pagerCmd {
	lines := m.open && m.lines
	src := entry.NewStream(m.deps.Store, m.row.E.Raw, m.row.JSON, lines)
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
