package activity

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/internal/changefeed"
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

// feed is the Activity tab's events over the change feed's consumer
// (internal/changefeed: the position, the rows seen and re-read, what
// happened to each), which decides them; the tab only shows them.
type feed struct {
	c       *changefeed.Consumer
	started bool
	events  []event
	next    int // the n of the next event
	dropped int // events dropped past maxEvents
	// openSeq is where seq stood when the tab opened: a row stamped at or
	// before it is the backlog (`earlier`), however many pages it takes.
	openSeq int64
	keyW    int // the widest key text kept (the KEY column's width)
	// keyLeast is the most cells a key kept needs to read
	// (widgets.KeyCellMin): the KEY column gives up no more.
	keyLeast int
}

// newFeed is a feed that keeps the newest maxKept rows read.
func newFeed() feed {
	return feed{c: changefeed.New(&changefeed.MemRows{Max: maxKept})}
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

// apply takes a page of the change feed, read for req with the clock at
// now: the consumer's events join the list.
func (f *feed) apply(p store.ChangesPage, req changefeed.Request, now int64) {
	for _, ev := range f.c.Apply(p, req, now) {
		f.add(f.event(ev))
	}
	f.trim()
	f.started = true
}

// event is the line of ev: a set stamped at or before openSeq is the
// backlog.
func (f *feed) event(ev changefeed.Event) event {
	e := ev.Entry()
	out := event{kind: evSet, raw: ev.Raw, key: e.Key, ver: e.Ver, value: e.Value, expiry: e.ExpiresAt, odd: ev.Odd, seenAt: ev.At}
	switch ev.Kind {
	case changefeed.Delete:
		out.kind = evDeleted
	case changefeed.Expire:
		out.kind = evExpired
	case changefeed.Set:
		out.before = ev.Odd == "" && e.Ver <= f.openSeq
		if ev.Old != nil {
			out.old, out.hadOld = ev.Old.Value, true
		}
	}
	out.record = "undecodable"
	if e.KeyErr == nil {
		out.record = recordKind(e.Key)
	}
	return out
}

func (f *feed) add(ev event) {
	ev.text = keyText(ev)
	f.keyW = max(f.keyW, ansi.StringWidth(ev.text))
	if ev.key != nil {
		f.keyLeast = max(f.keyLeast, widgets.KeyCellMin(ev.key))
	}
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
