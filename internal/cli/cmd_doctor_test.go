package cli

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

func TestDoctorCommandOnPublicReference(t *testing.T) {
	path := storetest.CopyReference(t)
	before := fileSum(t, path)
	c := &cli{t: t, url: path, now: storetest.T0}
	r := c.run("--read-only", "doctor")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	got := lines(r.stdout)
	wantPrefixes := []string{
		`warning  meta.probe-leftover  ["dwk_meta", "probe", "5e0c1d2b-7a64-4c1f-b8e9-31d2a4f60b17"]  `,
		"warning  store.rollback-journal  -  This file is in rollback-journal mode: while any reader holds its lock",
		`info  alarm.overdue  ["dwk_alarm_due", "Cart", 1767311999500, "acf595e529879b45adcc5da2d4402629"]  `,
		`info  alarm.retried  ["dwk_alarm_due", "Ticker", 1767312002000, "234f594be1ed8ecc8c4d393b295c02f3"]  `,
		`info  queue.ready  ["dwk_queue_due", "invoices", 1767311997000, "7d3f0a1e-0000-4b1a-9c2d-00000000a003"]  `,
		`info  queue.ready  ["dwk_queue_due", "thumbnails", 1767311999500, "7d3f0a1e-0000-4b1a-9c2d-00000000b005"]  `,
		`info  queue.redelivered  ["dwk_queue_due", "thumbnails", 1767311999500, "7d3f0a1e-0000-4b1a-9c2d-00000000b005"]  `,
		`info  store.expired-unswept  ["tmp", "dead-on-arrival"]  `,
	}
	if len(got) != len(wantPrefixes) {
		t.Fatalf("doctor printed\n%s", r.stdout)
	}
	for i, p := range wantPrefixes {
		if !strings.HasPrefix(got[i], p) {
			t.Errorf("line %d: %s\nwant prefix %s", i, got[i], p)
		}
	}
	objs := coordLines(t, c.must("--read-only", "doctor", "-o", "json"))
	if len(objs) != 8 || objs[0]["severity"] != "warning" || objs[0]["code"] != "meta.probe-leftover" || objs[0]["key"] == nil {
		t.Fatalf("json %v", objs)
	}
	if fileSum(t, path) != before {
		t.Fatal("doctor --read-only changed the file")
	}
}
