package cli

import (
	"strings"
	"testing"
	"time"

	"kvdeck/internal/latency"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
)

// shape is a store like the one issue 11 measured, at any scale: rows
// under ["bench"] (bigint ids), tenants × users under ["tenant-NNN"],
// expired rows under ["session"], and the reference's coordination rows.
type shape struct{ bench, tenants, users, expired int }

// seedShape writes the shape into the (empty) store at url with a few
// statements that generate the rows on the server, and copies the rows of
// public-reference.db as the reference wrote them.
func seedShape(t testing.TB, url string, sh shape, now int64) {
	t.Helper()
	db := storetest.RawDB(t, url)
	ctx := storetest.CtxTimeout(t, 10*time.Minute)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER)`)
	exec(`CREATE TABLE IF NOT EXISTS kv_meta (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, ok INTEGER NOT NULL)`)
	exec(`INSERT OR IGNORE INTO kv_meta (id, seq, ok) VALUES (0, 1000, 0)`)
	// ["bench", <i>n]: 0x02 "bench" 0x00, 0x04 and i + 2^63 big-endian.
	exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
		INSERT INTO kv SELECT unhex('0262656E63680004' || printf('80%014X', i)), '{"n":' || i || ',"name":"item-' || i || '","tags":["a","b"]}', 1, NULL FROM n`, sh.bench)
	exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
		INSERT INTO kv SELECT unhex('02' || hex(printf('tenant-%03d', i % ?)) || '0002' || hex(printf('user-%06d', i)) || '00'), '{"id":' || i || ',"plan":"pro"}', 2, NULL FROM n`,
		sh.tenants*sh.users, sh.tenants)
	exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
		INSERT INTO kv SELECT unhex('0273657373696F6E0002' || hex(printf('s-%06d', i)) || '00'), '{"user":1}', 3, ? - 1000 - i FROM n`, sh.expired, now)
	storetest.CopyReferenceRows(t, url)
}

