package coord_test

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// brief is a finding without its message: what the tests pin.
func brief(fs []coord.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		k := "-"
		if f.Key != nil {
			k = codec.Format(f.Key)
		}
		out[i] = string(f.Severity) + " " + f.Code + " " + k
	}
	return out
}

// Doctor on the reference store at its clock reports the anomalies the
// reference was written with: the leftover probe, one overdue alarm (Cart/acf5…, 500 ms
// late), Ticker on its first retry, the ready messages of both queues,
// b005 redelivered three times (attempts 3 stored: its next delivery is
// attempt 4 of 5, not the final one), one expired row not swept; no
// orphans, no never-firing alarm, healthy leases, one cron bucket.
func TestDoctorOnPublicReference(t *testing.T) {
	src := filepath.Join(storetest.VectorsDir(t), "public-reference.db")
	before, err := os.ReadFile(src)
	must(t, err)
	path := storetest.CopyReference(t)
	s, err := store.Open(storetest.Ctx(t), "file:"+path, store.Options{ReadOnly: true, Clock: func() int64 { return storetest.T0 }})
	must(t, err)
	defer s.Close()

	r, err := coord.Inspect(storetest.Ctx(t), s, storetest.T0)
	must(t, err)
	want := []string{
		`warning meta.probe-leftover ["dwk_meta", "probe", "5e0c1d2b-7a64-4c1f-b8e9-31d2a4f60b17"]`,
		`info alarm.overdue ["dwk_alarm_due", "Cart", 1767311999500, "acf595e529879b45adcc5da2d4402629"]`,
		`info alarm.retried ["dwk_alarm_due", "Ticker", 1767312002000, "234f594be1ed8ecc8c4d393b295c02f3"]`,
		`info queue.ready ["dwk_queue_due", "invoices", 1767311997000, "7d3f0a1e-0000-4b1a-9c2d-00000000a003"]`,
		`info queue.ready ["dwk_queue_due", "thumbnails", 1767311999500, "7d3f0a1e-0000-4b1a-9c2d-00000000b005"]`,
		`info queue.redelivered ["dwk_queue_due", "thumbnails", 1767311999500, "7d3f0a1e-0000-4b1a-9c2d-00000000b005"]`,
		`info store.expired-unswept ["tmp", "dead-on-arrival"]`,
	}
	if got := brief(r.Findings); !reflect.DeepEqual(got, want) {
		t.Fatalf("findings\n%s\nwant\n%s", join(got), join(want))
	}
	if coord.HasErrors(r.Findings) {
		t.Fatal("an error finding on a consistent store")
	}

	// The report behind the findings.
	if len(r.Leases) != 3 || r.Leases[0].State != coord.LeaseHeld || r.Leases[0].TimeLeftMs != 30000 || r.Leases[0].AgeMs != 0 ||
		r.Leases[2].Kind != coord.KindCron || r.Leases[2].TTLMs != 60000 || r.Leases[2].Holder != "c0ffee00-1111-4222-8333-444455556666" {
		t.Fatalf("leases %+v", r.Leases)
	}
	if len(r.Cron) != 1 || r.Cron[0].IntervalMs != 60000 || r.Cron[0].Missing != 0 {
		t.Fatalf("cron %+v", r.Cron)
	}
	if len(r.Alarms) != 2 || len(r.Alarms[0].Due) != 2 || !r.Alarms[0].Due[0].Overdue || r.Alarms[0].Due[0].LatenessMs != 500 || !r.Alarms[0].ByID[0].Matched {
		t.Fatalf("alarms %+v", r.Alarms)
	}
	inv, thumbs := r.Queues[0], r.Queues[1]
	if inv.Ready != 2 || inv.Delayed != 1 || inv.OldestReadyAgeMs != 3000 ||
		thumbs.Ready != 1 || thumbs.Delayed != 1 || thumbs.Final != 0 ||
		!reflect.DeepEqual(thumbs.Attempts, []coord.AttemptCount{{Attempts: 0, Count: 1}, {Attempts: 3, Count: 1}}) {
		t.Fatalf("queues %+v", r.Queues)
	}
	if !r.Meta.ModeFound || r.Meta.Mode != "central" || len(r.Meta.Probes) != 1 {
		t.Fatalf("meta %+v", r.Meta)
	}
	if r.Store.Rows != 60 || r.Store.Expired != 1 || r.Store.Undecodable != 0 || r.Store.InvalidJSON != 0 {
		t.Fatalf("store %+v", r.Store)
	}

	// With a smaller maxAttempts, b005 is on its final attempt.
	_, fs, err := coord.InspectQueues(storetest.Ctx(t), s, "thumbnails", storetest.T0, 4)
	must(t, err)
	if got := brief(fs); !reflect.DeepEqual(got, []string{
		`info queue.ready ["dwk_queue_due", "thumbnails", 1767311999500, "7d3f0a1e-0000-4b1a-9c2d-00000000b005"]`,
		`warning queue.final-attempt ["dwk_queue_due", "thumbnails", 1767311999500, "7d3f0a1e-0000-4b1a-9c2d-00000000b005"]`,
	}) {
		t.Fatalf("maxAttempts 4: %s", join(got))
	}

	after, err := os.ReadFile(src)
	must(t, err)
	if sha256.Sum256(before) != sha256.Sum256(after) || !bytes.Equal(before, after) {
		t.Fatal("the reference store changed")
	}
}

func join(lines []string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}
