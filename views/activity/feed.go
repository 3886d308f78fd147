package activity

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views/widgets"
)

// Bounds of what the feed keeps: it must stay small on a store of any
// size.
const (
	maxEvents = 2000 // events kept for the list (the oldest go first)
	// maxKept bounds the rows kept to find deletions: as many as the
	// events, so that every row the list shows is watched (the rows of
	// the newest maxEvents sets are the newest of the order).
	maxKept = maxEvents
	// A read re-reads a batch of the rows kept, in turn over all of
	// them, to find deletions: a bounded read however many were seen.
	// On a file it is small, since on a rollback-journal file each row
	// re-read lengthens a lock a live service's commit may meet; over a
	// server the batch rides in the refresh's one request.
	recheckFile   = 16
	recheckRemote = 256
	backlog       = 20 // commits shown from before the tab opened
)

// eventKind says what happened to a row.
type eventKind int

const (
	evSet     eventKind = iota // written (a stamp was issued)
	evDeleted                  // vanished from what kvdeck had read: no stamp
	evExpired                  // vanished past its expiry (swept or not)
)

func (k eventKind) String() string {
	switch k {
	case evDeleted:
		return "deleted"
	case evExpired:
		return "expired"
	case evSet:
	}
	return "set"
}

// event is one line of the feed.
type event struct {
	n      int // detection order, unique in the session
	kind   eventKind
	raw    []byte
	key    codec.Key // nil when raw does not decode
	record string    // lease, cron, alarm, queue, meta, dead letter, plain
	ver    int64     // the stamp (evSet); the last stamp seen otherwise
	value  []byte    // the new value (evSet) or the last value seen
	old    []byte    // the value kvdeck saw before, when it saw one
	hadOld bool
	expiry *int64
	before bool // stamped at or before the seq the tab opened at: the backlog
	// odd, for a set no stamp announced (recheck), says what the row's
	// ver holds instead of a stamp (store.Entry.Malformed).
	odd    string
	seenAt int64  // the clock when kvdeck read it
	text   string // the key as kvdeck's key syntax (or the raw hex): the filter's match
}

// seenRow is what kvdeck last read of a row: the recheck set.
type seenRow struct {
	ver    int64
	value  []byte
	expiry *int64
	key    codec.Key
	record string
}

// feed is the Activity tab's state over the store: the position in the
// change feed, the rows seen (re-read to find deletions), the events.
type feed struct {
	started bool
	after   int64  // rows stamped up to after have been read
	afterK  []byte // within a commit cut by a page
	seen    map[string]seenRow
	order   [][]byte // seen keys, oldest read first (the recheck window)
	turn    int      // where in order the next recheck batch starts
	mark    int64    // store.ChangesPage.Mark of the last page
	walk    *store.ChangesWalk
	// due counts the rows kept still to re-read since a commit was last
	// noticed: until it is zero a read rechecks whatever the mark says.
	due     int
	events  []event
	next    int // the n of the next event
	dropped int // events dropped past maxEvents
	version store.Version
	// openSeq is where seq stood when the tab opened: a row stamped at or
	// before it is the backlog (`earlier`), however many pages it takes.
	openSeq int64
	keyW    int // the widest key text kept (the KEY column's width)
}

// recordKind names the coordination record a key belongs to (as
// store/coord writes them), or "plain".
func recordKind(k codec.Key) string {
	if len(k) == 0 || k[0].Kind() != codec.KindString {
		return "plain"
	}
	switch k[0].StringValue() {
	case coord.PrefixLease:
		return "lease"
	case coord.PrefixCron:
		return "cron"
	case coord.PrefixAlarmDue, coord.PrefixAlarmByID:
		return "alarm"
	case coord.PrefixQueueDue:
		return "queue"
	case coord.PrefixMeta:
		return "meta"
	case coord.PrefixDeadLetter:
		return "dead letter"
	}
	return "plain"
}

// recheckKeys are the rows to re-read: batch of the rows kept, in turn,
// so that a deletion of any of them is found within len(order)/batch
// reads.
func (f *feed) recheckKeys(batch int) [][]byte {
	n := min(batch, len(f.order))
	out := make([][]byte, 0, n)
	for i := range n {
		out = append(out, f.order[(f.turn+i)%len(f.order)])
	}
	if len(f.order) > 0 {
		f.turn = (f.turn + n) % len(f.order)
	}
	return out
}

// apply takes a page of the change feed read at now, with the rows that
// were rechecked (in the order of keys). Changes become events in stamp
// order, then what the recheck found (recheck). The store's own clock
// reading (p.Now), taken after now, judges expiries.
func (f *feed) apply(p store.ChangesPage, keys [][]byte, now int64) {
	now = max(now, p.Now)
	if p.Mark != f.mark || p.Version != f.version {
		f.due = len(f.order) // a commit: every row kept is due again
	}
	if len(p.Rechecked) > 0 {
		f.due -= len(keys)
	}
	f.version, f.mark, f.walk = p.Version, p.Mark, p.Walk
	changed := map[string]bool{}
	for _, e := range p.Entries {
		changed[string(e.Raw)] = true
		f.set(e, e.Ver <= f.openSeq, "", now)
	}
	f.recheck(p, keys, changed, now)
	if p.Walk == nil && !p.More {
		// Up to date: a row kept whose expiry the clock passed is
		// expired, read or not (an idle page reads nothing).
		var gone [][]byte
		for _, raw := range f.order {
			if r := f.seen[string(raw)]; r.expiry != nil && *r.expiry <= now {
				f.add(event{kind: evExpired, raw: raw, key: r.key, record: r.record, ver: r.ver, value: r.value, expiry: r.expiry, seenAt: now})
				gone = append(gone, raw)
			}
		}
		for _, raw := range gone {
			f.forget(raw)
		}
	}
	if p.Walk == nil {
		f.after, f.afterK = p.Next, p.NextKey
	}
	f.trim()
	f.trimOrder()
	f.started = true
}

