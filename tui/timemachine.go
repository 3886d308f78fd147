package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	kvhist "kvdeck/internal/history"
	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// The time machine in the TUI. :at TIME restores the point of the
// store's past picked for TIME (kvhist.Machine.At, in a command: the
// newest point at or before it) and shows it in every tab, read-only,
// under a new session, while the live store is kept open beside it:
// Browse shows a key then and now, P puts keys back as they were then
// (one checked, journaled write of the live store, kvhist.PutBack, asked
// first), z undoes it on the live store's journal. :at moves from point
// to point, :at alone lists the points, :at now returns to the live
// store. The status bar says AS OF the point while it is shown.

// restoreTimeout bounds a restore (:at) and a key's history: a restore
// is as large as the store, and a key's history restores several.
const restoreTimeout = 3 * time.Minute

// keyHistoryReads bounds the points a key's history restores, as the
// CLI's history --max-reads does by default.
const keyHistoryReads = 64

// timeMachine is the root's part of :at.
type timeMachine struct {
	// machine reads the store's past (Config.TimeMachine, made once).
	machine *kvhist.Machine
	// past is the point shown; nil: the live store.
	past *kvhist.Past
	// live is the live store while past is shown, liveOwned whether the
	// root opened it, liveInfo its info (the status bar names it).
	live      *store.Store
	liveOwned bool
	liveInfo  store.Info
	// gen tags the :at in flight; restoring is its TIME ("" when none).
	gen       int
	restoring string
	// other: :open or :store showed another store, whose past the time
	// machine (the first store's) does not read.
	other bool
}

// Answers of the time machine's commands.
type (
	pastOpened struct {
		gen     int
		text    string
		machine *kvhist.Machine
		past    *kvhist.Past
		err     error
	}
	putBackPlanned struct {
		label string
		live  *store.Store
		plan  kvhist.PutBackPlan
		err   error
	}
	putBackDone struct {
		label string
		n     int
		stamp string
		err   error
	}
)

// writeStore is the store writes go to: the live store, also while a
// point of its past is shown.
func (m model) writeStore() *store.Store {
	if m.tm.past != nil {
		return m.tm.live
	}
	return m.store
}

// pastLabel names the point shown by :at for the status bar ("" when
// the live store is).
func (m model) pastLabel() string {
	if m.tm.past == nil {
		return ""
	}
	return m.tm.past.Label(usertext.FormatTimeFixed)
}

// machineOf makes the time machine in a command when it is not made yet.
func machineOf(ctx context.Context, made *kvhist.Machine, make func(context.Context) (*kvhist.Machine, error)) (*kvhist.Machine, error) {
	if made != nil {
		return made, nil
	}
	if make == nil {
		return nil, fmt.Errorf("no history of this store here: save it with litestream_replica (docs/stores.md) or run kvdeck record beside it")
	}
	return make(ctx)
}

// at runs :at TEXT: a point (restored in a command), now (the live
// store again), or, empty, the list of the points.
func (m model) at(text string) (model, tea.Cmd) {
	switch {
	case m.cfg.Past != "":
		return m, views.Flash(views.FlashError, ":at: this session shows the point --at opened; start kvdeck without --at to move in time with :at")
	case m.tm.other:
		return m, views.Flash(views.FlashError, ":at reads the past of the store kvdeck started on; start kvdeck on this one (--store NAME) to see its past")
	}
	switch strings.ToLower(text) {
	case "":
		if m.tm.past == nil {
			return m, views.Flash(views.FlashError, "usage: :at TIME (-10m, RFC 3339, txid:N, poll:N) shows the store as it was then; at a point, :at lists the points and :at now returns")
		}
		m.openPoints()
		return m, nil
	case "now":
		if m.tm.past == nil {
			return m, views.Flash(views.FlashInfo, "the live store is shown")
		}
		cmd := m.leavePast()
		cmd = tea.Batch(cmd, m.showStore())
		return m, tea.Batch(cmd, m.flash.show(views.FlashMsg{Level: views.FlashOK, Text: "back to the live store " + usertext.Sanitize(m.storeLabel()) + "; the clock is real again"}))
	}
	// A malformed time is named before the store's history is looked
	// for: "no restore point" would send the user the wrong way.
	now := m.wall().UnixMilli()
	if _, err := kvhist.ParseSpec(text, now); err != nil {
		return m, views.Flash(views.FlashError, ":at: %s", err)
	}
	m.tm.gen++
	m.tm.restoring = text
	gen, made, make := m.tm.gen, m.tm.machine, m.cfg.TimeMachine
	note := m.flash.show(views.FlashMsg{Level: views.FlashInfo, Text: fmt.Sprintf("restoring the store as at %s…", usertext.Sanitize(text))})
	return m, tea.Batch(note, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
		defer cancel()
		mach, err := machineOf(ctx, made, make)
		if err != nil {
			return pastOpened{gen: gen, text: text, err: err}
		}
		p, err := mach.At(ctx, text, now)
		return pastOpened{gen: gen, text: text, machine: mach, past: p, err: err}
	})
}

