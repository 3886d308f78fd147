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
// get sends one request, opening included (the schema check, the
// statement and the stream's close in one Hrana pipeline; it sent 2, the
// check's stream left open, and 3 to 4 where libsql-client-go's close got
// out), and set, delete and atomic two: the journal's read of the rows
// they replace (carrying the schema check) comes first, so that its
// before-images are on the disk before the commit, the second request.
// --stats says the same count on stderr.
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
		want := int64(2)
		if args[0] == "get" {
			want = 1
		}
		if n != want {
			t.Errorf("%s took %d requests, want %d", strings.Join(args, " "), n, want)
		}
		if m == nil || m[1] != fmt.Sprint(n) {
			t.Errorf("%s: --stats said %q, the proxy counted %d requests", args[0], r.stderr, n)
		}
		if args[0] != "get" && m != nil && m[2] == "0" {
			t.Errorf("%s: --stats counts no rows written: %s", args[0], r.stderr)
		}
	}
}
