package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// TestUndecodableRows puts rows no codec wrote into a store (a key with an
// unknown tag, a truncated key, a value that is not JSON, a raw U+2028)
// and checks every command shows them flagged, never crashes, and that load
// skips what it cannot write.
func TestUndecodableRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	c := &cli{t: t, url: "file:" + path, now: storetest.T0}
	c.must("set", `["ok"]`, "1")
	storetest.Exec(t, c.url,
		`INSERT INTO kv VALUES (x'ff01', '1', 5, NULL)`,
		`INSERT INTO kv VALUES (x'0261', '"t"', 6, NULL)`,
		`INSERT INTO kv VALUES (x'02626164000276616c756500', '{not json', 7, NULL)`,
		"INSERT INTO kv VALUES (x'026c696e6500', '\"a\u2028b\u202ec\"', 8, NULL)",
	)

	dump := c.must("dump")
	want := []string{
		`{"key":null,"hex":"0261","value":"t","versionstamp":"00000000000000000006","expiresAt":null,"expired":false,"error":"key does not decode: codec: truncated key encoding: missing 0x00 terminator at byte 2`,
		`{"key":[{"type":"string","value":"bad"},{"type":"string","value":"value"}],"hex":"02626164000276616c756500","value":"{not json","versionstamp":"00000000000000000007","expiresAt":null,"expired":false,"error":"value is not valid JSON"}`,
		`{"key":[{"type":"string","value":"line"}],"hex":"026c696e6500","value":"a\u2028b\u202ec","versionstamp":"00000000000000000008","expiresAt":null,"expired":false}`,
		`{"key":[{"type":"string","value":"ok"}],"hex":"026f6b00","value":1,"versionstamp":"00000000000000000001","expiresAt":null,"expired":false}`,
		`{"key":null,"hex":"ff01","value":1,"versionstamp":"00000000000000000005","expiresAt":null,"expired":false,"error":"key does not decode: codec: invalid key encoding tag at byte 0`,
	}
	got := lines(dump)
	if len(got) != len(want) {
		t.Fatalf("dump: %d lines, want %d:\n%s", len(got), len(want), dump)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("dump line %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
	text := lines(c.must("-o", "text", "dump"))
	for i, prefix := range []string{
		`0x0261  "t"  v=00000000000000000006  error: key does not decode: codec: truncated`,
		`["bad", "value"]  raw:"{not json"  v=00000000000000000007  error: value is not valid JSON`,
		`["line"]  "a\u2028b\u202ec"  v=00000000000000000008`,
		`["ok"]  1  v=00000000000000000001`,
		`0xff01  1  v=00000000000000000005  error: key does not decode: codec: invalid key encoding tag`,
	} {
		if i >= len(text) || !strings.HasPrefix(text[i], prefix) {
			t.Errorf("text dump line %d: got %q, want %q…", i, text, prefix)
		}
	}
	// list is bounded below 0xff, so the 0xff01 row is not in its range.
	if got := lines(c.must("list")); len(got) != 4 || !strings.HasPrefix(got[0], "0x0261  ") {
		t.Errorf("list: %q", got)
	}
	if got := c.must("get", `["bad", "value"]`); !strings.Contains(got, "error: value is not valid JSON") {
		t.Errorf("get: %q", got)
	}
	stats := c.must("-o", "json", "stats", "--check")
	for _, sub := range []string{`"rows":5,`, `"undecodable":2,`, `"invalidValues":1,`, `{"prefix":null,"undecodable":true,"rows":`} {
		if !strings.Contains(stats, sub) {
			t.Errorf("stats lacks %s: %s", sub, stats)
		}
	}
	if !strings.Contains(c.must("stats"), "(undecodable)") {
		t.Errorf("text stats does not name the undecodable rows")
	}
	fresh := &cli{t: t, url: "file:" + filepath.Join(t.TempDir(), "fresh.db"), now: storetest.T0}
	r := fresh.runIn(dump, "load", "-")
	if r.code != 0 || r.stdout != "loaded 2 rows in 1 batch; skipped 3 (3 undecodable)\n" || strings.Count(r.stderr, "skipped, the row does not decode") != 3 {
		t.Errorf("load: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
}

// TestInterrupted: a cancelled context ends the command with exit 130.
func TestInterrupted(t *testing.T) {
	db := "file:" + filepath.Join(t.TempDir(), "kv.db")
	(&cli{t: t, url: db, now: storetest.T0}).must("init")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb strings.Builder
	code := Main(ctx, []string{"--db", db, "stats"}, strings.NewReader(""), &out, &errb, nil)
	if code != CodeInterrupted || !strings.HasPrefix(errb.String(), "kvdeck: interrupted") || strings.Contains(errb.String(), "context canceled") {
		t.Errorf("exit %d, stderr %q; want 130, interrupted in words", code, errb.String())
	}
	for msg, want := range map[string]string{
		"context canceled":               "interrupted",
		"stats: context canceled":        "interrupted (stats)",
		"read page: a: context canceled": "interrupted (read page: a)",
		"server said no":                 "interrupted: server said no",
	} {
		if got := interruptedText(msg); got != want {
			t.Errorf("interruptedText(%q) = %q, want %q", msg, got, want)
		}
	}
}
