package activity

import (
	"context"
	"math"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/changefeed"
	"kvdeck/store"
	"kvdeck/views"
)

// A read of the feed takes tuning.pageRows rows at most; pagesPerRefresh
// bounds the reads one refresh chains. The rest is read by the next
// refresh or, when none comes (the store went still after a bulk write),
// on a tick at tuning.walkPace: the tab catches up, and says how far it
// has read meanwhile. pagesIdle bounds them instead when nothing was
// committed since the last refresh ended: no writer to meet on a file's
// lock, so a backlog left by a bulk write is read five times as fast
// (5,000 rows a tick at the tab's 200-row pages).
const (
	pagesPerRefresh = 5
	pagesIdle       = 25
)

// walkTick continues a paced walk of the table (store.ChangesPage.Walk),
// the recheck of the rows kept, or the reading of a backlog cut by
// pagesPerRefresh, when no refresh comes first.
type walkTick struct{ session, gen int }

// fed answers readFeed.
type fed struct {
	session, gen int
	page         store.ChangesPage
	req          changefeed.Request // what the page read
	now          int64
	start        bool // the first read: a backlog, from before the tab opened
	// head says where the store stood at the first read (start).
	head    store.ChangesPage
	chained int // pages read by this refresh so far
	// odd counts the rows whose ver is not a whole number (start only):
	// never in the feed, said under the list. -1: not known.
	odd int64
	err error
}

// readFeed reads one page of the change feed for req (rows stamped
// after its position, bounded, and its rows re-read in the same request
// to find the rows that vanished). The first read asks where seq stands
// (a read of no row) and then the last backlog commits. A page holds
// rows at most.
func readFeed(s *store.Store, session, gen int, req changefeed.Request, rows int, now int64, start bool, chained int) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		msg := fed{session: session, gen: gen, now: now, start: start, chained: chained}
		if start {
			// Where seq stands: nothing is stamped after MaxInt64.
			p, err := s.Changes(ctx, store.ChangesOptions{After: math.MaxInt64})
			if err != nil {
				msg.err = err
				return msg
			}
			msg.head = p
			req = changefeed.Request{After: max(p.Version.Seq-backlog, 0), Mark: p.Mark}
			if _, msg.odd, err = s.OddStamps(ctx, nil, 0); err != nil {
				msg.odd = -1 // not fatal: the note says it is not known
			}
		}
		msg.req = req
		msg.page, msg.err = s.Changes(ctx, req.Options(nil, rows))
		return msg
	})
}
