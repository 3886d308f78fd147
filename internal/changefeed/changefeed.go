// Package changefeed is the one consumer of the store's change feed
// (store.Changes): it keeps a position in the feed and the rows it has
// seen, and decides what happened to each row: set, deleted or expired.
// kvdeck watch (and record) and the Activity tab render its events; they
// do not judge a row themselves.
//
// The store stamps sets only: a set is a row of a page. A deletion or an
// expiry issues no stamp, so the consumer re-reads the rows it saw, a
// batch a read (Request.Recheck), and a row gone from what it saw
// expired when its expiry is at or before the later of the two clock
// readings (the reader's, taken before the read, and the store's at the
// read, ChangesPage.Now), else was deleted. A row still there whose
// stamp changed to one the feed can never carry (another program's ver
// that is no whole number) was set outside the feed: an Odd set.
package changefeed

import (
	"strconv"

	"kvdeck/codec"
	"kvdeck/store"
)

// Kind says what happened to a row.
type Kind int

const (
	Set    Kind = iota // written (a stamp was issued, or Event.Odd)
	Delete             // vanished from what the consumer saw, before its expiry
	Expire             // past its expiry: vanished, or still there unswept
)

// String is the kind as watch prints it.
func (k Kind) String() string {
	switch k {
	case Delete:
		return "delete"
	case Expire:
		return "expire"
	case Set:
	}
	return "set"
}

// Event is what the consumer decided about one row.
type Event struct {
	Kind Kind
	Raw  []byte
	// Old is the row as the consumer last saw it; nil when it saw none.
	Old *Row
	// New is the row now (Set); nil after a Delete or an Expire.
	New *store.Entry
	// At is the clock reading the event was decided at.
	At int64
	// Odd, on a set no stamp announced (a re-read found it), says what
	// the row's ver holds instead of a stamp.
	Odd string
}

// Entry is the row the event is about: New for a set, else Old.
func (e Event) Entry() *store.Entry {
	if e.New != nil {
		return e.New
	}
	return &e.Old.Entry
}

// Row is a row as the consumer saw it.
type Row struct {
	store.Entry
	// Unkept: the value was not kept (Entry.Value is nil); the key,
	// stamp and expiry are.
	Unkept bool
}

// Rows holds the rows a consumer has seen, by raw key: MemRows (the
// newest rows read, in memory) or DiskRows (every row, on disk).
type Rows interface {
	Get(raw []byte) (Row, bool)
	Put(e store.Entry)
	Drop(raw []byte)
	Len() int
	// Next is the next n rows to re-read, in turn over all of them, so
	// that a deletion of any is found within Len/n reads.
	Next(n int) [][]byte
	// Expired is the rows whose expiry is at or before now.
	Expired(now int64) [][]byte
	// Settle runs once a page, after its events: a bounded set lets go
	// of the rows past its bound.
	Settle()
}

// Request is one read of the feed: where it starts and the rows it
// re-reads.
type Request struct {
	After    int64
	AfterKey []byte
	Mark     int64
	Walk     *store.ChangesWalk
	Recheck  [][]byte
}

// Options are r's store.ChangesOptions for keys under prefixes (none:
// every row), at most limit rows a page.
func (r Request) Options(prefixes []codec.Key, limit int) store.ChangesOptions {
	return store.ChangesOptions{After: r.After, AfterKey: r.AfterKey, Prefixes: prefixes, Limit: limit, Recheck: r.Recheck, Mark: r.Mark, Walk: r.Walk}
}

// Consumer follows the change feed: its position, the rows seen, the
// events. Its methods run on one goroutine (a read may run elsewhere on
// the Request it handed out).
type Consumer struct {
	rows Rows
	// Exact, when not nil, limits the events to these raw keys.
	Exact    map[string]bool
	after    int64
	afterKey []byte
	mark     int64 // store.ChangesPage.Mark of the last page
	walk     *store.ChangesWalk
	version  store.Version
	// due counts the rows seen still to re-read since a commit was last
	// noticed: until it is zero a read rechecks whatever the mark says
	// (the mark says nothing of the rows the last batches did not hold).
	due int
}

// New is a consumer keeping the rows it sees in rows.
func New(rows Rows) *Consumer { return &Consumer{rows: rows} }

// Start places the consumer after stamp after, head being a page that
// says where the store stands (its version and mark).
func (c *Consumer) Start(head store.ChangesPage, after int64) {
	c.after, c.afterKey, c.mark, c.version = after, nil, head.Mark, head.Version
}

// See keeps e as seen without an event (the rows a watch reads first).
func (c *Consumer) See(e store.Entry) { c.rows.Put(e) }

