//go:build largedata

package cli

import (
	"strings"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
)

// TestLargeRemoteBudgets: the 350k-row store of issue 11 (200k rows under
// ["bench"], 100k under 500 prefixes, 50k expired rows, the reference's
// coordination rows) behind the latency proxy over HTTP: stats, doctor and
// the dry run take at most 10 requests, a sweep of the 50k expired rows at
// most 30, a dump pages sized in bytes. Requests are counted, not timed.
func TestLargeRemoteBudgets(t *testing.T) {
	srv := sqldtest.Start(t)
	p := sqldtest.StartProxy(t, srv.URL, 0)
	sh := shape{bench: 200000, tenants: 500, users: 200, expired: 50000}
	seedShape(t, srv.URL, sh, storetest.T0)
	c := &cli{t: t, url: p.URL, now: storetest.T0}
	for _, b := range []struct {
		args []string
		max  int64
	}{
		{[]string{"stats"}, 10},
		{[]string{"doctor"}, 10},
		{[]string{"sweep", "--dry-run"}, 10},
		{[]string{"dump"}, 2}, // the open, then one streamed request (TestLargeStreamedReads)
		{[]string{"sweep"}, 30},
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

// TestLargeStreamedReads: TestStreamedReads on the 350k-row store of
// issue 20 (200k rows under ["bench"]): each read is the open and one
// request over HTTP (a dump was 14 requests of pages, each followed by
// its stream's close, before), and prints what a file store prints.
func TestLargeStreamedReads(t *testing.T) {
	streamedReads(t, shape{bench: 200000, tenants: 500, users: 200, expired: 50000})
}
