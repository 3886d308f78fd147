package queues

import (
	"testing"

	"kvdeck/views/viewtest"
)

// TestQueuesClickSelectsRows: a click on a queue selects it, a click on a
// message's row selects that message and gives the message list the keys
// (issue 13: click rows on every tab).
func TestQueuesClickSelectsRows(t *testing.T) {
	h := seededQueues(t)
	click, ok := viewtest.ClickOn(h.M.View(), "thumbnails", 0)
	if !ok {
		t.Fatalf("no thumbnails queue:\n%s", h.M.View())
	}
	h.Send(click)
	if q, _ := h.M.queue(); q.Name != "thumbnails" || h.M.lists.OnItems {
		t.Fatalf("a click on thumbnails selects %q (on the messages: %v)", q.Name, h.M.lists.OnItems)
	}
	h.Send(viewtest.Key("h"))
	h.Send(viewtest.Key("g"))
	q, _ := h.M.queue()
	msgs := h.M.shownMessages(q)
	want := msgs[len(msgs)-1]
	click, ok = viewtest.ClickOn(h.M.View(), want.ID, h.M.leftWidth())
	if !ok {
		t.Fatalf("no row of %s:\n%s", want.ID, h.M.View())
	}
	h.Send(click)
	if msg, ok := h.M.message(); !ok || msg.ID != want.ID || !h.M.lists.OnItems {
		t.Fatalf("a click on %s selects %s (on the messages: %v)", want.ID, msg.ID, h.M.lists.OnItems)
	}
}
