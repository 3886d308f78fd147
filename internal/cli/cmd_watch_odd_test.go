package cli_test

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestWatchSaysRowsWithAMalformedStamp: rows whose ver is TEXT or a
// fractional REAL never reach the change feed; watch says so at its start,
// one escaped line per row flagged "malformed stamp", and watches on.
// Before, nothing was said.
func TestWatchSaysRowsWithAMalformedStamp(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		set := func(v string) {
			t.Helper()
			if _, err := s.Set(storetest.Ctx(t), storetest.Key(t, `["w", "ok"]`), []byte(v), nil); err != nil {
				t.Fatal(err)
			}
		}
		set(`1`)
		storetest.Exec(t, url,
			"UPDATE kv_meta SET seq = 4",
			"INSERT INTO kv VALUES (X'027700027465787400', '5', 'sev'||char(27)||'en', NULL)", // ["w", "text"]
			"INSERT INTO kv VALUES (X'027700027265616c00', '6', 2.5, NULL)",                   // ["w", "real"]
			"INSERT INTO kv VALUES (X'026f7468657200', '7', 'x', NULL)",                       // ["other"]: not watched
		)
		w := startWatch(t, "--db", url, "watch", `["w"]`, "--interval", "20ms")
		said := strings.Join(w.before, "\n")
		if len(w.before) != 3 || !strings.Contains(w.before[0], "2 rows with a malformed stamp") ||
			!strings.Contains(said, `["w", "real"]  malformed stamp: ver`) || !strings.Contains(said, `["w", "text"]  malformed stamp: ver`) ||
			strings.Contains(said, "\x1b") || strings.Contains(said, "other") {
			t.Errorf("watch said before watching:\n%s", said)
		}
		set(`2`)
		w.next().is(t, "set", `["w", "ok"]`, "1", "2")
	})
}
