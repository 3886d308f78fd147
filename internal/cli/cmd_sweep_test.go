package cli

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
)

// guardStore writes, by the real clock: ["lease", "db"] expiring in 30
// minutes (a lease a replica holds), ["tmp", 1] expired a minute ago and
// ["tmp", 2] expiring in 2 hours; it returns the real now it used.
func guardStore(t *testing.T, c *cli) int64 {
	t.Helper()
	real := time.Now().UnixMilli()
	at := c.at(real)
	at.must("set", `["lease", "db"]`, `{"holder":"replica-1"}`, "--expire-in", "30m")
	at.must("set", `["tmp", 1]`, `1`, "--expire-in", "1ms")
	at.must("set", `["tmp", 2]`, `2`, "--expire-in", "2h")
	return real
}

// TestSweepUnderAClockAhead: kvdeck sweep with --now an hour ahead of the
// real clock (and --clock-offset +1h) deletes what the real clock sees
// expired, keeps the live lease, says how many it kept and the flag, and
// exits 1; --dry-run shows both numbers; --include-live sweeps the lease
// too. Before, the lease went with exit 0 and no word.
func TestSweepUnderAClockAhead(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, _ storetest.Backend) {
		real := guardStore(t, c)
		ahead := c.at(real + time.Hour.Milliseconds())

		r := ahead.run("sweep", "--dry-run")
		if r.code != 0 || !strings.Contains(r.stdout, "would sweep 1 row (dry run); 1 more row is expired at the clock's now but live by the real clock") ||
			!strings.Contains(r.stdout, `["tmp", 1]`) || strings.Contains(r.stdout, `["lease", "db"]`) {
			t.Fatalf("dry run an hour ahead: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		r = ahead.run("-o", "json", "sweep", "--dry-run", "--include-live")
		if r.code != 0 || !strings.Contains(r.stdout, `"swept":2,`) || !strings.Contains(r.stdout, `"liveByReal":1`) {
			t.Fatalf("dry run with --include-live: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}

		r = ahead.run("sweep")
		if r.code != CodeNotDone || !strings.Contains(r.stdout, "swept 1 row") ||
			!strings.Contains(r.stderr, "kept 1 row that the real clock still sees live") || !strings.Contains(r.stderr, "--include-live") {
			t.Fatalf("sweep an hour ahead: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if out := c.at(real).must("get", `["lease", "db"]`); !strings.Contains(out, "replica-1") {
			t.Fatalf("the live lease is gone: %s", out)
		}
		r = runMain(t, nil, "", []string{"--db", c.url, "--clock-offset", "+1h", "sweep"})
		if r.code != CodeNotDone || !strings.Contains(r.stderr, "kept 1 row") {
			t.Fatalf("--clock-offset +1h sweep: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}

		r = ahead.run("sweep", "--include-live")
		if r.code != 0 || !strings.Contains(r.stdout, "swept 1 row") || !strings.Contains(r.stdout, "1 of them live by the real clock") {
			t.Fatalf("sweep --include-live: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := c.at(real).run("get", `["lease", "db"]`); r.code != CodeNotDone {
			t.Fatalf("--include-live kept the lease: exit %d %s", r.code, r.stdout)
		}
	})
}

// TestSweepUnderTheRealClockUnchanged: a sweep at the real clock, or at a
// clock behind it, neither counts nor refuses anything.
func TestSweepUnderTheRealClockUnchanged(t *testing.T) {
	c := &cli{t: t, url: "file:" + t.TempDir() + "/kv.db", now: storetest.T0}
	c.must("init")
	real := guardStore(t, c)
	r := runMain(t, nil, "", []string{"--db", c.url, "sweep"})
	if r.code != 0 || !strings.Contains(r.stdout, "swept 1 row") || strings.Contains(r.stdout, "real clock") {
		t.Fatalf("sweep at the real clock: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, nil, "", []string{"--db", c.url, "--now", strconv.FormatInt(real-time.Hour.Milliseconds(), 10), "sweep", "--include-live"})
	if r.code != 0 || !strings.Contains(r.stdout, "swept 0 rows") {
		t.Fatalf("sweep behind the real clock: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
