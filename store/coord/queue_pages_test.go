package coord_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// TestQueueMessagesPageBounded: a queue read page by page gives every
// message once, in key order, with its stamp; a page stops at its byte
// bound (but holds at least one message) and at its row bound.
func TestQueueMessagesPageBounded(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		body := `"` + strings.Repeat("x", 10000) + `"`
		for i := range 30 {
			_, err := coord.Send(storetest.Ctx(t), s, "jobs", []byte(fmt.Sprintf(`{"n":%d,"pad":%s}`, i, body)), time.Duration(i)*time.Millisecond)
			must(t, err)
		}
		_, err := coord.Send(storetest.Ctx(t), s, "other", []byte(`1`), 0)
		must(t, err)
		seen, pages, cursor := map[string]bool{}, 0, ""
		for {
			p, err := coord.QueueMessagesPage(storetest.Ctx(t), s, "jobs", cursor, 0, 64<<10, c.Now())
			must(t, err)
			pages++
			if len(p.Messages) == 0 || len(p.Messages) > 4 {
				t.Fatalf("page %d: %d messages; want 1..4 under 64 KiB of ~20 KiB rows", pages, len(p.Messages))
			}
			for _, m := range p.Messages {
				if seen[m.ID] || m.Versionstamp == "" {
					t.Fatalf("message %s read twice or without a stamp", m.ID)
				}
				seen[m.ID] = true
			}
			if cursor = p.Cursor; cursor == "" {
				break
			}
		}
		if len(seen) != 30 || pages < 8 {
			t.Fatalf("read %d messages in %d pages; want 30 in >= 8", len(seen), pages)
		}
		p, err := coord.QueueMessagesPage(storetest.Ctx(t), s, "jobs", "", 7, 0, c.Now())
		must(t, err)
		if len(p.Messages) != 7 || p.Cursor == "" {
			t.Fatalf("row bound 7: %d messages, cursor %q", len(p.Messages), p.Cursor)
		}
	})
}