// Next is the next read: the position and the next batch of rows seen
// to re-read.
func (c *Consumer) Next(batch int) Request {
	r := c.Continue()
	r.Recheck = c.rows.Next(batch)
	return r
}

// Continue is the read of the page after one cut by its bounds
// (ChangesPage.More): the position, nothing re-read.
func (c *Consumer) Continue() Request {
	mark := c.mark
	if c.due > 0 {
		mark = 0 // recheck whatever the mark says
	}
	return Request{After: c.after, AfterKey: c.afterKey, Mark: mark, Walk: c.walk}
}

// Apply takes page p, read for r with the reader's clock at now, and
// returns its events: the sets in stamp order, then what the re-read
// found (in the order of r.Recheck), then, once the feed is read to its
// end, the rows seen whose expiry the clock passed.
func (c *Consumer) Apply(p store.ChangesPage, r Request, now int64) []Event {
	now = max(now, p.Now)
	if p.Mark != c.mark || p.Version != c.version {
		c.due = c.rows.Len() // a commit: every row seen is due again
	}
	if len(p.Rechecked) > 0 {
		c.due -= len(r.Recheck)
	}
	c.version, c.mark, c.walk = p.Version, p.Mark, p.Walk
	var out []Event
	changed := map[string]bool{}
	for _, e := range p.Entries {
		if c.Exact != nil && !c.Exact[string(e.Raw)] {
			continue
		}
		changed[string(e.Raw)] = true
		out = c.set(out, e, "", now)
	}
	out = c.recheck(out, p, r.Recheck, changed, now)
	if p.Walk == nil && !p.More {
		// Read to the end: a row seen whose expiry the clock passed has
		// expired, read or not (an idle page reads nothing), and no
		// later write of it is left unread.
		for _, raw := range c.rows.Expired(now) {
			old, _ := c.rows.Get(raw)
			out = append(out, Event{Kind: Expire, Raw: raw, Old: &old, At: now})
			c.rows.Drop(raw)
		}
	}
	if p.Walk == nil {
		c.after, c.afterKey = p.Next, p.NextKey
	}
	c.rows.Settle()
	return out
}

// set takes a row set: an event, unless the row was seen at this stamp
// (a page boundary or the first read read it); odd names a set no stamp
// announced.
func (c *Consumer) set(out []Event, e store.Entry, odd string, now int64) []Event {
	ev := Event{Kind: Set, Raw: e.Raw, New: &e, At: now, Odd: odd}
	if old, ok := c.rows.Get(e.Raw); ok {
		if old.Ver == e.Ver {
			return out
		}
		ev.Old = &old
	}
	c.rows.Put(e)
	return append(out, ev)
}

// recheck compares the rows re-read (keys) with what was seen: a row
// gone, and not set in the page (changed), expired when its expiry is at
// or before now, else was deleted; a row still there whose stamp changed
// to one the feed can never carry (none after the page's position) was
// set outside the feed.
func (c *Consumer) recheck(out []Event, p store.ChangesPage, keys [][]byte, changed map[string]bool, now int64) []Event {
	for i, raw := range keys {
		if i >= len(p.Rechecked) || changed[string(raw)] {
			continue
		}
		old, ok := c.rows.Get(raw)
		if !ok {
			continue
		}
		if e := p.Rechecked[i]; e != nil {
			if e.Ver != old.Ver && e.Ver <= p.Next {
				odd := e.Malformed
				if odd == "" {
					odd = "ver " + strconv.FormatInt(e.Ver, 10) + ", not after the feed's position"
				}
				out = c.set(out, *e, odd, now)
			}
			continue
		}
		kind := Delete
		if !old.Live(now) {
			kind = Expire
		}
		out = append(out, Event{Kind: kind, Raw: raw, Old: &old, At: now})
		c.rows.Drop(raw)
	}
	return out
}

// After is the stamp the feed has been read to.
func (c *Consumer) After() int64 { return c.after }

// Walk is the paced walk under way (store.ChangesPage.Walk), nil when
// none is.
func (c *Consumer) Walk() *store.ChangesWalk { return c.walk }

// Due counts the rows seen still to re-read since the last commit.
func (c *Consumer) Due() int { return c.due }

// Pending reports whether the consumer has reading left to do though the
// store stays still: a paced walk, or rows due a re-read.
func (c *Consumer) Pending() bool { return c.walk != nil || c.due > 0 }

// Version is the store's seq and row count at the last page.
func (c *Consumer) Version() store.Version { return c.version }

// Rows is the rows seen.
func (c *Consumer) Rows() Rows { return c.rows }