// set takes a row set: an event, unless the row was read at this stamp
// before (a page boundary re-read it); before marks a backlog row, odd a
// set no stamp announced (what its ver holds).
func (f *feed) set(e store.Entry, before bool, odd string, now int64) {
	ev := event{kind: evSet, raw: e.Raw, key: e.Key, ver: e.Ver, value: e.Value, expiry: e.ExpiresAt, before: before, odd: odd, seenAt: now}
	if e.KeyErr == nil {
		ev.record = recordKind(e.Key)
	} else {
		ev.record = "undecodable"
	}
	if old, ok := f.seen[string(e.Raw)]; ok {
		if old.ver == e.Ver {
			return
		}
		ev.old, ev.hadOld = old.value, true
	}
	f.add(ev)
	f.remember(e.Raw, seenRow{ver: e.Ver, value: e.Value, expiry: e.ExpiresAt, key: e.Key, record: ev.record})
}

// recheck compares the rows rechecked (keys) with what was kept: a row
// gone, and not set in the page (changed), was deleted, or expired when
// its expiry has passed; a row still there whose stamp changed to one the
// feed can never carry (none after the page's position: another
// program's ver that is no whole number) was set outside the feed.
func (f *feed) recheck(p store.ChangesPage, keys [][]byte, changed map[string]bool, now int64) {
	for i, raw := range keys {
		old, ok := f.seen[string(raw)]
		if i >= len(p.Rechecked) || changed[string(raw)] || !ok {
			continue
		}
		if e := p.Rechecked[i]; e != nil {
			if e.Ver != old.ver && e.Ver <= p.Next {
				odd := e.Malformed
				if odd == "" {
					odd = "ver " + strconv.FormatInt(e.Ver, 10) + ", not after the feed's position"
				}
				f.set(*e, false, odd, now)
			}
			continue
		}
		kind := evDeleted
		if old.expiry != nil && *old.expiry <= now {
			kind = evExpired
		}
		f.add(event{kind: kind, raw: raw, key: old.key, record: old.record, ver: old.ver, value: old.value, expiry: old.expiry, seenAt: now})
		f.forget(raw)
	}
}

// position is where the next read starts.
func (f *feed) position() position {
	mark := f.mark
	if f.due > 0 {
		mark = 0 // recheck whatever the mark says
	}
	return position{after: f.after, afterKey: f.afterK, mark: mark, walk: f.walk}
}

func (f *feed) add(ev event) {
	ev.text = keyText(ev)
	f.keyW = max(f.keyW, ansi.StringWidth(ev.text))
	ev.n = f.next
	f.next++
	f.events = append(f.events, ev)
}

// trim drops the oldest events past maxEvents, once a page (dropping them
// event by event copied the 2,000 kept for each row of a bulk write).
func (f *feed) trim() {
	if over := len(f.events) - maxEvents; over > 0 {
		f.events = append([]event(nil), f.events[over:]...)
		f.dropped += over
	}
}

// keyText is the event's key in kvdeck's key syntax, sanitized (the raw
// hex when it does not decode).
func keyText(ev event) string {
	if ev.key == nil {
		return fmt.Sprintf("(undecodable) %x", ev.raw)
	}
	return widgets.Sanitize(codec.Format(ev.key))
}

// remember puts raw at the newest end of the recheck window.
func (f *feed) remember(raw []byte, r seenRow) {
	if f.seen == nil {
		f.seen = map[string]seenRow{}
	}
	if _, ok := f.seen[string(raw)]; ok {
		f.dropOrder(raw)
	}
	f.seen[string(raw)] = r
	f.order = append(f.order, raw)
}

// trimOrder lets go of the rows past the recheck window, once a page.
func (f *feed) trimOrder() {
	if over := len(f.order) - maxKept; over > 0 {
		// Rows past the window are no longer watched for deletion.
		for _, k := range f.order[:over] {
			delete(f.seen, string(k))
		}
		f.order = append([][]byte(nil), f.order[over:]...)
		f.turn = max(f.turn-over, 0)
	}
}

func (f *feed) forget(raw []byte) {
	delete(f.seen, string(raw))
	f.dropOrder(raw)
}

func (f *feed) dropOrder(raw []byte) {
	for i, k := range f.order {
		if bytes.Equal(k, raw) {
			f.order = append(f.order[:i:i], f.order[i+1:]...)
			if i < f.turn {
				f.turn-- // the rows after it moved down one: skip none
			}
			return
		}
	}
}

// Events describes the feed, oldest first, as "what key" (tests of the
// root read it).
func (m Model) Events() []string {
	out := make([]string, 0, len(m.f.events))
	for _, ev := range m.f.events {
		if ev.before {
			continue
		}
		k := "(undecodable)"
		if ev.key != nil {
			k = codec.Format(ev.key)
		}
		out = append(out, ev.kind.String()+" "+k)
	}
	return out
}
