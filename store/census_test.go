package store_test

import (
	"fmt"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestCensusMatchesDecodingOnHostileKeys: the census's seeks and range
// aggregates agree with decoding every key in Go (oracleStats) on keys
// built to fool a byte-level reading: a terminator followed by bytes that
// look like a later terminator and tag, escaped 0x00s in a first part,
// first parts that prefix each other, every invalid tag byte, truncated
// fixed-size parts, a key that is one byte 0xFF. The census before the
// seeks read "02 61 00 07 00 02 62 00" as the decodable ["a\x00\x07", "b"]
// (a string ends at its first 0x00 not followed by 0xFF; codec reads "a",
// then the invalid tag 0x07).
func TestCensusMatchesDecodingOnHostileKeys(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		clock := storetest.NewClock(storetest.T0)
		s := storetest.Open(t, url, store.Options{Clock: clock.Now})
		db := storetest.RawDB(t, url)
		keys := [][]byte{
			{0x02, 0x61, 0x00, 0x07, 0x00, 0x02, 0x62, 0x00},
			{0x02, 0x61, 0x00, 0x02, 0x62, 0x00},
			{0x02, 0x61, 0x00},
			{0x02, 0x61, 0x00, 0xff, 0x00},
			{0x02, 0x61, 0x00, 0xff, 0x00, 0x02, 0x63, 0x00},
			{0x02, 0x61, 0x00, 0xff, 0x00, 0xff, 0x00, 0x04, 1, 2, 3, 4, 5, 6, 7, 8},
			{0x02, 0x61, 0x62, 0x00},
			{0x01, 0x00, 0x00},
			{0x01, 0x00, 0xff, 0x00, 0x05, 0x01},
			{0x03, 0x01, 0x02},
			{0x03, 1, 2, 3, 4, 5, 6, 7, 8},
			{0x03, 1, 2, 3, 4, 5, 6, 7, 8, 0xff},
			{0x03, 1, 2, 3, 4, 5, 6, 7, 8, 0x02, 0x61, 0x00},
			{0x03, 0xff, 0xf8, 0, 0, 0, 0, 0, 1},
			{0x03, 0xff, 0xf8, 0, 0, 0, 0, 0, 1, 0x05, 0x00},
			{0x05, 0x01, 0x05, 0x00},
			{0x05, 0x02},
			{0x05, 0x02, 0x05, 0x01},
			{0xff},
			{0xff, 0xff, 0x00},
			// A bare bytes or string tag after the first part (no
			// payload, no terminator): the fast shapes once took it for
			// an empty part (FuzzCensusKeyGrammar found it).
			{0x04, 1, 2, 3, 4, 5, 6, 7, 8, 0x01},
			{0x02, 0x61, 0x00, 0x02},
		}
		for tag := 0; tag < 256; tag += 17 {
			keys = append(keys, []byte{byte(tag), 0x61, 0x00})
		}
		for i, k := range keys {
			var exp any
			if i%3 == 0 {
				exp = storetest.T0 - int64(i)
			}
			if _, err := db.ExecContext(storetest.Ctx(t), "INSERT OR IGNORE INTO kv (k, v, ver, expires_at) VALUES (?, ?, 1, ?)", k, fmt.Sprintf(`{"i":%d}`, i), exp); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 30; i++ {
			if _, err := s.Set(storetest.Ctx(t), codec.Key{codec.String(fmt.Sprintf("p%d", i%4)), codec.Number(float64(i)), codec.String("x")}, []byte(`1`), nil); err != nil {
				t.Fatal(err)
			}
		}
		clock.Add(time.Second)
		now := clock.Now()
		censusMatchesOracle(t, s, now, now, 0, 1, 3)
	})
}

// TestCensusRequestBudget: behind the latency proxy adding 50 ms to every
// request, on a real sqld, stats (seq and the census), the Sweep tab's
// census and preview, doctor's census with its oldest key and sweep's
// dry run each take at most 3 requests on a store of 7000 rows under 500
// prefixes, expired ones among them.
func TestCensusRequestBudget(t *testing.T) {
	srv := sqldtest.Start(t)
	now := storetest.T0
	seedCensusShape(t, srv.URL, 7000, now)
	proxy := sqldtest.StartProxy(t, srv.URL, 50*time.Millisecond)
	s := storetest.Open(t, proxy.URL, store.Options{Clock: storetest.NewClock(now).Now})
	for _, w := range censusWork(s, now) {
		var rows int64
		var err error
		n := proxy.Count(func() { rows, err = w.run(storetest.Ctx(t)) })
		want := int64(7000)
		if w.expired {
			want = 1000 // seedCensusShape's n/7 expired rows
		}
		if w.count != 0 {
			want = w.count
		}
		if err != nil || rows != want {
			t.Fatalf("%s: %v, %d rows", w.name, err, rows)
		}
		t.Logf("%s: %d requests", w.name, n)
		if n > 3 {
			t.Errorf("%s took %d requests, want at most 3", w.name, n)
		}
	}
}
