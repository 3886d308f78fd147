package race

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/internal/usertext"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// View renders the mode shown.
func (m Model) View() string {
	if m.width < 40 || m.height < 8 {
		return widgets.TooSmall
	}
	box := widgets.PaneBox(m.styles, m.focused)
	w := m.width - box.GetHorizontalFrameSize()
	lines := m.stepLines(w)
	if m.live {
		lines = m.liveLines(w)
	}
	return widgets.Pane(box, strings.Join(lines, "\n"), m.width, m.height)
}

// header is the first lines of both modes: what races on which key.
func (m Model) header(title string) []string {
	st := m.styles
	mode := "check+set (CAS)"
	if m.naive {
		mode = "naive: set without a check"
	}
	out := []string{st.PaneTitle.Render(title) + st.Muted.Render(" · counter ") + widgets.KeySpans(st, raceCounterKey()).Render(false) +
		st.Muted.Render(` = {"n": <integer>} · `) + st.Accent.Render(mode)}
	if m.readOnly {
		out = append(out, st.Warn.Render("read-only: reads work; staging, commits and live workers are disabled"))
	}
	return out
}

// stepLines: one column per client, then the log and the explanation.
func (m Model) stepLines(w int) []string {
	st := m.styles
	s := m.step
	out := m.stepIntro(w)
	if s.stepper == nil {
		return out
	}
	out = append(out, m.clientGrid(w).render(m.styles), "")
	out = append(out, st.Label.Render("LOG")+st.Muted.Render(fmt.Sprintf(" · %d step(s)", len(s.events))))
	rows := max(m.height-len(out)-8, 3)
	from := max(len(s.events)-rows, 0)
	for i, e := range s.events[from:] {
		style := st.Text
		if e.Outcome != nil && !e.Outcome.OK {
			style = st.Error
		} else if e.Outcome != nil {
			style = st.OK
		}
		out = append(out, widgets.FitWidth(style.Render(fmt.Sprintf("%3d  %s", from+i+1, widgets.Sanitize(e.String()))), w))
	}
	out = append(out, "")
	out = append(out, m.verdictLines(w)...)
	return out
}

// stepIntro is what step mode shows above the clients: the header and
// what the theater does (or why there is none).
func (m Model) stepIntro(w int) []string {
	st := m.styles
	out := m.header("RACE · step mode")
	if m.step.stepper == nil {
		return append(out, widgets.ProseLines("✗ "+m.step.err.Error(), st.Error, w)...)
	}
	intro := "Each client reads the counter, stages an increment of what it read (a check on the stamp it saw + a set of n+1), " +
		"and commits when you say. Commit B after A has committed, and B's check fails: that is optimistic concurrency."
	if m.naive {
		// Naive mode stages no check: the text must not describe one.
		intro = "Naive mode: each client reads the counter and stages a plain set of n+1, with no check. " +
			"Commit B after A has committed, and B's write still succeeds: it overwrites A's increment, which is lost."
	}
	if m.short() {
		// Short screens fold the explanation away first (help has it):
		// the clients and the log need the lines.
		return append(out, "")
	}
	return append(append(out, widgets.ProseLines(intro, st.Muted, w)...), "")
}

// short is a screen too short for the explanation above the clients, a
// row of them and the log (the body of 60x18 is 15 lines).
func (m Model) short() bool { return m.height < 20 }

// clientGrid is how the client boxes are laid out in step mode: side by
// side, in rows of perRow boxes colW wide. When the rows do not fit in
// the lines left for them (60x18 stacks the clients), only the rows
// [first, last) around the selected client's are drawn, between lines
// that say which clients are above and below: ←/→ scroll to every
// client. The view draws it and a click is read against it, so the two
// cannot disagree.
type clientGrid struct {
	perRow, colW int
	n            int      // clients
	rows         []string // every row of boxes, drawn
	first, last  int      // the rows shown
}

// clientGrid lays the clients out for a pane w wide.
func (m Model) clientGrid(w int) clientGrid {
	n := len(m.step.clients)
	g := clientGrid{perRow: max(min(n, w/30), 1), n: n}
	g.colW = min(w/g.perRow, 52)
	for start := 0; start < n; start += g.perRow {
		var cols []string
		for i := start; i < min(start+g.perRow, n); i++ {
			cols = append(cols, m.clientBox(i, g.colW))
		}
		g.rows = append(g.rows, lipgloss.JoinHorizontal(lipgloss.Top, cols...))
	}
	g.last = len(g.rows)
	// The lines left: the pane's inside, less the intro and the log's
	// title and first lines below.
	h := m.height - 2 - len(m.stepIntro(w)) - 2
	if lipgloss.Height(strings.Join(g.rows, "\n")) <= h {
		return g
	}
	sel := m.step.selected / g.perRow
	if g.height(0, sel+1)+1 > h { // with the line about the ones below
		g.first = sel
	}
	g.last = g.first + 1
	for g.last < len(g.rows) && g.height(g.first, g.last+1)+g.notes(g.last+1) <= h {
		g.last++
	}
	return g
}

