package coord

import (
	"testing"

	"kvdeck/codec"
	"kvdeck/store"
)

// FuzzRecords feeds arbitrary values to the record decoders: they never
// panic, and what decodes re-encodes to a value that decodes the same.
func FuzzRecords(f *testing.F) {
	for _, s := range []string{`{"epochMs":1767312000000,"retryCount":0}`, `{"body":{"a":[1]},"attempts":3}`, `{"holder":"x"}`,
		`{"epochMs":1e300,"retryCount":-1}`, `{"body":null}`, `[]`, `"central"`, `{"epochMs":1.5,"retryCount":0}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if rec, err := decodeAlarm(raw); err == nil {
			if again, err := decodeAlarm(rec.encode()); err != nil || again != rec {
				t.Fatalf("alarm %+v re-decodes as %+v, %v", rec, again, err)
			}
		}
		if m, err := decodeMessage(raw); err == nil {
			again, err := decodeMessage(m.encode())
			if err != nil || again.Attempts != m.Attempts {
				t.Fatalf("message %+v re-decodes as %+v, %v", m, again, err)
			}
		}
		_, _ = decodeHolder(raw)
	})
}

// FuzzInspect feeds arbitrary rows (any key bytes, any value) to every
// collector: inspection never panics, whatever a foreign writer left.
func FuzzInspect(f *testing.F) {
	for _, k := range []codec.Key{
		AlarmDueKey("Cart", 5, "a"), AlarmByIDKey("Cart", "a"), QueueKey("q", 5, "m"), LeaseKey("P", "i"), CronKey("d", 0), ModeKey(), ProbeKey("x"),
		{codec.String(PrefixCron), codec.String("d"), codec.Number(-1.5)}, {codec.String(PrefixAlarmDue)},
	} {
		f.Add(codec.MustEncode(k), []byte(`{"epochMs":5,"retryCount":0,"body":1,"attempts":0,"holder":"h"}`), int64(7), true)
	}
	f.Fuzz(func(t *testing.T, rawKey, value []byte, expires int64, hasExpiry bool) {
		e := store.Entry{Raw: rawKey, Value: value, Ver: 1}
		e.Key, e.KeyErr = codec.Decode(rawKey)
		if e.KeyErr != nil {
			e.Key = nil
		}
		if hasExpiry {
			e.ExpiresAt = &expires
		}
		lc, cc, ac, qc := &leaseCollector{}, &cronCollector{}, newAlarmCollector(5), newQueueCollector(5, 0)
		mc := &metaCollector{now: 5}
		if e.KeyErr == nil {
			for _, add := range []func(store.Entry){lc.add, cc.add, ac.add, qc.add, mc.add} {
				add(e)
				add(e) // twice: duplicates must not upset the joins
			}
		}
		lc.finish(5)
		cc.finish()
		ac.finish(5)
		qc.finish()
	})
}
