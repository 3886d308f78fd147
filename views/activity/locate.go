package activity

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
)

// A deleted or expired event's key is, as a rule, not in the store any
// more, and a set event's may be gone since: Browse would only say "no
// key". enter on any event first
// looks where the key stands now (locate) and says it in words: the row
// is back (written again, or expired but not swept yet: Browse shows it),
// only keys under it are left, or it is gone, and then Browse opens where
// it was: its deepest level that still holds keys, the cursor on its
// neighbour there (the next key part, else the one before it).

// where says where a vanished event's key stands now.
type where int

const (
	whereGone    where = iota // not in the store: target is its neighbour
	whereRow                  // a row is at the key (written again, or expired unswept)
	whereUnder                // no row at the key, keys under it
	whereNowhere              // not in the store, and the store is empty
)

// located answers locate.
type located struct {
	session int
	ev      event
	where   where
	target  codec.Key // where Browse goes (nil: nowhere)
	expired bool      // the row at the key is past its expiry (whereRow)
	err     error
}

// locate reads where ev's key stands now: the row at it or under it,
// else its neighbour at the deepest level that still holds keys (one or
// two single-row reads per level walked up).
func locate(st *store.Store, session int, ev event, now int64) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		msg := located{session: session, ev: ev}
		k := ev.key
		e, ok, err := views.FirstRow(ctx, st, store.ListOptions{Prefix: k})
		switch {
		case err != nil:
			msg.err = err
			return msg
		case ok && len(e.Key) == len(k):
			msg.where, msg.target = whereRow, k
			msg.expired = e.ExpiresAt != nil && *e.ExpiresAt <= now
			return msg
		case ok:
			msg.where, msg.target = whereUnder, k
			return msg
		}
		next, err := views.Neighbour(ctx, st, k)
		switch {
		case err != nil:
			msg.err = err
			return msg
		case next != nil:
			msg.where, msg.target = whereGone, next
			return msg
		}
		msg.where = whereNowhere
		return msg
	})
}

// onLocated says where the key stands and shows it in Browse.
func (m Model) onLocated(msg located) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	key := codec.Format(msg.ev.key)
	if msg.err != nil {
		return m, views.Flash(views.FlashError, "cannot look %s up: %v", key, msg.err)
	}
	// The flash line is one line: the words first, the key (which the
	// feed shows) last.
	what := "Deleted"
	switch msg.ev.kind {
	case evDeleted:
	case evExpired:
		what = "Expired"
	case evSet:
		// A set row: the key is there as a rule (Browse shows it as it
		// is now); a row deleted or swept since says so as a deleted
		// row does.
		if msg.where == whereRow && !msg.expired {
			return m, views.Goto(msg.target)
		}
		what = "Deleted or swept since this change"
	}
	var text string
	switch msg.where {
	case whereRow:
		text = what + ", then written again: Browse shows it as it is now"
		if msg.expired {
			text = "Expired, not swept yet: Browse shows the row until a sweep removes it"
		}
	case whereUnder:
		text = what + ", no row now: Browse shows the keys under it"
	case whereGone:
		text = fmt.Sprintf("%s, not in the store: Browse shows where it was, beside %s", what, msg.target[len(msg.target)-1])
	case whereNowhere:
		return m, views.Flash(views.FlashInfo, "%s", usertext.Sanitize(what+", not in the store, which holds no key now. Key: "+key))
	}
	text += ". Key: " + key
	return m, tea.Batch(views.Flash(views.FlashInfo, "%s", usertext.Sanitize(text)), views.Goto(msg.target))
}