// height is the lines rows [from, to) take.
func (g clientGrid) height(from, to int) int {
	n := 0
	for _, r := range g.rows[from:to] {
		n += lipgloss.Height(r)
	}
	return n
}

// notes is how many lines say which clients are hidden when the rows
// shown end at last.
func (g clientGrid) notes(last int) int {
	n := 0
	if g.first > 0 {
		n++
	}
	if last < len(g.rows) {
		n++
	}
	return n
}

// render draws the rows shown, between the lines about the ones above
// and below.
func (g clientGrid) render(st themes.Styles) string {
	var out []string
	if g.first > 0 {
		out = append(out, st.Muted.Render(fmt.Sprintf("↑ %d client(s) above · ←/h shows them", g.first*g.perRow)))
	}
	out = append(out, g.rows[g.first:g.last]...)
	if g.last < len(g.rows) {
		out = append(out, st.Muted.Render(fmt.Sprintf("↓ %d client(s) below · →/l shows them", g.n-g.last*g.perRow)))
	}
	return strings.Join(out, "\n")
}

// at returns the client drawn at column x and line y of the grid (0, 0
// being its top left corner), if any.
func (g clientGrid) at(x, y, n int) (int, bool) {
	if g.first > 0 {
		y-- // the line about the clients above
	}
	if x < 0 || y < 0 {
		return 0, false
	}
	for r := g.first; r < g.last; r++ {
		if h := lipgloss.Height(g.rows[r]); y >= h {
			y -= h
			continue
		}
		if i := r*g.perRow + x/g.colW; x/g.colW < g.perRow && i < n {
			return i, true
		}
		return 0, false
	}
	return 0, false
}

// clientBox is one client: its snapshot, what it staged, its last commit.
func (m Model) clientBox(i, w int) string {
	st := m.styles
	c := m.step.clients[i]
	inner := w - m.styles.Pane.GetHorizontalFrameSize()
	box := widgets.PaneBox(st, i == m.step.selected && m.focused)
	snap, staged, last := st.Muted.Render("not read yet"), "nothing staged", st.Muted.Render("no commit yet")
	if c.Snapshot != nil {
		snap = st.Text.Render(fmt.Sprintf("n=%d", c.Snapshot.N)) + st.Muted.Render(" @ "+usertext.StampText(c.Snapshot.Stamp))
	}
	stagedStyle := st.Muted
	if c.Staged != nil {
		staged, stagedStyle = c.Staged.String(raceCounterKey()), st.Accent
	}
	if c.Last != nil && c.Last.OK {
		last = st.OK.Render(fmt.Sprintf("✓ wrote n=%d @ %s", c.Last.Staged.N, c.Last.Stamp))
	} else if c.Last != nil {
		last = st.Error.Render("✗ check failed: nothing written")
	}
	next := st.Muted.Render("enter: " + string(nextStep(m.step.events, i)))
	lines := []string{st.Bold.Render("client " + c.Name), "read   " + snap}
	lines = append(lines, wrapIndented("staged ", staged, stagedStyle, inner)...)
	lines = append(lines, "last   "+last, next)
	return widgets.Pane(box, strings.Join(lines, "\n"), w, len(lines)+2)
}

// wrapIndented wraps a value after a label, under itself, in style.
func wrapIndented(label, value string, style lipgloss.Style, w int) []string {
	parts := widgets.Wrap(value, max(w-len(label), 10))
	for i := range parts {
		if i == 0 {
			parts[i] = label + style.Render(parts[i])
		} else {
			parts[i] = strings.Repeat(" ", len(label)) + style.Render(parts[i])
		}
	}
	return parts
}

// verdictLines explain the last failure, or the replay.
func (m Model) verdictLines(w int) []string {
	st := m.styles
	s := m.step
	var out []string
	for i := len(s.events) - 1; i >= 0; i-- {
		o := s.events[i].Outcome
		if o != nil && !o.OK && o.Explanation != nil {
			ex := o.Explanation
			out = append(out, st.Label.Render("WHY "+ex.Client+"'S COMMIT FAILED"))
			out = append(out, widgets.ProseLines(fmt.Sprintf("expected %s (what %s read) · actual %s", usertext.StampText(ex.Expected), ex.Client, usertext.StampText(ex.Actual)), st.Text, w)...)
			out = append(out, widgets.ProseLines(ex.String()+". Nothing was written; "+m.recoverHint(ex.Client), st.Error, w)...)
			break
		}
		if o != nil && o.OK && len(o.Overwrote) > 0 {
			out = append(out, widgets.ProseLines("LOST UPDATE: "+o.String(), st.Warn, w)...)
			break
		}
	}
	if s.replay != nil {
		text, style := fmt.Sprintf("replayed %d commit(s): every one succeeded or failed as in the first run", len(s.replay.after)), st.OK
		if !s.replay.same() {
			text, style = "replayed: the outcomes differ from the first run (another client wrote the key meanwhile)", st.Warn
		}
		out = append(out, style.Render(text))
	}
	return out
}

