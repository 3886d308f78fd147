package queues

import "testing"

// TestQueuesClickSelectsRows: a click on a queue selects it, a click on a
// message's row selects that message and gives the message list the keys
// (click rows on every tab).
func TestQueuesClickSelectsRows(t *testing.T) {
	h := seededQueues(t)
	h.ClickOn("thumbnails", 0)
	if q, _ := h.M.queue(); q.Name != "thumbnails" || h.M.lists.OnItems {
		t.Fatalf("a click on thumbnails selects %q (on the messages: %v)", q.Name, h.M.lists.OnItems)
	}
	h.Keys("h", "g")
	q, _ := h.M.queue()
	msgs := h.M.shownMessages(q)
	want := msgs[len(msgs)-1]
	h.ClickOn(want.ID, h.M.leftWidth())
	if msg, ok := h.M.message(); !ok || msg.ID != want.ID || !h.M.lists.OnItems {
		t.Fatalf("a click on %s selects %s (on the messages: %v)", want.ID, msg.ID, h.M.lists.OnItems)
	}
}