// closePast closes a past no longer shown, in a command.
func closePast(p *kvhist.Past) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			return views.FlashMsg{Level: views.FlashError, Text: "closing a past point: " + err.Error()}
		}
		return nil
	}
}

// onPastOpened shows the point restored by the newest :at, every tab on
// it; a stale one is closed.
func (m model) onPastOpened(msg pastOpened) (model, tea.Cmd) {
	if msg.machine != nil && m.tm.machine == nil {
		m.tm.machine = msg.machine
	}
	if msg.gen != m.tm.gen {
		if msg.past != nil {
			return m, closePast(msg.past)
		}
		return m, nil
	}
	m.tm.restoring = ""
	if msg.err != nil {
		still := "the live store"
		if m.tm.past != nil {
			still = m.pastLabel()
		}
		out := m.flash.show(views.FlashMsg{Level: views.FlashError, Text: fmt.Sprintf(":at %s: %v (still on %s)", usertext.Sanitize(msg.text), msg.err, still)})
		return m, out
	}
	var cmd tea.Cmd
	if m.tm.past != nil {
		cmd = closePast(m.tm.past)
	} else {
		m.tm.live, m.tm.liveOwned, m.tm.liveInfo = m.store, m.owned, m.info
	}
	p := msg.past
	m.tm.past = p
	m.store, m.owned = p.Store, false
	// Liveness and expiry are judged as they were at the time asked (the
	// point's own time for a txid), as --at does.
	at := p.Choice.Asked.At
	if at == 0 {
		at = p.Choice.Point.At
	}
	m.cfg.Clock.Fix(at)
	cmd = tea.Batch(cmd, m.showStore())
	kind := p.Source.Kind()
	text := "AS OF " + p.Choice.Text(kind) + " · " + pointsText(p) + " · :at lists them, :at now returns · from " + p.Source.Describe()
	if kind == kvhist.KindRecord {
		text += " · " + p.Source.Limits()
	}
	return m, tea.Batch(cmd, m.flash.show(views.FlashMsg{Level: views.FlashOK, Text: usertext.Sanitize(text)}))
}

// pointsText counts a past's points ("point 12 of 40").
func pointsText(p *kvhist.Past) string {
	if p.Choice.Index < 0 {
		return "any instant"
	}
	return fmt.Sprintf("point %d of %d", p.Choice.Index+1, len(p.Points))
}

// leavePast puts the live store back in place of the past shown
// (without showing it: the caller does, or opens another store), and
// closes the past; the clock is real again.
func (m *model) leavePast() tea.Cmd {
	if m.tm.past == nil {
		return nil
	}
	cmd := closePast(m.tm.past)
	m.store, m.owned = m.tm.live, m.tm.liveOwned
	m.tm.past, m.tm.live = nil, nil
	m.cfg.Clock.Reset()
	return cmd
}

// putBack takes Browse's P: it reads each key then and now (a command)
// and asks, showing what changes.
func (m model) putBack(msg views.PutBackMsg) (model, tea.Cmd) {
	if m.tm.past == nil {
		return m, views.Flash(views.FlashError, "P puts keys back as they were at a point of the past: :at TIME first")
	}
	past, live, label := m.tm.past.Store, m.tm.live, m.pastLabel()
	raws := msg.Keys
	return m, views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		thens := make([]*store.RawRow, len(raws))
		for i, raw := range raws {
			then, err := kvhist.Physical(ctx, past, raw)
			if err != nil {
				return putBackPlanned{err: err}
			}
			thens[i] = then
		}
		plan, err := kvhist.PlanPutBack(ctx, live, raws, thens)
		return putBackPlanned{label: label, live: live, plan: plan, err: err}
	})
}

// planPutBack plans putting rows back (a key's history's r), in a
// command.
func planPutBack(live *store.Store, label string, raws [][]byte, thens []*store.RawRow) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		plan, err := kvhist.PlanPutBack(ctx, live, raws, thens)
		return putBackPlanned{label: label, live: live, plan: plan, err: err}
	})
}

// onPutBackPlanned shows the plan and asks; a plan that changes nothing
// is said, not made.
func (m model) onPutBackPlanned(msg putBackPlanned) (model, tea.Cmd) {
	if msg.err != nil {
		out := m.flash.show(views.FlashMsg{Level: views.FlashError, Text: "put back: " + msg.err.Error()})
		return m, out
	}
	plan := msg.plan
	if len(plan.Ops) == 0 {
		out := m.flash.show(views.FlashMsg{Level: views.FlashInfo, Text: fmt.Sprintf("nothing to put back: %s as at %s", countKeys(plan.Same()), msg.label)})
		return m, out
	}
	lines := make([]string, 0, len(plan.Keys)+2)
	for _, k := range plan.Keys {
		key := usertext.Sanitize(journal.KeyText(k.Raw))
		if k.Same {
			lines = append(lines, "= "+key+"  as it was")
			continue
		}
		lines = append(lines, "~ "+key+"  now "+rowText(k.Now)+"  →  then "+rowText(k.Then))
	}
	lines = append(lines, "", "One write, each key checked against the stamp shown now (a change since is refused, nothing written); z undoes it.")
	live, label := msg.live, msg.label
	do := views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		stamp, err := kvhist.PutBack(ctx, live, plan)
		return putBackDone{label: label, n: len(plan.Ops), stamp: stamp, err: err}
	})
	m.ask(views.ConfirmMsg{Title: fmt.Sprintf("Put back %s as at %s?", countKeys(len(plan.Ops)), label), Lines: lines, Yes: "put back", Do: do}, false)
	return m, nil
}

