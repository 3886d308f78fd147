//go:build largedata

package cli

import (
	"strings"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
)

// TestLargeRemoteBudgets: a store of a million rows shaped like issue
// 11's (850k rows under ["bench"], 100k under 500 prefixes, 50k expired
// rows, the reference's coordination rows) behind the latency proxy over
// HTTP: stats, doctor and the dry run take the requests the README's
// network table gives for 350k rows (3, 5 and 4: a count window holds a
// million rows), and a sweep of the 50k expired rows reads windows of
// 50k rows and deletes 5k keys per request. Requests are counted, not
// timed. (The dump of such a store is TestLargeStreamedReads's, at 350k.)
func TestLargeRemoteBudgets(t *testing.T) {
	srv := sqldtest.Start(t)
	p := sqldtest.StartProxy(t, srv.URL, 0)
	sh := shape{bench: 850000, tenants: 500, users: 200, expired: 50000}
	seedShape(t, srv.URL, sh, storetest.T0)
	c := &cli{t: t, url: p.URL, now: storetest.T0}
	for _, b := range []struct {
		args []string
		max  int64
	}{
		{[]string{"stats"}, 3},
		{[]string{"doctor"}, 5},
		// The dry run: open, its listing of 50,000 expired rows (two
		// pages of about 8 MB: sqld answers at most 10 MB), its count
		// (one window: the last rows past a million ride with it).
		{[]string{"sweep", "--dry-run"}, 4},
		{[]string{"sweep"}, 35},
	} {
		began := time.Now()
		n, out := budget(t, p, c, "", b.args...)
		t.Logf("%s: %d requests, %v", strings.Join(b.args, " "), n, time.Since(began).Round(time.Millisecond))
		if n > b.max {
			t.Errorf("%s took %d requests, want at most %d", strings.Join(b.args, " "), n, b.max)
		}
		if b.args[0] == "sweep" && len(b.args) == 1 && !strings.Contains(out, "0 expired rows remain") {
			t.Errorf("sweep: %s", out)
		}
	}
}

// TestLargeStreamedReads: TestStreamedReads on the 350k-row store (200k rows
// under ["bench"]): each read is the open and pages
// of about 8 MB over HTTP (about 100 MB estimated: at most 13 pages; the
// cursor's one streamed answer cost sqld 4-7 times their CPU), and
// prints what a file store prints.
func TestLargeStreamedReads(t *testing.T) {
	streamedReads(t, shape{bench: 200000, tenants: 500, users: 200, expired: 50000}, 12)
}
