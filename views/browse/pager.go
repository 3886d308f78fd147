package browse

import (
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/editsession"
	"kvdeck/views"
)

// | in the reader hands the whole value, any size, to $PAGER (less when
// unset), as the reader lays it out: pretty-printed, sanitized, and with
// strings' \n as lines when L is on (issue 22 point 7).

// pagerFile: the value is in a temporary file, ready for the pager.
type pagerFile struct {
	session int
	path    string
	err     error
}

// pagerClosed: the pager exited.
type pagerClosed struct {
	path string
	err  error
}

// startPager writes the reader's text to a temporary file.
func (m *Model) startPager() tea.Cmd {
	value, lines, session, edits := m.entry.e.Value, m.reader.lines, m.deps.Session, m.deps.Edits
	return func() tea.Msg {
		text := valueText(value, lines) + "\n"
		f, err := edits.CreateTemp("value-*.txt")
		if err != nil {
			return pagerFile{session: session, err: err}
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return pagerFile{session: session, path: f.Name(), err: err}
	}
}

// pagerCommand is $PAGER (shell text, as git runs it), else less.
func pagerCommand(path string) *exec.Cmd {
	value := strings.TrimSpace(os.Getenv("PAGER"))
	if value == "" {
		value = "less"
	}
	return editsession.EditorCommand(value, path)
}

// onPager runs the pager on the file, then removes it.
func (m Model) onPager(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case pagerFile:
		if msg.session != m.deps.Session {
			return m, nil
		}
		if msg.err != nil {
			return m, views.Flash(views.FlashError, "cannot hand the value to the pager: %v", msg.err)
		}
		return m, tea.Exec(m.deps.Edits.Command(pagerCommand(msg.path)), func(err error) tea.Msg {
			return pagerClosed{path: msg.path, err: err}
		})
	case pagerClosed:
		os.Remove(msg.path)
		if msg.err != nil {
			return m, views.Flash(views.FlashError, "the pager failed: %v", msg.err)
		}
	}
	return m, nil
}