// budget runs kvdeck through the proxy and returns the requests it sent,
// failing the test when the command fails.
func budget(t *testing.T, p *latency.Proxy, c *cli, stdin string, args ...string) (int64, string) {
	t.Helper()
	var r result
	n := p.Count(func() { r = c.runIn(stdin, args...) })
	if r.code != 0 {
		t.Fatalf("kvdeck %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return n, r.stdout
}

// TestRemoteBudgets: over HTTP, behind the latency proxy, each command
// sends a few requests whatever the store's size (counts are asserted,
// never times). Opening is included.
func TestRemoteBudgets(t *testing.T) {
	srv := sqldtest.Start(t)
	p := sqldtest.StartProxy(t, srv.URL, 2*time.Millisecond)
	sh := shape{bench: 3000, tenants: 50, users: 40, expired: 1500}
	seedShape(t, srv.URL, sh, storetest.T0)
	rows := sh.bench + sh.tenants*sh.users + sh.expired
	c := &cli{t: t, url: p.URL, now: storetest.T0}
	for _, b := range []struct {
		args []string
		max  int64
	}{
		{[]string{"stats"}, 5},
		{[]string{"doctor"}, 6},
		{[]string{"sweep", "--dry-run"}, 5},
		{[]string{"dump"}, 4},
		{[]string{"list", `["bench"]`}, 4},
		{[]string{"get", `["bench", 7n]`}, 3},
	} {
		n, out := budget(t, p, c, "", b.args...)
		t.Logf("%s: %d requests", strings.Join(b.args, " "), n)
		if n > b.max {
			t.Errorf("%s took %d requests, want at most %d", strings.Join(b.args, " "), n, b.max)
		}
		if b.args[0] == "dump" && len(lines(out)) < rows {
			t.Errorf("dump printed %d lines for %d rows", len(lines(out)), rows)
		}
	}
	_, dump := budget(t, p, c, "", "dump")
	n, out := budget(t, p, c, "", "sweep")
	if !strings.Contains(out, "in 1 batch") || !strings.Contains(out, "0 expired rows remain") || n > 5 {
		t.Errorf("sweep of %d expired rows: %d requests (want at most 5, one delete): %s", sh.expired, n, out)
	}
	fresh := sqldtest.Start(t)
	fp := sqldtest.StartProxy(t, fresh.URL, 2*time.Millisecond)
	n, out = budget(t, fp, &cli{t: t, url: fp.URL, now: storetest.T0}, dump, "load", "--include-expired", "-")
	if !strings.Contains(out, "in 2 batches") || n > 6 {
		t.Errorf("load of %d rows: %d requests (want 2 commits, at most 6 in all): %s", rows, n, out)
	}
}

// TestListContainsReadsOnlyMatches: `list --contains` is filtered by the
// server: behind the proxy it receives a small fraction of the bytes that
// `list --where` (every row of the range, filtered here) receives for the
// same match, in the same number of requests or fewer.
func TestListContainsReadsOnlyMatches(t *testing.T) {
	srv := sqldtest.Start(t)
	p := sqldtest.StartProxy(t, srv.URL, 2*time.Millisecond)
	seedShape(t, srv.URL, shape{bench: 5000}, storetest.T0)
	c := &cli{t: t, url: p.URL, now: storetest.T0}
	read := func(args ...string) (int64, int64, string) {
		t.Helper()
		before := p.BytesIn()
		n, out := budget(t, p, c, "", args...)
		return n, p.BytesIn() - before, out
	}
	whereReqs, whereBytes, whereOut := read("list", `["bench"]`, "--where", `.name == "item-4999"`)
	reqs, bytes, out := read("list", `["bench"]`, "--contains", `"item-4999"`)
	t.Logf("--where: %d requests, %d bytes; --contains: %d requests, %d bytes", whereReqs, whereBytes, reqs, bytes)
	if out != whereOut || len(lines(out)) != 1 || !strings.Contains(out, `"item-4999"`) {
		t.Fatalf("--contains printed %q, --where %q: want the one row", out, whereOut)
	}
	if bytes*20 > whereBytes || reqs > whereReqs {
		t.Errorf("--contains read %d bytes in %d requests, --where %d in %d: the server does not filter", bytes, reqs, whereBytes, whereReqs)
	}
}

// TestStreamedReads: over HTTP behind the proxy a list of a few MB
// costs the open and one request (a page the server sized), a dump and
// each side of a diff the open and two (the rows whose key is NULL, then
// the page), and they print what they print on file stores of the same
// rows. TestLargeStreamedReads runs it at 350k rows.
func TestStreamedReads(t *testing.T) {
	streamedReads(t, shape{bench: 3000, tenants: 20, users: 20, expired: 500}, 0)
}

// streamedReads seeds sh into a sqld and a file, and a second pair with
// a few rows changed, and checks the request counts and outputs of the
// whole-range reads; pages is how many pages of about 8 MB a read may
// take beyond the first.
func streamedReads(t *testing.T, sh shape, pages int64) {
	t.Helper()
	now := storetest.T0
	seed := func(url string) *cli {
		seedShape(t, url, sh, now)
		return &cli{t: t, url: url, now: now}
	}
	srvA, srvB := sqldtest.Start(t), sqldtest.Start(t)
	pa, pb := sqldtest.StartProxy(t, srvA.URL, 0), sqldtest.StartProxy(t, srvB.URL, 0)
	dir := t.TempDir()
	remoteA, remoteB := seed(srvA.URL), seed(srvB.URL)
	fileA, fileB := seed("file:"+dir+"/a.db"), seed("file:"+dir+"/b.db")
	for _, c := range []*cli{remoteB, fileB} {
		c.must("set", `["bench", 7n]`, `{"changed":true}`)
		c.must("delete", `["bench", 8n]`)
		c.must("set", `["zz", "new"]`, `1`)
	}
	remoteA.url, remoteB.url = pa.URL, pb.URL
	// The open alone: a list of nothing is the open and one request.
	none, _ := budget(t, pa, remoteA, "", "list", `["none"]`)
	open := none - 1
	for _, args := range [][]string{
		{"list", `["bench"]`},
		{"list"},
		{"list", "--reverse", "--limit", "1000", `["tenant-007"]`},
		{"list", "--contains", `"item-42`},
		{"dump"},
	} {
		n, out := budget(t, pa, remoteA, "", args...)
		t.Logf("%s: %d requests, %d lines", strings.Join(args, " "), n, len(lines(out)))
		want := open + 1 + pages
		if args[0] == "dump" {
			want++ // the rows whose key is NULL
		}
		if n > want {
			t.Errorf("%s: %d requests, want at most %d (the open, then %d)", strings.Join(args, " "), n, want, want-open)
		}
		if want := fileA.must(args...); out != want || len(out) == 0 {
			t.Errorf("%s over HTTP printed %d lines, on a file %d: they differ", strings.Join(args, " "), len(lines(out)), len(lines(want)))
		}
	}
	var r result
	var na int64
	nb := pb.Count(func() {
		na = pa.Count(func() { r = remoteA.run("diff", pa.URL, pb.URL) })
	})
	out, want := r.stdout, fileA.run("diff", fileA.url, fileB.url).stdout
	t.Logf("diff: exit %d, %d + %d requests: %s", r.code, na, nb, strings.Join(lines(out)[:min(3, len(lines(out)))], " | "))
	if want := open + 2 + pages; r.code != 1 || na > want || nb > want {
		t.Errorf("diff: exit %d (want 1: the stores differ), %d and %d requests, want at most %d each (the open, the NULL keys, the pages)\n%s", r.code, na, nb, want, r.stderr)
	}
	if out != want {
		t.Errorf("diff over HTTP:\n%s\non files:\n%s", out, want)
	}
}
