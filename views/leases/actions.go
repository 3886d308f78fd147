package leases

import (
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// handleList handles keys while the table has them.
func (m Model) handleList(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.keys
	if m.list.Handle(msg, k.NavKeys, m.ids(), m.tableRows()) {
		return m, nil
	}
	if ok, changed, cmd := m.filter.Start(msg, &m.keys.FilterKeys); ok {
		if changed {
			m.list.Follow(m.ids(), m.tableRows())
		}
		return m, cmd
	}
	switch {
	case key.Matches(msg, k.Sort):
		m.byLeft = !m.byLeft
		m.list.Follow(m.ids(), m.tableRows())
	case key.Matches(msg, k.Reload):
		return m.Refresh()
	case key.Matches(msg, k.Browse):
		if r, ok := m.selected(); ok {
			return m, views.Goto(r.Key)
		}
		return m, nil
	case key.Matches(msg, k.Acquire):
		m.startAcquire()
	case key.Matches(msg, k.Release):
		return m.release()
	case key.Matches(msg, k.Break):
		return m, m.askBreak()
	default:
		return m, m.keys.Writes().Refuse(m.ReadOnly, msg)
	}
	return m, nil
}

// handleForm handles keys while the acquire form is open; a valid
// submission acquires.
func (m Model) handleForm(msg tea.KeyMsg) (Model, tea.Cmd) {
	vals, ok, cmd := m.FormKey(msg)
	if !ok {
		return m, cmd
	}
	k, _ := widgets.ParseKey(vals[0])
	ttl, _ := parseLeaseTTL(vals[1])
	return m, acquireLease(m.Store, m.Deps.Session, k, ttl)
}

// startAcquire opens the acquire form, its key prefilled with the
// selected lease's class.
func (m *Model) startAcquire() {
	prefill := `["dwk_lease", "`
	if r, ok := m.selected(); ok && r.Kind == coord.KindLease && r.Problem == "" {
		prefill = fmt.Sprintf(`["dwk_lease", %s, "`, codec.String(r.Name).String())
	}
	now := m.Deps.Now
	m.Form = widgets.NewForm("ACQUIRE A LEASE AS KVDECK",
		"One attempt: check the key is absent (or expired) + set {holder: new uuid} with the TTL. "+
			"kvdeck remembers the stamp for this session, so r can release it.", m.Styles).
		Add("key", prefill, `["dwk_lease", "Cart", "0e58…"]`, checkLeaseKey).
		Add("ttl", "30s", "30s", func(s string) (string, error) {
			d, err := parseLeaseTTL(s)
			if err != nil {
				return "", err
			}
			return "lapses at " + usertext.FormatTime(now()+d.Milliseconds()) + " unless released", nil
		})
	m.Form.SetWidth(m.detailInner())
}

// checkLeaseKey validates the key field.
func checkLeaseKey(s string) (string, error) {
	k, err := widgets.ParseKey(s)
	if err != nil {
		return "", err
	}
	if len(k) == 0 {
		return "", errors.New("the key is empty")
	}
	if !k[0].Equal(codec.String(coord.PrefixLease)) || len(k) != 3 {
		return codec.Format(k) + " (not [\"dwk_lease\", class, id]: no service sees it as a lease)", nil
	}
	return codec.Format(k), nil
}

// parseLeaseTTL reads a lease TTL: a Go duration of whole milliseconds, > 0.
func parseLeaseTTL(s string) (time.Duration, error) {
	return usertext.ParseDurationAtLeast(s, time.Millisecond)
}

// release gives back the selected lease if kvdeck acquired it.
func (m Model) release() (Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, views.Flash(views.FlashInfo, "select a lease to release it")
	}
	l, mine := m.mine[codec.Format(r.Key)]
	if !mine {
		return m, views.Flash(views.FlashInfo, "kvdeck did not acquire %s in this session, so it cannot release it; B breaks it (CAS on the shown stamp)", codec.Format(r.Key))
	}
	// A key that writes asks first, like every other.
	return m, views.Confirm("Release this lease?", "release", releaseLease(m.Store, m.Deps.Session, l.Lease),
		"Deletes "+codec.Format(r.Key)+", which kvdeck acquired at stamp "+l.Versionstamp+",",
		"only if it still has that stamp: a lease that lapsed and was taken by someone else is left alone.")
}

// askBreak asks to break the selected lease, guarded by the shown stamp.
func (m Model) askBreak() tea.Cmd {
	r, ok := m.selected()
	switch {
	case !ok:
		return views.Flash(views.FlashInfo, "select a lease to break it")
	case leaseStateAt(r, m.Deps.Now()) == coord.LeaseExpired:
		return views.Flash(views.FlashInfo, "%s already expired: it holds nothing and no check can match it; a sweep removes the row (Sweep tab or kvdeck sweep)", codec.Format(r.Key))
	}
	kt := codec.Format(r.Key)
	lines := []string{
		"Deletes " + kt + ",",
		"held by " + widgets.Sanitize(r.Holder) + ", only if it is still at stamp " + r.Versionstamp + ".",
		"If the lease changed since it was shown (released, re-acquired), nothing is deleted.",
		"A live holder loses its exclusive access at once: another replica can take the lease.",
	}
	if r.Kind == coord.KindCron {
		lines[3] = "Another replica can then win this tick bucket again: the tick may run twice."
	}
	return views.Confirm("Break this lease?", "break", breakLease(m.Store, m.Deps.Session, r.Key, r.Versionstamp), lines...)
}
