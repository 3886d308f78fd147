package leases

import (
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// toggleSort sorts by key or by time left.
func (m *Model) toggleSort() tea.Cmd {
	m.byLeft = !m.byLeft
	m.list.Follow(m.ids(), m.tableRows())
	return nil
}

// showInBrowse shows the selected row's raw key in Browse.
func (m *Model) showInBrowse() tea.Cmd {
	if r, ok := m.selected(); ok {
		return views.Goto(r.Key)
	}
	return nil
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
func (m *Model) startAcquire() tea.Cmd {
	prefill := `["dwk_lease", "`
	if r, ok := m.selected(); ok && r.Kind == coord.KindLease && r.Problem == "" {
		prefill = fmt.Sprintf(`["dwk_lease", %s, "`, codec.String(r.Name).String())
	}
	now := m.Deps.Now
	m.Form = widgets.NewForm("ACQUIRE A LEASE AS KVDECK",
		"One attempt: check the key is absent (or expired) + set {holder: new uuid} with the TTL. "+
			views.Hint("kvdeck remembers the stamp for this session, so %s can release it.", m.keys.Release), m.Styles).
		Add("key", prefill, `["dwk_lease", "Cart", "0e58…"]`, checkLeaseKey).
		Add("ttl", "30s", "30s", func(s string) (string, error) {
			d, err := parseLeaseTTL(s)
			if err != nil {
				return "", err
			}
			return "lapses at " + usertext.FormatTime(now()+d.Milliseconds()) + " unless released", nil
		})
	m.Form.SetWidth(m.detailInner())
	return nil
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

// releaseOff says why d cannot release: no row selected, or one kvdeck
// did not acquire in this session (it holds no proof of holding it).
func (m Model) releaseOff() string {
	r, ok := m.selected()
	if !ok {
		return "select a lease to release it"
	}
	if _, mine := m.mine[codec.Format(r.Key)]; !mine {
		return fmt.Sprintf("kvdeck did not acquire %s in this session, so it cannot release it; %s breaks it (CAS on the shown stamp)",
			codec.Format(r.Key), views.KeyName(m.keys.Break))
	}
	return ""
}

// askRelease asks to give back the selected lease, which kvdeck
// acquired (releaseOff).
func (m *Model) askRelease() tea.Cmd {
	r, _ := m.selected()
	l := m.mine[codec.Format(r.Key)]
	// A key that writes asks first, like every other.
	return views.Confirm("Release this lease?", "release", releaseLease(m.Store, m.Deps.Session, l.Lease),
		"Deletes "+codec.Format(r.Key)+", which kvdeck acquired at stamp "+l.Versionstamp+",",
		"only if it still has that stamp: a lease that lapsed and was taken by someone else is left alone.")
}

// breakOff says why B cannot break: no row selected, or a lease already
// expired (no check can match it).
func (m Model) breakOff() string {
	r, ok := m.selected()
	switch {
	case !ok:
		return "select a lease to break it"
	case leaseStateAt(r, m.Deps.Now()) == coord.LeaseExpired:
		return fmt.Sprintf("%s already expired: it holds nothing and no check can match it; a sweep removes the row (Sweep tab or kvdeck sweep)", codec.Format(r.Key))
	}
	return ""
}

// askBreak asks to break the selected lease, guarded by the shown stamp.
func (m *Model) askBreak() tea.Cmd {
	r, _ := m.selected()
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
