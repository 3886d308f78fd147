package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
)

// TestOneShotCommandsOneRequest: over HTTP, behind the latency proxy,
// get, set, delete and atomic send one request each, opening included
// (the schema check, the statements and the stream's
// close in one Hrana pipeline; they sent 2, the check's stream left
// open, and 3 to 4 where libsql-client-go's close got out). --stats
// says the same count on stderr.
func TestOneShotCommandsOneRequest(t *testing.T) {
	srv := sqldtest.Start(t)
	p := sqldtest.StartProxy(t, srv.URL, 0)
	c := &cli{t: t, url: p.URL, now: storetest.T0}
	c.must("init")
	doc := filepath.Join(t.TempDir(), "atomic.json")
	if err := os.WriteFile(doc, []byte(`{"checks":[{"key":[{"type":"string","value":"k"}],"versionstamp":null}],"mutations":[{"type":"set","key":[{"type":"string","value":"k"}],"value":2}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stats := regexp.MustCompile(`kvdeck: stats: (\d+) requests?, .* sent, .* received, server rows read \d+, written (\d+), `)
	for _, args := range [][]string{
		{"set", `["k"]`, `1`},
		{"get", `["k"]`},
		{"delete", `["k"]`},
		{"atomic", doc},
		{"get", `["absent"]`},
	} {
		var r result
		n := p.Count(func() { r = c.run(append([]string{"--stats"}, args...)...) })
		if r.code != 0 && args[1] != `["absent"]` {
			t.Fatalf("kvdeck %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		m := stats.FindStringSubmatch(r.stderr)
		t.Logf("%s: %d requests; %s", args[0], n, strings.TrimSpace(r.stderr))
		if n != 1 {
			t.Errorf("%s took %d requests, want 1", strings.Join(args, " "), n)
		}
		if m == nil || m[1] != fmt.Sprint(n) {
			t.Errorf("%s: --stats said %q, the proxy counted %d requests", args[0], r.stderr, n)
		}
		if args[0] != "get" && m != nil && m[2] == "0" {
			t.Errorf("%s: --stats counts no rows written: %s", args[0], r.stderr)
		}
	}
}
