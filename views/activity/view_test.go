package activity

import (
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// TestKeyColumnKeepsParts: a long key in the KEY column is shortened by
// part: the first part, the queue and the due time's ends stay, and the
// id keeps its end, so that two messages of different queues or times
// tell apart (they were cut to ["dwk_queue_due", "…-839b-926c00b0d136"]).
func TestKeyColumnKeepsParts(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	h := newActivityHarness(t, s, clock, 120, 40)
	a := s.Atomic()
	a.Set(codec.Key{codec.String("dwk_queue_due"), codec.String("invoices"), codec.Number(1796121459946), codec.String("52f270e7-1f2a-4c3d-839b-926c00b0d136")}, []byte(`{"body":1,"attempts":0}`))
	a.Set(codec.Key{codec.String("dwk_queue_due"), codec.String("emails"), codec.Number(1796121460001), codec.String("52f270e7-1f2a-4c3d-839b-0a6eb113f71")}, []byte(`{"body":2,"attempts":0}`))
	if _, err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	for _, c := range []struct{ queue, id string }{{`"invoices"`, `46, "…d136"]`}, {`"emails"`, `01, "…3f71"]`}} {
		line := h.ViewLine(`["dwk_queue_due", ` + c.queue + `, 17`)
		if !strings.Contains(line, c.id) {
			t.Errorf("the row of the %s message shows no due time and id end %s:\n%s", c.queue, c.id, line)
		}
	}
}
