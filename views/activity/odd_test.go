package activity

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestNoteSaysRowsWithAMalformedStamp: rows whose ver is TEXT or a
// fractional REAL (another writer's) are never in the change feed; the
// note under the list says how many there are, on a file and on sqld,
// and the tab works on. Failed before: nothing said.
func TestNoteSaysRowsWithAMalformedStamp(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		clock := viewtest.FixedClock()
		s := storetest.Open(t, url, store.Options{Clock: clock.Now, Create: true})
		storetest.Exec(t, url,
			"UPDATE kv_meta SET seq = 4",
			"INSERT INTO kv VALUES (X'027700027465787400', '5', 'seven', NULL)",
			"INSERT INTO kv VALUES (X'027700027265616c00', '6', 2.5, NULL)",
		)
		h := newActivityHarness(t, s, clock, 120, 40)
		if _, err := s.Set(storetest.Ctx(t), viewtest.KeyOf("n", 1), []byte(`1`), nil); err != nil {
			t.Fatal(err)
		}
		h.Refresh()
		text := paneText(h.M.View())
		if !strings.Contains(text, "2 row(s) with a malformed stamp (ver not a whole number) are never in this feed: kvdeck doctor counts them.") ||
			!strings.Contains(text, `["n", 1]`) {
			t.Errorf("the tab says:\n%s", h.M.View())
		}
	})
}
