package alarms

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/coordkit"
)

// alarmsLoaded answers the load of inspectAlarms.
type alarmsLoaded = coordkit.Loaded[[]coord.AlarmClass]

// inspectAlarms inspects the alarms of every class at now.
func inspectAlarms(ctx context.Context, s *store.Store, now int64) ([]coord.AlarmClass, []coord.Finding, error) {
	return coord.InspectAlarms(ctx, s, "", now)
}

// alarmOp names the action an alarmActed answers.
type alarmOp int

const (
	alarmSet alarmOp = iota
	alarmDelete
	alarmDeleteRow
	alarmFire
)

// alarmActed answers the alarm actions.
type alarmActed struct {
	session   int
	op        alarmOp
	class, id string
	key       codec.Key // the row (alarmDeleteRow)
	at        int64     // the new due time (set) or the poll's now (fire)
	done      bool
	firings   []coord.AlarmFiring
	asked     int // the due alarms the fire's dialog counted
	err       error
}

// alarmFireReport is the outcome of the last fire, shown in the detail
// area of its class.
type alarmFireReport struct {
	class   string
	at      int64
	firings []coord.AlarmFiring
	asked   int // the due alarms the dialog counted
	err     error
}

// setAlarm schedules (or replaces) class/id at at, as a service's setAlarm.
func setAlarm(s *store.Store, session int, class, id string, at int64) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		err := coord.SetAlarm(store.WithWriteOp(ctx, "alarms: set"), s, class, id, at)
		return alarmActed{session: session, op: alarmSet, class: class, id: id, at: at, done: err == nil, err: err}
	})
}

// deleteAlarm removes the alarm of class/id: its due entry and by-id row.
func deleteAlarm(s *store.Store, session int, class, id string) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		ok, err := coord.DeleteAlarm(store.WithWriteOp(ctx, "alarms: delete"), s, class, id)
		return alarmActed{session: session, op: alarmDelete, class: class, id: id, done: ok, err: err}
	})
}

// deleteAlarmRow removes one row (a stale or malformed due entry) only if
// it still has the stamp shown.
func deleteAlarmRow(s *store.Store, session int, class, id string, k codec.Key, stamp string) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		res, err := s.Atomic().Check(k, stamp).Delete(k).Commit(store.WithWriteOp(ctx, "alarms: delete row"))
		return alarmActed{session: session, op: alarmDeleteRow, class: class, id: id, key: k, done: err == nil && res.OK, err: err}
	})
}

// fireAlarms polls class once at now like a replica whose handler succeeds
// at once. The object's lease is tried once: one held elsewhere re-posts
// the alarm at now instead of making the operator wait.
func fireAlarms(s *store.Store, session int, class string, now int64, asked int) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		p := &coord.AlarmPoller{Store: s, Class: class, Lease: coord.LeaseOptions{Timeout: -1}}
		fs, err := p.Poll(store.WithWriteOp(ctx, "alarms: fire"), now)
		return alarmActed{session: session, op: alarmFire, class: class, at: now, done: err == nil, firings: fs, asked: asked, err: err}
	})
}

// onLoaded takes a load's answer, keeping both selections by key.
func (m Model) onLoaded(msg alarmsLoaded) (Model, tea.Cmd) {
	if !m.LoadAnswered(msg.Session, msg.Gen, msg.Err) {
		return m, nil
	}
	m.classes, m.finds = msg.Rows, coordkit.FindingsByKey(msg.Findings)
	if m.want != nil {
		m.selectWanted()
	}
	return m, m.lists.FollowSaying(m.sides(),
		coordkit.Gone{What: "class", Why: "its alarms fired or were deleted"},
		coordkit.Gone{What: "alarm", Why: "fired, deleted or rescheduled"})
}

// onActed reports an action's outcome and reloads.
func (m Model) onActed(msg alarmActed) (Model, tea.Cmd) {
	if !m.ActionAnswered(msg.session) {
		return m, nil
	}
	var flash tea.Cmd
	switch {
	case msg.err != nil && m.Form != nil && msg.op == alarmSet:
		m.Form.Err = msg.err.Error()
		return m, nil
	case msg.op == alarmFire:
		m.fired = &alarmFireReport{class: msg.class, at: msg.at, firings: msg.firings, asked: msg.asked, err: msg.err}
		flash = views.Flash(views.FlashOK, "fired %s at %s: %s", msg.class, usertext.FormatTime(msg.at), fireSummary(msg.firings, msg.asked))
		if msg.err != nil {
			flash = views.Flash(views.FlashError, "fire %s stopped: %v (%s)", msg.class, msg.err, fireSummary(msg.firings, msg.asked))
		}
	case msg.err != nil:
		flash = views.Flash(views.FlashError, "%s/%s: %v", msg.class, msg.id, msg.err)
	case msg.op == alarmSet:
		m.Form = nil
		m.lists.Items.ID = codec.Format(coord.AlarmDueKey(msg.class, msg.at, msg.id))
		m.lists.Groups.ID, m.lists.OnItems = msg.class, true
		flash = views.Flash(views.FlashOK, "set %s/%s due %s (retry count 0)", msg.class, msg.id, usertext.FormatTime(msg.at))
	case msg.op == alarmDelete && !msg.done:
		flash = views.Flash(views.FlashError, "%s/%s: no alarm to delete any more (fired, deleted or rescheduled meanwhile)", msg.class, msg.id)
	case msg.op == alarmDeleteRow && !msg.done:
		flash = views.Flash(views.FlashError, "not deleted: %s changed or went away after it was shown. Nothing was deleted.", codec.Format(msg.key))
	case msg.op == alarmDeleteRow:
		flash = views.Flash(views.FlashOK, "deleted the row %s", codec.Format(msg.key))
	default:
		flash = views.Flash(views.FlashOK, "deleted the alarm %s/%s (its due entry and by-id record)", msg.class, msg.id)
	}
	m.lists.Quiet()
	m, cmd := m.Refresh()
	return m, tea.Batch(cmd, flash)
}

// fireSummary counts the outcomes of a fire: "2 fired, 1 reposted", and
// says when another poller took alarms the dialog counted (asked).
func fireSummary(fs []coord.AlarmFiring, asked int) string {
	return coordkit.DueSummary(fireCounts(fs), len(fs), asked, "alarm(s)", "poller")
}

// fireCounts counts the outcomes of a fire's firings.
func fireCounts(fs []coord.AlarmFiring) string {
	var order []coord.AlarmOutcome
	n := map[coord.AlarmOutcome]int{}
	for _, f := range fs {
		if n[f.Outcome] == 0 {
			order = append(order, f.Outcome)
		}
		n[f.Outcome]++
	}
	parts := make([]string, len(order))
	for i, o := range order {
		parts[i] = fmt.Sprintf("%d %s", n[o], o)
	}
	return strings.Join(parts, ", ")
}
