package reader

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// The commands typed at the | prompt are kept across sessions in
// historyFile under the state directory (views.Deps.StateDir: the
// journal's $XDG_STATE_HOME/kvdeck, 0700), one a line, the newest last,
// at most historyCap: 0600, written whole to a temporary file renamed
// over it, so that a reader never sees half a file. Without a state
// directory the history lasts the session.
const historyFile = "pipe-history"

// historyPath is the history's file ("" when none is kept).
func (m Model) historyPath() string {
	if m.deps.StateDir == "" {
		return ""
	}
	return filepath.Join(m.deps.StateDir, historyFile)
}

// loadHistory reads the kept history once, before the prompt first
// opens: a small local file (historyCap short lines). A file that cannot
// be read keeps what was typed this session.
func (m *Model) loadHistory() {
	if m.histLoaded {
		return
	}
	m.histLoaded = true
	path := m.historyPath()
	if path == "" {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var kept []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			kept = append(kept, line)
		}
	}
	typed := m.history
	m.history = nil
	for _, t := range append(kept, typed...) {
		m.remember(t)
	}
}

// saveHistory writes the history to its file, in a command.
func (m Model) saveHistory() tea.Cmd {
	path := m.historyPath()
	if path == "" {
		return nil
	}
	text := strings.Join(m.history, "\n") + "\n"
	return func() tea.Msg {
		writeHistory(path, text) // a history that cannot be kept is no error to show
		return nil
	}
}

// writeHistory writes text to path (0600, its directory 0700) through a
// temporary file renamed over it.
func writeHistory(path, text string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, historyFile+"-*")
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
