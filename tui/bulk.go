package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Bulk actions: a tab's ; sends its marked rows and
// the actions valid there (views.BulkMsg); the root shows the menu, asks
// with what will change (how many rows, the first keys, how many commits
// and why), then runs store.PlanBulk's commits one command at a time,
// each a checked, journaled store.CommitBulk, with a progress bar on the
// message line; esc stops between commits and says how many were done.

// bulkRun is a bulk action in progress, an overlay (overlay.go) that
// holds the keys: esc stops it between commits.
type bulkRun struct {
	bare
	gen      int
	name     string
	plan     store.BulkPlan
	next     int // the commits answered
	units    int // every unit of the plan
	done     int // units applied
	skipped  []codec.Key
	stopping bool
	// action is the run's one user action: its commits are journaled as
	// one, undone whole.
	action *store.Action
}

func (*bulkRun) layer() layer { return layerBulkRun }

func (*bulkRun) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return m.handleBulkRun(msg), nil, true
}

func (*bulkRun) line(m model) (string, bool) { return m.bulkProgress(), true }

func (b *bulkRun) generation() int { return b.gen }

func (*bulkRun) answer(m model, msg tea.Msg) (model, tea.Cmd) {
	return answerWith(m, msg, model.onBulkCommitted)
}

// bulk is the bulk run in progress, nil when none is.
func (m model) bulk() *bulkRun { return opened[*bulkRun](m.overlays) }

// bulkMenu is the ; menu of a tab's marked rows: an action's key chooses
// it, esc closes it.
type bulkMenu struct {
	bare
	req views.BulkMsg
}

func (*bulkMenu) layer() layer { return layerBulkMenu }

func (*bulkMenu) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handleBulkMenu(msg))
}

func (*bulkMenu) draw(m model, body string, h int) string {
	return m.over(body, m.bulkMenuView(), h)
}

// menu is the bulk menu open, nil when none is.
func (m model) menu() *bulkMenu { return opened[*bulkMenu](m.overlays) }

// bulkStart is the confirmed action; bulkCommitted answers one commit.
type (
	bulkStart struct {
		session int
		name    string
		plan    store.BulkPlan
	}
	bulkCommitted struct {
		session, gen int
		out          store.BulkOutcome
		err          error
	}
	bulkCopied struct {
		n   int
		err error
	}
)

func (c bulkCommitted) overlayGen() int { return c.gen }

// bulkFirstKeys is how many keys the confirm names.
const bulkFirstKeys = 5

// bulkKeys: esc closes the menu or stops a run between commits.
var bulkStop = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop after this commit"))

// onBulkMsg handles the bulk messages: a menu asked for, a run
// confirmed, keys copied.
func (m model) onBulkMsg(msg tea.Msg) (model, tea.Cmd) {
	switch msg := msg.(type) {
	case views.BulkMsg:
		if m.bulk() != nil {
			return m, views.Flash(views.FlashInfo, "a bulk action is running: esc stops it")
		}
		if m.export() != nil {
			return m, views.Flash(views.FlashInfo, "an export is running: esc stops it")
		}
		msg.Actions = append(msg.Actions[:len(msg.Actions):len(msg.Actions)], bulkExportAction)
		m.overlays.put(&bulkMenu{req: msg})
		return m, nil
	case bulkStart:
		if msg.session != m.session || m.bulk() != nil {
			return m, nil
		}
		b := &bulkRun{gen: m.overlays.newGen(), name: msg.name, plan: msg.plan, action: store.NewAction("bulk: " + msg.name)}
		for _, c := range msg.plan.Commits {
			b.units += len(c)
		}
		m.overlays.put(b)
		return m, m.bulkCommit()
	case bulkCopied:
		if msg.err != nil {
			return m, views.Flash(views.FlashError, "copy failed: %v", msg.err)
		}
		return m, tea.Batch(views.Flash(views.FlashOK, "copied %d keys (OSC 52: your terminal must allow clipboard writes)", msg.n),
			m.tabs.updateAll(views.BulkDoneMsg{}, m.tab))
	}
	return m, nil
}

// handleBulkMenu: an action's key chooses it; esc closes the menu.
func (m model) handleBulkMenu(msg tea.KeyMsg) (model, tea.Cmd) {
	req := m.menu().req
	if key.Matches(msg, m.input.Cancel) {
		m.overlays.drop(layerBulkMenu)
		return m, nil
	}
	for _, a := range req.Actions {
		if msg.String() != a.Key {
			continue
		}
		m.overlays.drop(layerBulkMenu)
		if a.Key == bulkExportAction.Key && a.Name == bulkExportAction.Name {
			return m.startExport(req)
		}
		if a.Copy {
			return m, m.bulkCopy(req.Keys)
		}
		return m, m.bulkConfirm(req, a)
	}
	return m, nil
}

// bulkCopy copies keys, one per line as y copies one.
func (m model) bulkCopy(keys []codec.Key) tea.Cmd {
	if m.clip == nil {
		return views.Flash(views.FlashInfo, "no clipboard here")
	}
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = codec.Format(k)
	}
	clip, text := m.clip, strings.Join(lines, "\n")
	return func() tea.Msg { return bulkCopied{n: len(keys), err: clip(text)} }
}

