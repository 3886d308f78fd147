package coordkit

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views"
)

// Loaded answers a coordination tab's load (Load): the rows read at Now
// and the findings on them, tagged with the session and the generation it
// was asked under (Base.LoadAnswered drops a stale one). Each tab reads
// rows of its own type, so no tab takes another's answer.
type Loaded[R any] struct {
	Session, Gen int
	Now          int64 // the instant the rows describe
	Rows         R
	Findings     []coord.Finding
	Err          error
}

// Inspect reads a tab's rows at now, with the findings on them.
type Inspect[R any] func(ctx context.Context, s *store.Store, now int64) (R, []coord.Finding, error)

// Load is the LoadFunc of inspect: one store command under the read
// deadline, answered with a Loaded[R].
func Load[R any](inspect Inspect[R]) LoadFunc {
	return func(s *store.Store, session, gen int, now int64) tea.Cmd {
		return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
			msg := Loaded[R]{Session: session, Gen: gen, Now: now}
			msg.Rows, msg.Findings, msg.Err = inspect(ctx, s, now)
			return msg
		})
	}
}
