package cli

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// coordLines parses JSON lines into maps.
func coordLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	return jsonLines[map[string]any](t, out)
}

func TestCoordCommands(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		// doctor: a healthy empty store, then one alarm that will never fire.
		if out := c.must("doctor"); out != "no findings\n" {
			t.Fatalf("doctor on an empty store: %q", out)
		}

		// lease
		acq := coordLines(t, c.must("lease", "acquire", `["dwk_lease", "Cart", "c1"]`, "--ttl", "10s", "-o", "json"))[0]
		stamp, _ := acq["versionstamp"].(string)
		if len(stamp) != 20 || acq["expiresAt"] != float64(storetest.T0+10000) {
			t.Fatalf("acquire %v", acq)
		}
		// --timeout 0 is one attempt, and says so (it said "gave up after 1
		// attempts in -1ns").
		if r := c.run("lease", "acquire", `["dwk_lease", "Cart", "c1"]`, "--timeout", "0s"); r.code != 1 ||
			r.stderr != "kvdeck: lease contended: [\"dwk_lease\", \"Cart\", \"c1\"] is held by someone else; one attempt made, no retry asked\n" {
			t.Fatalf("contended acquire: %+v", r)
		}
		if out := c.must("lease", "list"); !strings.HasPrefix(out, `["dwk_lease", "Cart", "c1"]  held  holder=`) || !strings.Contains(out, "left=10s") {
			t.Fatalf("lease list: %s", out)
		}
		if r := c.run("lease", "release", `["dwk_lease", "Cart", "c1"]`, "00000000000000000999"); r.code != 1 || !strings.HasPrefix(r.stdout, "not released") {
			t.Fatalf("release with a wrong stamp: %+v", r)
		}
		if r := c.run("lease", "release", `["dwk_lease", "Cart", "c1"]`, "42"); r.code != 2 {
			t.Fatalf("release with a malformed stamp: %+v", r)
		}
		if out := c.must("lease", "release", `["dwk_lease", "Cart", "c1"]`, stamp); out != `released ["dwk_lease", "Cart", "c1"]  v=`+stamp+"\n" {
			t.Fatalf("release: %s", out)
		}
		if r := c.run("lease", "break", `["dwk_lease", "Cart", "c1"]`); r.code != 1 {
			t.Fatalf("break of nothing: %+v", r)
		}
		c.must("lease", "acquire", `["dwk_lease", "Cart", "c2"]`)
		if out := c.must("lease", "break", `["dwk_lease", "Cart", "c2"]`); !strings.HasPrefix(out, `broken ["dwk_lease", "Cart", "c2"]`) {
			t.Fatalf("break: %s", out)
		}

		// alarm
		if out := c.must("alarm", "set", "Cart", "a1", "+1m"); out != "set Cart  a1  due=2026-01-02T00:01:00.000Z  retry=0\n" {
			t.Fatalf("alarm set: %q", out)
		}
		c.must("alarm", "set", "Cart", "a2", "2026-01-02T00:00:30Z")
		if out := c.must("alarm", "get", "Cart", "a1", "-o", "json"); out != `{"class":"Cart","id":"a1","epochMs":1767312060000,"retryCount":0}`+"\n" {
			t.Fatalf("alarm get: %s", out)
		}
		later := c.at(storetest.T0 + 45000)
		if out := later.must("alarm", "list"); out != "Cart  a2  overdue  due=2026-01-02T00:00:30.000Z  retry=0  late=15s\nCart  a1  scheduled  due=2026-01-02T00:01:00.000Z  retry=0\n" {
			t.Fatalf("alarm list: %q", out)
		}
		if out := later.must("alarm", "fire", "Cart", "-o", "json"); out != `{"class":"Cart","id":"a2","epochMs":1767312030000,"retryCount":0}`+"\n" {
			t.Fatalf("alarm fire: %s", out)
		}
		if r := c.run("alarm", "get", "Cart", "a2"); r.code != 1 || r.stdout != "Cart  a2  (no alarm)\n" {
			t.Fatalf("fired alarm: %+v", r)
		}
		if r := c.run("alarm", "delete", "Cart", "a2"); r.code != 1 {
			t.Fatalf("delete of nothing: %+v", r)
		}
		c.must("alarm", "delete", "Cart", "a1")
		if r := c.run("alarm", "set", "Cart", "a1", "tomorrow"); r.code != 2 {
			t.Fatalf("bad time: %+v", r)
		}

		// queue
		sent := coordLines(t, c.must("queue", "send", "jobs", `{"n": 1}`, "-o", "json"))[0]
		id, _ := sent["id"].(string)
		c.must("queue", "send", "jobs", `2`, "--delay", "1m")
		if out := c.must("queue", "list"); out != "jobs  ready=1  delayed=1  oldest-ready=0s  attempts=0:2  final=0\n" {
			t.Fatalf("queue list: %q", out)
		}
		if r := c.run("queue", "poll", "jobs"); r.code != 2 || !strings.Contains(r.stderr, "--ack") {
			t.Fatalf("poll without a decision: %+v", r)
		}
		if out := c.must("queue", "poll", "jobs", "--nack", "-o", "json"); out != `{"queue":"jobs","id":"`+id+`","body":{"n":1},"attempts":1,"decision":"none"}`+"\n" {
			t.Fatalf("poll --nack: %s", out)
		}
		if out := c.at(storetest.T0+1000).must("queue", "poll", "jobs", "--ack"); !strings.HasPrefix(out, "jobs  "+id+"  attempts=2  ack") {
			t.Fatalf("poll --ack: %s", out)
		}
		if out := c.must("queue", "purge", "jobs"); out != "purged jobs: 1 message(s)\n" {
			t.Fatalf("purge: %s", out)
		}

		// doctor finds an alarm whose due entry was claimed: exit 1.
		c.must("alarm", "set", "Cart", "lost", "+1s")
		c.must("delete", `["dwk_alarm_due", "Cart", 1767312001000, "lost"]`)
		r := c.run("doctor")
		if r.code != 1 || !strings.HasPrefix(r.stdout, `error  alarm.never-fires  ["dwk_alarm_by_id", "Cart", "lost"]  `) {
			t.Fatalf("doctor: %+v", r)
		}

		// read-only refusals
		for _, args := range [][]string{
			{"lease", "acquire", `["dwk_lease", "X", "y"]`}, {"lease", "break", `["dwk_lease", "X", "y"]`},
			{"alarm", "set", "X", "y", "now"}, {"alarm", "fire", "X"}, {"queue", "send", "q", "1"}, {"queue", "poll", "q", "--ack"}, {"queue", "purge", "q"},
		} {
			if r := c.run(append([]string{"--read-only"}, args...)...); r.code != 2 || !strings.Contains(r.stderr, "read-only") {
				t.Errorf("%v: %+v", args, r)
			}
		}
	})
}
