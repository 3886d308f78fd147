package leases

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// leaseRows are what a load of the Leases tab reads: every lease and cron
// tick row, and the cron schedules.
type leaseRows struct {
	rows []coord.LeaseRow
	cron []coord.CronSchedule
}

// leasesLoaded answers the load of inspectLeases.
type leasesLoaded = coordkit.Loaded[leaseRows]

// inspectLeases inspects every lease and cron tick row at now, and the
// cron schedules (for missing buckets and double wins per schedule).
func inspectLeases(ctx context.Context, s *store.Store, now int64) (r leaseRows, fs []coord.Finding, err error) {
	r.rows, fs, err = coord.InspectLeases(ctx, s, now)
	if err == nil {
		r.cron, _, err = coord.InspectCron(ctx, s, "", now)
	}
	return r, fs, err
}

// leaseOp names the action a leaseActed answers.
type leaseOp int

const (
	leaseAcquire leaseOp = iota
	leaseRelease
	leaseBreak
)

// leaseActed answers acquireLease, releaseLease and breakLease.
type leaseActed struct {
	session int
	op      leaseOp
	key     codec.Key
	stamp   string        // the stamp the action was guarded by (release, break)
	lease   coord.Lease   // what acquire took
	ttl     time.Duration // the TTL acquire asked for
	done    bool          // acquired / released / broken
	// now is the row at key after an action that did not happen, read to
	// explain why; found is false when there is none.
	now   store.Entry
	found bool
	err   error
}

// acquireLease takes the lease at key as kvdeck, in one attempt: a lease
// held by someone else is reported, not waited for.
func acquireLease(s *store.Store, session int, k codec.Key, ttl time.Duration) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		l, err := coord.AcquireKey(store.WithWriteOp(ctx, "leases: acquire"), s, k, coord.LeaseOptions{TTL: ttl, Timeout: -1})
		msg := leaseActed{session: session, op: leaseAcquire, key: k, lease: l, ttl: ttl, done: err == nil, err: err}
		if errors.Is(err, coord.ErrLeaseContended) {
			msg.err = nil
			msg.now, msg.found, msg.err = s.Get(ctx, k)
		}
		return msg
	})
}

// releaseLease gives back a lease kvdeck acquired, guarded by its stamp.
func releaseLease(s *store.Store, session int, l coord.Lease) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		ok, err := coord.Release(store.WithWriteOp(ctx, "leases: release"), s, l)
		msg := leaseActed{session: session, op: leaseRelease, key: l.Key, stamp: l.Versionstamp, done: ok, err: err}
		if err == nil && !ok {
			msg.now, msg.found, msg.err = s.Get(ctx, l.Key)
		}
		return msg
	})
}

// breakLease deletes the lease at key only if it still has the stamp the
// operator was shown.
func breakLease(s *store.Store, session int, k codec.Key, stamp string) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		ok, err := coord.Break(store.WithWriteOp(ctx, "leases: break"), s, k, stamp)
		msg := leaseActed{session: session, op: leaseBreak, key: k, stamp: stamp, done: ok, err: err}
		if err == nil && !ok {
			msg.now, msg.found, msg.err = s.Get(ctx, k)
		}
		return msg
	})
}

// onLoaded takes a load's answer, keeping the selection on the same key.
func (m Model) onLoaded(msg leasesLoaded) (Model, tea.Cmd) {
	if !m.LoadAnswered(msg.Session, msg.Gen, msg.Err) {
		return m, nil
	}
	m.rows, m.cron, m.finds = msg.Rows.rows, msg.Rows.cron, coordkit.FindingsByKey(msg.Findings)
	m.churn = m.churn.note(msg.Rows.rows, m.Deps.Now())
	keys := map[string]bool{}
	m.adoptOwn()
	for i, r := range m.rows {
		kt := codec.Format(r.Key)
		keys[kt] = true
		if l, ok := m.mine[kt]; ok && l.Versionstamp == r.Versionstamp {
			m.rows[i].TTLMs = l.ttl.Milliseconds() // kvdeck knows the TTL it asked for
		}
	}
	m.others = coordkit.Unplaced(msg.Findings, keys)
	if gone := m.list.Follow(m.ids(), m.tableRows()); gone != "" && gone != m.removed && m.filter.Text() == "" {
		return m, views.Flash(views.FlashInfo, "%s is gone (released, broken or swept); the cursor moved to the row in its place", gone)
	}
	return m, nil
}

