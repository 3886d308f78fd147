package activity

import (
	"context"
	"math"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store"
	"kvdeck/views"
)

// pageRows bounds one read of the feed; pagesPerRefresh bounds the reads
// one refresh chains (the rest waits for the next refresh, and the view
// says it is behind).
const (
	pageRows        = 200
	pagesPerRefresh = 5
)

// fed answers readFeed.
type fed struct {
	session, gen int
	page         store.ChangesPage
	keys         [][]byte // the rows rechecked, in the order of page.Rechecked
	now          int64
	start        bool // the first read: a backlog, from before the tab opened
	chained      int  // pages read by this refresh so far
	err          error
}

// readFeed reads one page of the change feed after the position (rows
// stamped since, bounded), re-reading keys in the same request to find
// the rows that vanished. The first read asks where seq stands (a read of
// no row) and then the last backlog commits.
func readFeed(s *store.Store, session, gen int, after int64, afterKey []byte, keys [][]byte, now int64, start bool, chained int) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		msg := fed{session: session, gen: gen, keys: keys, now: now, start: start, chained: chained}
		if start {
			// Where seq stands: nothing is stamped after MaxInt64.
			p, err := s.Changes(ctx, store.ChangesOptions{After: math.MaxInt64})
			if err != nil {
				msg.err = err
				return msg
			}
			after, afterKey = max(p.Version.Seq-backlog, 0), nil
		}
		msg.page, msg.err = s.Changes(ctx, store.ChangesOptions{After: after, AfterKey: afterKey, Recheck: keys, Limit: pageRows})
		return msg
	})
}
