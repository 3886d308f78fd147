package coord_test

import (
	"context"
	"encoding/hex"
	"reflect"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// The key builders encode exactly the rows the reference wrote
// (public-reference.expected.jsonl).
func TestKeysMatchTheReference(t *testing.T) {
	for _, tc := range []struct {
		key codec.Key
		hex string
	}{
		{coord.LeaseKey("Cart", "0e580e53fa979546f8fe4c7ac68c99f9"), "0264776b5f6c656173650002436172740002306535383065353366613937393534366638666534633761633638633939663900"},
		{coord.AlarmByIDKey("Cart", "acf595e529879b45adcc5da2d4402629"), "0264776b5f616c61726d5f62795f69640002436172740002616366353935653532393837396234356164636335646132643434303236323900"},
		{coord.AlarmDueKey("Cart", 1767311999500, "acf595e529879b45adcc5da2d4402629"), "0264776b5f616c61726d5f6475650002436172740003c279b7c01020c00002616366353935653532393837396234356164636335646132643434303236323900"},
		{coord.QueueKey("invoices", 1767311997000, "7d3f0a1e-0000-4b1a-9c2d-00000000a003"), "0264776b5f71756575655f6475650002696e766f696365730003c279b7c00f8480000237643366306131652d303030302d346231612d396332642d30303030303030306130303300"},
		{coord.CronKey("digest", 1767312000000), "0264776b5f63726f6e00026469676573740003c279b7c010400000"},
		{coord.ModeKey(), "0264776b5f6d65746100026d6f646500"},
		{coord.ProbeKey("5e0c1d2b-7a64-4c1f-b8e9-31d2a4f60b17"), "0264776b5f6d657461000270726f6265000235653063316432622d376136342d346331662d623865392d33316432613466363062313700"},
	} {
		if got := hex.EncodeToString(codec.MustEncode(tc.key)); got != tc.hex {
			t.Errorf("%s encodes as %s, the reference wrote %s", tc.key, got, tc.hex)
		}
	}
}

// kvdeck acts as a replica on a store the reference wrote: at the store's
// clock it fires the overdue alarm and delivers the ready messages with the
// reference's attempt counts.
func TestReplicaOnPublicReference(t *testing.T) {
	path := storetest.CopyReference(t)
	s, err := store.Open(storetest.Ctx(t), "file:"+path, store.Options{Clock: func() int64 { return storetest.T0 }})
	must(t, err)
	defer s.Close()

	fired, err := (&coord.AlarmPoller{Store: s, Class: "Cart", Lease: coord.LeaseOptions{Timeout: -1}}).Poll(storetest.Ctx(t), storetest.T0)
	must(t, err)
	if len(fired) != 1 || fired[0].ID != "acf595e529879b45adcc5da2d4402629" || fired[0].Outcome != coord.AlarmFired {
		t.Fatalf("fired %+v", fired)
	}
	// The other Cart object's lease is still the reference's: kvdeck only
	// took (and released) acf5…'s.
	if got := rows(t, s, `["dwk_lease"]`); len(got) != 2 {
		t.Fatalf("leases %q", got)
	}

	b := coord.NewBroker(s)
	got := map[string]int{}
	ack := func(_ context.Context, batch *coord.Batch) error {
		for _, m := range batch.Messages {
			got[m.ID[len(m.ID)-4:]] = m.Attempts
			m.Ack()
		}
		return nil
	}
	b.Consume("invoices", ack, coord.ConsumerOptions{})
	b.Consume("thumbnails", ack, coord.ConsumerOptions{})
	_, err = b.Poll(storetest.Ctx(t), storetest.T0)
	must(t, err)
	if !reflect.DeepEqual(got, map[string]int{"a003": 1, "a001": 1, "b005": 4}) {
		t.Fatalf("delivered %v", got)
	}
	if left := rows(t, s, `["dwk_queue_due"]`); len(left) != 2 { // a002 and b004, not due yet
		t.Fatalf("left %q", left)
	}
	fs, err := coord.Doctor(storetest.Ctx(t), s, storetest.T0)
	must(t, err)
	if want := []string{
		`warning meta.probe-leftover ["dwk_meta", "probe", "5e0c1d2b-7a64-4c1f-b8e9-31d2a4f60b17"]`,
		`warning store.rollback-journal -`, // the reference leaves its file in rollback-journal mode
		`info alarm.retried ["dwk_alarm_due", "Ticker", 1767312002000, "234f594be1ed8ecc8c4d393b295c02f3"]`,
		`info store.expired-unswept ["tmp", "dead-on-arrival"]`,
	}; !reflect.DeepEqual(brief(fs), want) {
		t.Fatalf("after the poll:\n%s", join(brief(fs)))
	}
}
