package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// oracleStats counts what Census must find from every row, in Go: a row
// is grouped by its first part when that part decodes, whatever follows;
// with check the rows whose whole key does not decode count as
// undecodable (in their group), values and columns are checked.
func oracleStats(t *testing.T, s *store.Store, now, soon int64, check bool) store.Stats {
	t.Helper()
	var st store.Stats
	groups := map[string]*store.PrefixStats{}
	var order []string
	undecodable := &store.PrefixStats{Undecodable: true}
	err := s.Dump(storetest.Ctx(t), nil, func(e store.Entry) error {
		g := undecodable
		first, n, partErr := codec.DecodePart(e.Raw)
		if e.Raw != nil && len(e.Raw) == 0 {
			first, n, partErr = codec.Part{}, 0, nil // the empty key
		}
		if partErr == nil {
			raw := append([]byte{}, e.Raw[:n]...)
			if g = groups[string(raw)]; g == nil {
				g = &store.PrefixStats{Raw: raw, Part: first}
				groups[string(raw)] = g
				order = append(order, string(raw))
			}
		}
		if partErr != nil || check && e.KeyErr != nil {
			st.Undecodable++
			if st.FirstUndecodable == nil {
				st.FirstUndecodable = e.Raw
			}
		}
		g.Rows++
		b := int64(len(e.Raw) + len(e.Value))
		g.Bytes += b
		if e.Live(now) {
			g.Live++
			if e.ExpiresAt != nil {
				if *e.ExpiresAt <= soon {
					g.Soon++
				}
				if g.NextExpiry == nil || *e.ExpiresAt < *g.NextExpiry {
					at := *e.ExpiresAt
					g.NextExpiry = &at
				}
			}
		} else {
			g.Expired++
			g.ExpiredBytes += b
			if g.OldestExpired == nil || *e.ExpiresAt < *g.OldestExpired {
				at := *e.ExpiresAt
				g.OldestExpired = &at
			}
		}
		if !check {
			return nil
		}
		if !e.ValueValid() {
			st.InvalidValues++
			if st.FirstInvalid == nil {
				st.FirstInvalid = e.Raw
			}
		}
		if e.Malformed != "" {
			st.Malformed++
			if st.FirstMalformed == nil {
				st.FirstMalformed = e.Raw
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range order {
		st.ByPrefix = append(st.ByPrefix, *groups[k])
	}
	if undecodable.Rows > 0 {
		st.ByPrefix = append(st.ByPrefix, *undecodable)
	}
	for _, p := range st.ByPrefix {
		st.Rows += p.Rows
		st.Live += p.Live
		st.Expired += p.Expired
	}
	return st
}

// censusMatchesOracle checks the census of the whole store, with the row
// checks and without, in windows of each size, against oracleStats.
func censusMatchesOracle(t *testing.T, s *store.Store, now, soon int64, windows ...int) {
	t.Helper()
	for _, check := range []bool{false, true} {
		want := describeStats(oracleStats(t, s, now, soon, check))
		for _, window := range windows {
			store.SetCensusWindow(s, window)
			st, err := s.Census(storetest.Ctx(t), store.CensusOptions{Now: now, Soon: soon, Expiries: true, Check: check})
			store.SetCensusWindow(s, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := describeStats(st); got != want {
				t.Errorf("check %v, window %d:\n got %s\nwant %s", check, window, got, want)
			}
		}
		// Two prefix ranges per statement: windows end where the ranges
		// run out.
		store.SetCensusRanges(s, 2)
		st, err := s.Census(storetest.Ctx(t), store.CensusOptions{Now: now, Soon: soon, Expiries: true, Check: check})
		store.SetCensusRanges(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := describeStats(st); got != want {
			t.Errorf("check %v, 2 ranges a statement:\n got %s\nwant %s", check, got, want)
		}
	}
}

// describeStats renders what the census tests compare.
func describeStats(st store.Stats) string {
	ms := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rows=%d live=%d expired=%d undecodable=%d invalid=%d malformed=%d first=%x/%x/%x\n",
		st.Rows, st.Live, st.Expired, st.Undecodable, st.InvalidValues, st.Malformed, st.FirstUndecodable, st.FirstInvalid, st.FirstMalformed)
	for _, p := range st.ByPrefix {
		name := "(undecodable)"
		if !p.Undecodable {
			name = fmt.Sprintf("%x %s", p.Raw, p.Part)
		}
		fmt.Fprintf(&b, "%s rows=%d live=%d expired=%d bytes=%d/%d soon=%d next=%s oldest=%s\n",
			name, p.Rows, p.Live, p.Expired, p.Bytes, p.ExpiredBytes, p.Soon, ms(p.NextExpiry), ms(p.OldestExpired))
	}
	return b.String()
}

// TestCensusMatchesEveryRow: the SQL aggregates agree with a count over
// every row read to Go, across window boundaries, on every transport,
// with malformed keys, values that are not JSON, and ver / expires_at
// columns of every type a foreign writer can leave.
func TestCensusMatchesEveryRow(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		clock := storetest.NewClock(storetest.T0)
		s := storetest.Open(t, url, store.Options{Clock: clock.Now})
		a := s.Atomic()
		for i := 0; i < 40; i++ {
			k := codec.Key{codec.String(fmt.Sprintf("p%d", i%7)), codec.Number(float64(i))}
			if i%5 == 0 {
				k = append(k, codec.Bool(true), codec.Bigint(int64(i)))
			}
			a.Set(k, []byte(fmt.Sprintf(`{"i":%d,"s":"é\u2028"}`, i)))
		}
		a.Set(codec.Key{}, []byte(`"empty key"`))
		a.Set(codec.Key{codec.Number(-1)}, []byte(`null`))
		if _, err := a.Commit(storetest.Ctx(t)); err != nil {
			t.Fatal(err)
		}
		for i, ttl := range []time.Duration{0, time.Second, time.Minute, time.Hour} {
			d := ttl
			if _, err := s.Set(storetest.Ctx(t), codec.Key{codec.String("ttl"), codec.Number(float64(i))}, []byte(`1`), &d); err != nil {
				t.Fatal(err)
			}
		}
		db := storetest.RawDB(t, url)
		raw := func(k []byte, v any, ver, exp any) {
			t.Helper()
			if _, err := db.ExecContext(storetest.Ctx(t), "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, ?, ?, ?)", k, v, ver, exp); err != nil {
				t.Fatal(err)
			}
		}
		p3 := codec.MustEncode(codec.Key{codec.String("p3")})
		for i, k := range oddKeys() {
			if _, err := codec.Decode(k); errors.Is(err, codec.ErrInvalidUTF8) && k[3] == 0x02 && bytes.IndexByte(k[4:], 0) > 0 {
				continue // a later part of invalid UTF-8: not seen by the census (see Census)
			}
			raw(k, `0`, 1, nil)
			raw(append(append([]byte{}, p3...), k[3:]...), `0`, 1, storetest.T0-int64(i)) // expired odd keys under "p3"
		}
		raw([]byte{0xff, 0x01}, `1`, 1, nil)
		raw([]byte{0x02, 0xc3, 0x28, 0x00}, `1`, 1, nil) // a first part of invalid UTF-8
		for i, v := range []string{`{not json`, `{a:1}`, `'x'`, `NaN`, `1 2`, `[1,]`, ``, `"\u0001"`, "\"\x01\""} {
			raw(codec.MustEncode(codec.Key{codec.String("badv"), codec.Number(float64(i))}), v, 1, nil)
		}
		for i, c := range []struct{ ver, exp any }{
			{1, float64(storetest.T0 + 1000)}, {1, float64(storetest.T0) - 0.5}, {1, float64(storetest.T0) + 0.5},
			{1, "soon"}, {1, []byte{1, 2}}, {2.5, nil}, {"7", nil}, {float64(3), nil}, {1, float64(storetest.T0 - 1)},
		} {
			raw(codec.MustEncode(codec.Key{codec.String("odd"), codec.Number(float64(i))}), `1`, c.ver, c.exp)
		}
		clock.Add(30 * time.Second)
		now, soon := clock.Now(), clock.Now()+10*time.Minute.Milliseconds()
		censusMatchesOracle(t, s, now, soon, 0, 1, 2, 7, 1000)
		st, err := s.Census(storetest.Ctx(t), store.CensusOptions{Now: now, Prefix: codec.Key{codec.String("p3")}, Check: true})
		// The 12 odd keys stay in the group of their first part, "p3".
		if err != nil || len(st.ByPrefix) != 1 || st.Rows != 20 || st.ByPrefix[0].Rows != 20 || st.Undecodable != 12 {
			t.Errorf("census of [\"p3\"]: %v\n%s", err, describeStats(st))
		}
	})
}

// TestStatsRequestsAreFlat: over HTTP, stats costs the same few requests
// whatever the number of rows and prefixes (aggregates travel, rows do not).
func TestStatsRequestsAreFlat(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 2*time.Millisecond)
	s := storetest.Open(t, proxy.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	var counts []int64
	for round := 0; round < 2; round++ {
		a := s.Atomic()
		for i := 0; i < 3000; i++ {
			a.Set(codec.Key{codec.String(fmt.Sprintf("p%d-%d", round, i%300)), codec.Number(float64(i))}, []byte(`{"x":1}`))
		}
		if _, err := a.Commit(storetest.Ctx(t)); err != nil {
			t.Fatal(err)
		}
		var st store.Stats
		var err error
		counts = append(counts, proxy.Count(func() { st, err = s.Stats(storetest.Ctx(t), storetest.T0) }))
		if err != nil || st.Rows != int64(3000*(round+1)) || len(st.ByPrefix) != 300*(round+1) || st.Seq != int64(round+1) {
			t.Fatalf("stats: %v rows=%d prefixes=%d", err, st.Rows, len(st.ByPrefix))
		}
	}
	if counts[0] != 1 || counts[1] != 1 {
		t.Errorf("stats of 3000 and 6000 rows took %v requests, want 1 each (one census window, seq read in it)", counts)
	}
}