// onPutBackDone says what the put-back did and reads the tab again.
func (m model) onPutBackDone(msg putBackDone) (model, tea.Cmd) {
	if msg.err != nil {
		out := m.flash.show(views.FlashMsg{Level: views.FlashError, Text: msg.err.Error()})
		return m, out
	}
	text := fmt.Sprintf("put back %s as at %s", countKeys(msg.n), msg.label)
	if msg.stamp != "" {
		text += " (new versionstamp " + msg.stamp + ")"
	}
	out := m.flash.show(views.FlashMsg{Level: views.FlashOK, Text: text + "; z undoes it"})
	return m, tea.Batch(out, m.tabs.refresh(m.tab))
}

// countKeys is "1 key", "3 keys".
func countKeys(n int) string {
	if n == 1 {
		return "1 key"
	}
	return fmt.Sprintf("%d keys", n)
}

// rowText is a row in a few words: stamp, value (cut), expiry; "no row".
func rowText(r *store.RawRow) string {
	if r == nil {
		return "no row"
	}
	s := "v=" + codec.FormatStamp(r.Ver) + " " + fit(usertext.Sanitize(string(r.Value)), 40)
	if r.ExpiresAt != nil {
		s += " (expires " + usertext.FormatTimeFixed(*r.ExpiresAt) + ")"
	}
	return s
}

// pointsState is the list of the restore points (:at alone at a point):
// the one shown marked; enter moves there.
type pointsState struct {
	opaque
	cursor int
}

func (*pointsState) layer() layer { return layerPoints }

func (*pointsState) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handlePoints(msg))
}

func (*pointsState) draw(m model, body string, h int) string { return m.pointsView(body, h) }

func (*pointsState) help(model) ([]key.Binding, bool) {
	k := defaultPickerKeys()
	return []key.Binding{k.Nav.Up, k.Nav.Down, key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "go to this point")), k.Close}, true
}

// openPoints opens the list on the point shown.
func (m *model) openPoints() {
	m.overlays.put(&pointsState{cursor: max(m.tm.past.Choice.Index, 0)})
}

// handlePoints handles the list's keys.
func (m model) handlePoints(msg tea.KeyMsg) (model, tea.Cmd) {
	o, k := *opened[*pointsState](m.overlays), defaultPickerKeys()
	points := m.tm.past.Points
	switch cur, moved := k.Nav.UpDown(msg, o.cursor, len(points)); {
	case key.Matches(msg, k.Close):
		m.overlays.drop(layerPoints)
		return m, nil
	case moved:
		o.cursor = cur
	case key.Matches(msg, k.Switch) && len(points) > 0:
		m.overlays.drop(layerPoints)
		// "txid 42" / "poll 42" is the spec "txid:42" / "poll:42".
		return m.at(strings.Replace(points[o.cursor].Label(m.tm.past.Source.Kind()), " ", ":", 1))
	}
	m.overlays.put(&o)
	return m, nil
}

// pointsView draws the list: one line a point, the one shown marked ●.
func (m model) pointsView(back string, h int) string {
	o, st, p := opened[*pointsState](m.overlays), m.styles, m.tm.past
	w := min(max(m.width-4, 20), 100)
	inner := w - 4
	kind := p.Source.Kind()
	lines := []string{fit(st.PaneTitle.Render("RESTORE POINTS")+st.Muted.Render(" · "+usertext.Sanitize(p.Source.Describe())), inner)}
	lines = append(lines, capLines(widgetsProse(st.Muted, fmt.Sprintf("%d points · ● is shown: %s", len(p.Points), p.Choice.Text(kind)), inner), 2, inner)...)
	lines = append(lines, capLines(widgetsProse(st.Muted, "cannot know: "+p.Source.Limits(), inner), max(h/10, 1), inner)...)
	lines = append(lines, "")
	page := max(h-len(lines)-4, 1)
	from, to := widgets.Centered(o.cursor, len(p.Points), page)
	for i := from; i < to; i++ {
		pt := p.Points[i]
		mark := listMark(i == o.cursor, i == p.Choice.Index, "● ")
		line := fmt.Sprintf("%s%-12s  %s", mark, pt.Label(kind), usertext.FormatTimeFixed(pt.At))
		if pt.Seq != 0 {
			line += fmt.Sprintf("  seq %d", pt.Seq)
		}
		if pt.Gap {
			line += "  (after a gap)"
		}
		line = fit(line, inner)
		if i == o.cursor {
			line = st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	box := st.PaneFocused.Width(w - 2).Render(strings.Join(lines, "\n"))
	return m.over(back, box, h)
}