// recoverHint says how client recovers from a failed commit. It names
// the keys as keys ("press A"): the recover key A alone reads as client
// A.
func (m Model) recoverHint(client string) string {
	return "on client " + client + views.Hint(", press %s to recover (re-read, re-stage), then %s to commit.", m.keys.Recover, m.keys.Commit)
}

// liveLines: the settings, the live counters, per worker.
func (m Model) liveLines(w int) []string {
	st := m.styles
	lv := m.run
	out := m.header("RACE · live mode")
	lock := ""
	if lv.lockstep {
		lock = " · lockstep (every round: all read, then all write)"
	}
	out = append(out, st.Text.Render(fmt.Sprintf("%d workers × %d increments, each worker on its own connection%s", lv.workers, lv.increments, lock)))
	s := lv.snap
	phase := views.Hint("ready: %s starts", m.keys.Start)
	switch {
	case lv.starting:
		phase = "opening the workers' connections…"
	case lv.stopped:
		phase = fmt.Sprintf("stopped by you · %s", widgets.Human(s.Elapsed))
	case lv.race != nil || lv.result != nil:
		phase = fmt.Sprintf("%s · %s", s.Phase, widgets.Human(s.Elapsed))
	}
	out = append(out, st.Muted.Render(phase), "")
	rate := s.WorkerStats.ConflictRate()
	out = append(out,
		fmt.Sprintf("%-14s %8d", "attempts", s.Attempts),
		st.OK.Render(fmt.Sprintf("%-14s %8d", "successes", s.Successes)),
		st.Warn.Render(fmt.Sprintf("%-14s %8d", "conflicts", s.Conflicts)),
		fmt.Sprintf("%-14s %7.1f%% ", "conflict rate", rate*100)+widgets.ShareBar(s.Conflicts, max(s.Attempts, 1), 30, st.Warn, st.Muted).Render(false))
	if cut := s.Attempts - s.Successes - s.Conflicts; cut > 0 && lv.result != nil {
		// Attempts in flight when the race stopped: neither written nor
		// refused, so the counts above do not add up without them.
		out = append(out, st.Muted.Render(fmt.Sprintf("%-14s %8d  in flight at the stop: neither written nor refused", "cut short", cut)))
	}
	out = append(out, "")
	out = append(out, m.finalLines(w)...)
	out = append(out, "", st.Label.Render("PER WORKER"))
	for i, ws := range s.Workers {
		if len(out) >= m.height-3 {
			out = append(out, st.Muted.Render(fmt.Sprintf("… %d more", len(s.Workers)-i)))
			break
		}
		out = append(out, fmt.Sprintf("W%-3d attempts %6d  successes %6d  conflicts %6d  ", i+1, ws.Attempts, ws.Successes, ws.Conflicts)+
			widgets.ShareBar(ws.Successes, int64(lv.increments), 20, st.OK, st.Muted).Render(false))
	}
	if lv.err != nil {
		out = append(out, widgets.ProseLines("✗ "+lv.err.Error(), st.Error, w)...)
	}
	return out
}

// finalLines compare the final counter with the successes.
func (m Model) finalLines(w int) []string {
	st := m.styles
	r := m.run.result
	if r == nil {
		return widgets.ProseLines("When the workers finish, the counter is re-read: with the check it moved by exactly the successes; "+
			"naive (n), it moved by less: updates were lost.", st.Muted, w)
	}
	out := []string{fmt.Sprintf("counter %d → %d (moved %d) · successes %d", r.Start, r.Final, r.Final-r.Start, r.Successes)}
	switch {
	case r.LostUpdates > 0:
		out = append(out, st.Error.Render(fmt.Sprintf("✗ %d lost update(s): naive writes overwrote increments they never saw (final %d < start + successes %d)", r.LostUpdates, r.Final, r.Expected)))
	case r.OtherWrites > 0:
		out = append(out, st.Warn.Render(fmt.Sprintf("%d increment(s) by other clients during the race", r.OtherWrites)))
	default:
		out = append(out, st.OK.Render("✓ final value = start + successes: no update lost"))
	}
	return out
}
