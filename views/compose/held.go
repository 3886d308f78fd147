package compose

import (
	"fmt"

	"kvdeck/internal/atomicjson"
	"kvdeck/views"
)

// Held is the composition a quit would drop (views.Holder): its staged
// operations, kept on the way out as the atomic JSON document that
// `kvdeck atomic` commits (what w saves).
func (m Model) Held() []views.Held {
	n := m.Staged()
	if n == 0 {
		return nil
	}
	h := views.Held{What: fmt.Sprintf("%d staged operation(s) in Compose, not committed", n)}
	checks, muts, _ := commitOf(m.ops)
	if doc, err := atomicjson.Marshal(checks, muts); err == nil {
		h.Keep, h.Use = doc, "atomic FILE"
	}
	return []views.Held{h}
}