// bulkConfirm asks before a write: the count, the first keys, the commits
// and why there are several, and what happens to a changed row.
func (m model) bulkConfirm(req views.BulkMsg, a views.BulkAction) tea.Cmd {
	if m.info.ReadOnly {
		return views.Flash(views.FlashInfo, "read-only: %s is a write", a.Name)
	}
	plan := store.PlanBulk(a.Units, m.bulkLimits)
	var lines []string
	if a.Says != "" {
		lines = append(lines, a.Says, "")
	}
	for i, k := range req.Keys {
		if i == bulkFirstKeys {
			lines = append(lines, fmt.Sprintf("  … and %d more", len(req.Keys)-i))
			break
		}
		lines = append(lines, "  "+usertext.Sanitize(codec.Format(k)))
	}
	n := len(plan.Commits)
	commits := fmt.Sprintf("in %d %s", n, plural(int64(n), "checked atomic commit", "checked atomic commits"))
	if plan.Why != "" {
		commits += " (" + plan.Why + ")"
	}
	lines = append(lines, "", commits+";",
		"a row changed since you marked it is skipped, not overwritten;",
		"one journaled action: z undoes it whole; esc stops between commits.")
	start := bulkStart{session: m.session, name: a.Name, plan: plan}
	return views.Confirm(fmt.Sprintf("%s %s?", capitalize(a.Name), req.What), a.Name,
		func() tea.Msg { return start }, lines...)
}

// capitalize upper-cases s's first letter (an ASCII verb).
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// bulkCommit runs the run's next commit in a command.
func (m model) bulkCommit() tea.Cmd {
	b := m.bulk()
	units, s, session, gen, act := b.plan.Commits[b.next], m.store, m.session, b.gen, b.action
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), views.WriteTimeout)
		defer cancel()
		out, err := s.CommitBulk(store.WithAction(ctx, act), units)
		return bulkCommitted{session: session, gen: gen, out: out, err: err}
	}
}

// onBulkCommitted counts a commit and runs the next, unless it failed, was
// the last, or esc asked to stop.
func (m model) onBulkCommitted(msg bulkCommitted) (model, tea.Cmd) {
	if m.bulk() == nil || msg.session != m.session || msg.gen != m.bulk().gen {
		return m, nil
	}
	b := *m.bulk()
	b.next++
	b.done += msg.out.Applied
	b.skipped = append(b.skipped, msg.out.Skipped...)
	m.overlays.put(&b)
	if msg.err == nil && !b.stopping && b.next < len(b.plan.Commits) {
		return m, m.bulkCommit()
	}
	m.overlays.drop(layerBulkRun)
	text := fmt.Sprintf("%s: %d of %d done in %d of %d commits", b.name, b.done, b.units, b.next, len(b.plan.Commits))
	level := views.FlashOK
	switch {
	case msg.err != nil:
		text, level = fmt.Sprintf("%s; commit %d failed: %v", text, b.next, msg.err), views.FlashError
	case b.stopping && b.next < len(b.plan.Commits):
		text, level = text+"; stopped (esc)", views.FlashInfo
	}
	if len(b.skipped) > 0 {
		text += fmt.Sprintf("; %d skipped, changed since marked: %s", len(b.skipped), usertext.Sanitize(codec.Format(b.skipped[0])))
		if len(b.skipped) > 1 {
			text += " …"
		}
	}
	done := views.BulkDoneMsg{Applied: b.done, Skipped: b.skipped}
	return m, tea.Batch(views.Flash(level, "%s", text), m.tabs.updateAll(done, m.tab), m.tabs.refresh(m.tab))
}

// handleBulkRun: while a run is in progress, esc stops it after the
// commit in flight; every other key waits.
func (m model) handleBulkRun(msg tea.KeyMsg) model {
	if key.Matches(msg, bulkStop) {
		b := *m.bulk()
		b.stopping = true
		m.overlays.put(&b)
	}
	return m
}

// bulkProgress is the message line during a run: the bar, the rows and
// commits done, and how to stop.
func (m model) bulkProgress() string {
	b := m.bulk()
	bar := widgets.ShareBar(int64(b.done+len(b.skipped)), int64(max(b.units, 1)), 20, m.styles.OK, m.styles.Muted).Render(false)
	tail := "esc stops after this commit"
	if b.stopping {
		tail = "stopping after this commit…"
	}
	return fit(fmt.Sprintf("%s %s %d/%d · commit %d of %d · %s", b.name, bar, b.done+len(b.skipped), b.units,
		min(b.next+1, len(b.plan.Commits)), len(b.plan.Commits), tail), m.width)
}

// bulkMenuView is the menu over the body: what is marked, then one line
// per action.
func (m model) bulkMenuView() string {
	req := m.menu().req
	lines := []string{m.styles.DialogTitle.Render("Bulk action on " + usertext.Sanitize(req.What))}
	for _, a := range req.Actions {
		lines = append(lines, m.styles.HelpKey.Render(a.Key)+"  "+a.Name)
	}
	lines = append(lines, "", m.styles.HelpDesc.Render("esc  cancel"))
	return lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1).Render(strings.Join(lines, "\n"))
}
