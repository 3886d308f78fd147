package queues

import (
	"encoding/json"
	"fmt"

	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Held is the batch a take holds out of the store (views.Holder): from
// the claim until the decisions are written back, quitting leaves its
// messages deleted from the queue, as a consumer that crashes does. The
// root asks first, and on the way out names the journal entries of the
// claims (their undo puts the messages back as they were) and keeps the
// bodies in a file.
func (m Model) Held() []views.Held {
	p := m.poll
	if p == nil {
		return nil
	}
	q := widgets.Sanitize(p.queue)
	h := views.Held{Op: pollOp, Since: p.started}
	switch p.phase {
	case pollClaiming:
		h.What = fmt.Sprintf("a batch being claimed from %s (its messages leave the queue)", q)
	case pollDeciding:
		h.What = fmt.Sprintf("%d message(s) claimed from %s and not decided", len(p.items), q)
	default:
		h.What = fmt.Sprintf("%d message(s) claimed from %s, the decisions being written back", len(p.items), q)
	}
	if len(p.items) > 0 {
		h.Keep = heldBatch(p)
	}
	return []views.Held{h}
}

// heldMessage is one claimed message as kept on the way out.
type heldMessage struct {
	ID       string          `json:"id"`
	Body     json.RawMessage `json:"body"`
	Delivery int             `json:"delivery"` // the delivery number: stored attempts + 1
}

// heldBatch is the claimed batch as JSON: the queue and its messages.
func heldBatch(p *pollState) []byte {
	doc := struct {
		Queue    string        `json:"queue"`
		Messages []heldMessage `json:"messages"`
	}{Queue: p.queue}
	for _, it := range p.items {
		doc.Messages = append(doc.Messages, heldMessage{ID: it.id, Body: it.body, Delivery: it.attempts})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil // a body that is not JSON: the journal's entries still hold it
	}
	return append(b, '\n')
}
