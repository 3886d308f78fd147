package sweep

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// The guard: under a virtual clock ahead of the real one, a sweep would
// delete rows the real clock still sees live (a lease its holder still
// holds). s then counts them first (one aggregate per window, on the
// server: a dry run with store.SweepOptions.RealNow) and, when there are
// any, opens this dialog instead of the root's yes/no: sweep only what the
// real clock sees expired, or, explicitly, everything.

// GuardKeys are the keys of the guard's dialog.
type GuardKeys struct {
	Expired, All, Cancel key.Binding
}

// DefaultGuardKeys returns the guard dialog's keys: e sweeps only the
// really expired rows, A (upper case, on purpose) sweeps the live ones
// too, n or esc cancels. Enter does nothing, as in every confirmation.
func DefaultGuardKeys() GuardKeys {
	return GuardKeys{
		Expired: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "sweep only what the real clock sees expired")),
		All:     key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "sweep all, the live rows too")),
		Cancel:  key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "cancel")),
	}
}

// guardAsk is the open dialog: what s counted.
type guardAsk struct {
	scope sweepScope
	// now is the virtual clock and real the real one when s was pressed.
	now, real int64
	// expired is what the real clock sees expired; live what only the
	// virtual clock does.
	expired, live int64
}

// guardCounted answers countGuard.
type guardCounted struct {
	session, gen int
	scope        sweepScope
	now, real    int64
	res          store.SweepResult
	err          error
}

// countGuard counts, under prefix, the rows expired at real and those
// expired at now but live at real (a dry run of the guarded sweep).
func countGuard(src *store.Store, session, gen int, sc sweepScope, now, real int64) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), scanTimeout)
		defer cancel()
		res, err := src.Sweep(ctx, store.SweepOptions{Now: now, RealNow: real, Prefix: sc.prefix(), DryRun: true})
		return guardCounted{session: session, gen: gen, scope: sc, now: now, real: real, res: res, err: err}
	}
}

// onGuardCounted opens the dialog when some row is live by the real
// clock, else asks the root's usual confirmation.
func (m Model) onGuardCounted(msg guardCounted) (Model, tea.Cmd) {
	if msg.session != m.deps.Session || msg.gen != m.askGen || m.run != nil {
		return m, nil
	}
	m.counting = false
	switch {
	case msg.err != nil:
		return m, views.Flash(views.FlashError, "sweep: counting the rows the real clock sees live failed: %v", msg.err)
	case msg.res.LiveByReal == 0:
		return m, m.confirm(msg.scope, msg.now, msg.res.Swept)
	}
	m.guard = &guardAsk{scope: msg.scope, now: msg.now, real: msg.real, expired: msg.res.Swept, live: msg.res.LiveByReal}
	return m, nil
}

// guardKey handles a key while the dialog is open; every other key is
// swallowed, as the root's dialog does.
func (m Model) guardKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	g := *m.guard
	switch {
	case key.Matches(msg, m.guardKeys.Expired):
		m.guard = nil
		if g.expired == 0 {
			return m, views.Flash(views.FlashInfo, "nothing under %s is expired by the real clock: nothing swept", scopeName(g.scope))
		}
		return m.start(sweepConfirmed{session: m.deps.Session, gen: m.askGen, scope: g.scope, now: g.now, total: g.expired})
	case key.Matches(msg, m.guardKeys.All):
		m.guard = nil
		return m.start(sweepConfirmed{session: m.deps.Session, gen: m.askGen, scope: g.scope, now: g.now,
			total: g.expired + g.live, includeLive: true})
	case key.Matches(msg, m.guardKeys.Cancel):
		m.guard = nil
		return m, views.Flash(views.FlashInfo, "cancelled: nothing swept")
	}
	return m, nil
}

// guardView is the dialog, centred over the tab.
func (m Model) guardView() string {
	g := m.guard
	st := m.styles
	inner := min(max(m.width-10, 20), 72)
	ahead := (time.Duration(g.now-g.real) * time.Millisecond).Round(time.Second)
	text := []string{
		fmt.Sprintf("The clock is %s ahead of the real one: it reads %s.", ahead, usertext.FormatTime(g.now)),
		fmt.Sprintf("%d row(s) under %s are still live by the real clock; sweeping them ends leases now held (their holders lose exclusivity without being told) and drops alarms and messages before they are due.",
			g.live, scopeName(g.scope)),
		fmt.Sprintf("%d row(s) are expired by the real clock too.", g.expired),
	}
	lines := []string{st.DialogTitle.Render("Sweep under a clock ahead of the real one?"), ""}
	for i, t := range text {
		if i > 0 {
			lines = append(lines, "")
		}
		for _, wl := range widgets.Wrap(widgets.Sanitize(t), inner) {
			lines = append(lines, lipgloss.NewStyle().Width(inner).Render(wl))
		}
	}
	k := m.guardKeys
	lines = append(lines, "",
		st.HelpKey.Render("e")+" "+st.Text.Render(fmt.Sprintf("sweep only the %d row(s) expired by the real clock", g.expired)),
		st.HelpKey.Render("A")+" "+st.Text.Render(fmt.Sprintf("sweep all %d, the %d live row(s) too", g.expired+g.live, g.live)),
		st.HelpKey.Render(k.Cancel.Help().Key)+" "+st.Text.Render("cancel"))
	box := st.Dialog.Render(strings.Join(lines, "\n"))
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, box)
}
