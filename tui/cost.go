package tui

import (
	"fmt"
	"reflect"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views/widgets"
)

// costMeter is the status bar's cost segment: a remote
// store's requests, bytes and rows for the session (store.Cost, since the
// store shown was opened) and for the last action. The last action is the
// last key press whose commands reached the store: its cost is the
// difference between Cost at the key press and Cost when the latest answer
// of that key's own commands arrived (a refresh read in that span counts
// too; what those answers ask for next does not), and its time is the
// wall time between the two. Reading Cost makes no store call, so View
// and Update may.
type costMeter struct {
	gen       int           // raised by every key press
	pressAt   store.Cost    // Cost at the latest key press
	pressWall time.Time     // wall time of the latest key press
	from, to  store.Cost    // the last action: at its key press, at its latest answer
	took      time.Duration // the last action: key press to latest answer
	of        *store.Store  // the store they were read from
	shown     bool          // an action cost something: "last" shows
}

// keyAnswer is an answer of a key's command, tagged with the key's gen.
type keyAnswer struct {
	gen int
	msg tea.Msg
}

// pressed opens a new last action at a key press at wall time now.
func (c *costMeter) pressed(s *store.Store, now time.Time) {
	c.gen++
	c.pressAt, c.pressWall = s.Cost(), now
	if s != c.of {
		c.of, c.shown = s, false // another store (:open)
	}
}

// answered notes an answer of the key gen at wall time now: the last
// action grows to now, when it cost anything (a key that made no store
// call keeps the last).
func (c *costMeter) answered(gen int, s *store.Store, now time.Time) {
	if gen != c.gen || s != c.of {
		return
	}
	if cost := s.Cost(); cost.Requests > c.pressAt.Requests {
		c.from, c.to, c.shown = c.pressAt, cost, true
		c.took = now.Sub(c.pressWall)
	}
}

// teaPkg is bubbletea's package path: its messages (quit, batch, exec,
// sequence) are the runtime's and pass untagged.
var teaPkg = reflect.TypeOf(tea.KeyMsg{}).PkgPath()

// trackKey tags the answers of cmd, a key gen's command, and of the commands
// of any batch it returns.
func trackKey(cmd tea.Cmd, gen int) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			out := make(tea.BatchMsg, len(b))
			for i, c := range b {
				out[i] = trackKey(c, gen)
			}
			return out
		}
		if msg == nil || reflect.TypeOf(msg).PkgPath() == teaPkg {
			return msg
		}
		return keyAnswer{gen: gen, msg: msg}
	}
}

// costForm is how much of the cost segment shows, longest first.
type costForm int

const (
	costLong   costForm = iota // session: requests, bytes, rows; last: requests, time
	costNoTime                 // as long, without the last action's time
	costShort                  // requests alone: "⇅ 42 req (last 2)"
)

// text is the segment for a remote store in form f, "" for a file.
func (c costMeter) text(s *store.Store, f costForm) string {
	if !s.Info().Transport.Remote() {
		return ""
	}
	all := s.Cost()
	last := ""
	if c.shown && c.of == s {
		n := c.to.Requests - c.from.Requests
		switch f {
		case costShort:
			last = fmt.Sprintf(" (last %d)", n)
		case costNoTime:
			last = fmt.Sprintf(" · last %d req", n)
		case costLong:
			last = fmt.Sprintf(" · last %d req · %s", n, widgets.Human(c.took))
		}
	}
	if f == costShort {
		return fmt.Sprintf("⇅ %d req", all.Requests) + last
	}
	text := fmt.Sprintf("⇅ %d req · %s · %s rows read", all.Requests, widgets.BytesText(all.BytesSent+all.BytesReceived), usertext.CountShort(all.RowsRead))
	if all.RowsWritten > 0 {
		text += " · " + usertext.CountShort(all.RowsWritten) + " written"
	}
	return text + last
}