// onActed reports an action's outcome and reloads.
func (m Model) onActed(msg leaseActed) (Model, tea.Cmd) {
	if !m.ActionAnswered(msg.session) {
		return m, nil
	}
	if msg.err != nil {
		if m.Form != nil && msg.op == leaseAcquire {
			m.Form.Err = msg.err.Error()
			return m, nil
		}
		return m, views.Flash(views.FlashError, "%s %s: %v", msg.op, codec.Format(msg.key), msg.err)
	}
	kt := codec.Format(msg.key)
	var flash tea.Cmd
	switch {
	case msg.done && msg.op == leaseAcquire:
		m.Form = nil
		m.mine = maps.Clone(m.mine)
		m.mine[kt] = heldLease{Lease: msg.lease, ttl: msg.ttl}
		m.acquired = maps.Clone(m.acquired)
		m.acquired[kt] = m.mine[kt]
		m.list.ID = kt
		flash = views.Flash(views.FlashOK, "acquired %s as holder %s at stamp %s, until %s; %s releases it",
			kt, msg.lease.Holder, msg.lease.Versionstamp, usertext.FormatTime(msg.lease.ExpiresAt), views.KeyName(m.keys.Release))
	case msg.done:
		m.mine = maps.Clone(m.mine)
		delete(m.mine, kt)
		m.removed = kt
		flash = views.Flash(views.FlashOK, "%s %s (it was at stamp %s)", msg.op.past(), kt, msg.stamp)
	case msg.op == leaseAcquire:
		why := "held by someone else: " + describeRow(msg.now, msg.found) + ". kvdeck tried once and wrote nothing."
		if m.Form == nil { // closed while the attempt was in flight
			return m, views.Flash(views.FlashError, "not acquired %s: %s", kt, why)
		}
		m.Form.Err = why
		return m, nil
	default:
		if msg.op == leaseRelease {
			m.mine = maps.Clone(m.mine)
			delete(m.mine, kt) // it lapsed: kvdeck holds nothing there any more
		}
		flash = views.Flash(views.FlashError, "not %s: you saw %s at stamp %s; it is %s now. Nothing was deleted.",
			msg.op.past(), kt, msg.stamp, describeRow(msg.now, msg.found))
	}
	m, cmd := m.Refresh()
	return m, tea.Batch(cmd, flash)
}

// adoptOwn takes into mine, at its stamp now, every row whose holder is
// one kvdeck acquired it as in this session and that mine does not hold
// at that stamp: kvdeck's lease put back by an undo (of a release or a
// break) under a new stamp, which d can release again.
func (m *Model) adoptOwn() {
	for _, r := range m.rows {
		kt := codec.Format(r.Key)
		a, ok := m.acquired[kt]
		if !ok || r.Holder != a.Holder || r.Kind == coord.KindCron {
			continue
		}
		if l, ok := m.mine[kt]; ok && l.Versionstamp == r.Versionstamp {
			continue
		}
		l := a
		l.Versionstamp = r.Versionstamp
		if r.ExpiresAt != nil {
			l.ExpiresAt = *r.ExpiresAt
		}
		m.mine = maps.Clone(m.mine)
		m.mine[kt] = l
	}
}

// describeRow says what a lease row holds now, for a conflict message.
func describeRow(e store.Entry, found bool) string {
	if !found {
		return "gone (released, broken, or expired)"
	}
	return fmt.Sprintf("at stamp %s held by %s", e.Versionstamp(), holderOf(e.Value))
}

// holderOf reads {"holder": ...} from a lease value, or shows the raw
// value when it has another shape.
func holderOf(v []byte) string {
	var rec struct {
		Holder *string `json:"holder"`
	}
	if json.Unmarshal(v, &rec) != nil || rec.Holder == nil {
		return "an unexpected value " + widgets.Sanitize(string(v))
	}
	return widgets.Sanitize(*rec.Holder)
}

// String names the action.
func (o leaseOp) String() string {
	switch o {
	case leaseAcquire:
		return "acquire"
	case leaseRelease:
		return "release"
	case leaseBreak:
	}
	return "break"
}

// past is the action's past participle.
func (o leaseOp) past() string {
	switch o {
	case leaseAcquire:
		return "acquired"
	case leaseRelease:
		return "released"
	case leaseBreak:
	}
	return "broken"
}
