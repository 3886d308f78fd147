package reader

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/internal/editsession"
	"kvdeck/internal/usertext"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// pipeOutput is a filter's run (pipe.go) and then its output, shown in
// the entry pane until esc.
type pipeOutput struct {
	text    string // the command line
	gen     int
	running bool
	stop    context.CancelFunc
	stopped bool // esc stopped it
	lines   []string
	more    int64 // bytes of output past outputCap, read and dropped
	err     error // why the run failed: an exit status, or no start
	off     int
}

// filterDone answers runFilter.
type filterDone struct {
	session, gen int
	out          []byte
	more         int64
	err          error
}

// runFilter runs text with the value on its stdin and its output read
// (outputCap kept), in a command: the TUI stays, and the entry pane says
// the filter runs until it answers.
func (m *Model) runFilter(text string) tea.Cmd {
	m.pipeGen++
	ctx, stop := context.WithCancel(context.Background())
	m.out = &pipeOutput{text: text, gen: m.pipeGen, running: true, stop: stop}
	c := exec.CommandContext(ctx, "sh", "-c", editsession.Script(text))
	// Its own process group, stopped whole: a shell line's other
	// commands would hold the output open after the shell went.
	editsession.OwnGroup(c)
	c.WaitDelay = filterGrace
	out := &cappedBuffer{max: outputCap}
	c.Stdin = entry.NewStream(m.deps.Store, m.row.E.Raw, m.row.JSON, false)
	c.Stdout, c.Stderr = out, out
	run := m.deps.Edits.Command(c) // stopped with the session
	session, gen := m.deps.Session, m.pipeGen
	return func() tea.Msg {
		defer stop()
		err := run.Run()
		return filterDone{session: session, gen: gen, out: out.buf, more: out.more, err: err}
	}
}

// cappedBuffer keeps the first max bytes written and counts the rest.
type cappedBuffer struct {
	buf  []byte
	max  int
	more int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	keep := min(len(p), b.max-len(b.buf))
	b.buf = append(b.buf, p[:keep]...)
	b.more += int64(len(p) - keep)
	return len(p), nil
}

// onFilterDone shows the output of the filter still shown.
func (m Model) onFilterDone(msg filterDone) (Model, tea.Cmd) {
	if m.out == nil || msg.session != m.deps.Session || msg.gen != m.out.gen {
		return m, nil
	}
	o := *m.out
	o.running = false
	o.more = msg.more
	o.err = msg.err
	text := strings.TrimSuffix(string(msg.out), "\n")
	if text != "" {
		o.lines = strings.Split(usertext.SanitizeLines(text), "\n")
	}
	m.out = &o
	return m, nil
}

// handleOutput scrolls the output; esc stops a filter that runs, else
// closes the output (back to the reader, or the tree); | asks for
// another command.
func (m Model) handleOutput(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.KeyMap
	o := *m.out
	if delta, ok := navDelta(msg, k, m.rows()); ok {
		o.off = widgets.ClampOffset(o.off+delta, m.rows(), len(o.lines))
		m.out = &o
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Close) && o.running:
		if key.Matches(msg, m.input.Cancel) {
			o.stopped = true
			o.stop()
			m.out = &o
		}
	case key.Matches(msg, k.Close):
		m.out = nil
	case key.Matches(msg, k.Pager) && !o.running:
		m.out = nil
		return m, m.OpenPipe(m.row)
	}
	return m, nil
}

// outputView is the entry pane showing a filter's output.
func (m Model) outputView() string {
	st, o := m.styles, m.out
	rows, n := m.rows(), len(o.lines)
	off := widgets.ClampOffset(o.off, rows, n)
	status := st.Muted.Render("running… esc stops it")
	if !o.running {
		status = m.outputStatus(off, rows, n)
	}
	// The status keeps its room: a long command line is cut first.
	room := max(m.inner()-ansi.StringWidth(status)-1, 8)
	title := st.PaneTitle.Render(widgets.ClipText("| "+widgets.Sanitize(o.text), room)) + " " + status
	lines := []string{widgets.FitWidth(title, m.inner())}
	if !o.running && n == 0 {
		lines = append(lines, st.Muted.Render("(no output)"))
	}
	for i := off; i < min(off+rows, n); i++ {
		lines = append(lines, st.Text.Render(widgets.FitWidth(o.lines[i], m.inner())))
	}
	return widgets.Pane(m.styles.PaneFocused, strings.Join(lines, "\n"), m.width, m.height)
}

// outputStatus says how the filter ended and where the output shown is.
func (m Model) outputStatus(off, rows, n int) string {
	st, o := m.styles, m.out
	var exit *exec.ExitError
	status := st.OK.Render("exit 0")
	switch {
	case o.stopped:
		status = st.Warn.Render("stopped")
	case errors.As(o.err, &exit):
		status = st.Warn.Render(fmt.Sprintf("exit %d", exit.ExitCode()))
	case o.err != nil:
		status = st.Error.Render("✗ " + widgets.Sanitize(o.err.Error()))
	}
	where := fmt.Sprintf(" · %d line(s)", n)
	if n > rows {
		where = fmt.Sprintf(" · %d-%d/%d", off+1, min(off+rows, n), n)
	}
	if o.more > 0 {
		where += fmt.Sprintf(" · the first %s kept (%s more)", widgets.BytesText(outputCap), widgets.BytesText(o.more))
	}
	return status + st.Muted.Render(where+" · esc")
}
