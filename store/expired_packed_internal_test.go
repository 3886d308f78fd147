package store

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kvdeck/codec"
)

// TestPackedWindowsReadAsRows: a packed window hands over exactly the rows
// and figures the same window read row by row does (the rows byte for
// byte: keys with NULs and high bytes, values with quotes, escapes,
// 0x01, non-UTF-8 bytes and 10 KB; stamps and expiries at the ends of
// int64), for key windows and windows of rowids, on the real clock and
// a virtual one, with another program's rows among them (a BLOB stamp
// of digits, a REAL value, a REAL stamp or expiry, TEXT; read row by
// row, and the windows after them packed again).
func TestPackedWindowsReadAsRows(t *testing.T) {
	// The reference's table, and one whose columns have no types (which
	// keeps a REAL value, a TEXT stamp of digits).
	for _, table := range []string{"", "CREATE TABLE kv (k BLOB PRIMARY KEY, v, ver, expires_at)"} {
		packedReadsAsRows(t, table)
	}
}

func packedReadsAsRows(t *testing.T, table string) {
	t.Helper()
	ctx := context.Background()
	now := int64(1767312000000)
	s := openFileAt(t, now)
	if table != "" {
		if err := s.execBatch(ctx, []stmt{{sql: "DROP TABLE kv", ddl: true}, {sql: table, ddl: true}}); err != nil {
			t.Fatal(err)
		}
	}
	seedPackedShapes(t, s, now)
	s.knobs.expiredWindow = 37
	p := codec.MustEncode(codec.Key{codec.String("p")})
	q := codec.MustEncode(codec.Key{codec.String("q")})
	for _, c := range []sweepClock{{now: now, cut: now, real: now}, {now: now + 50, cut: now - 20, real: now - 20}} {
		for _, r := range []struct {
			name   string
			lo, hi []byte
		}{{"ordinary", p, codec.PrefixEnd(p)}, {"odd", q, codec.PrefixEnd(q)}, {"whole", []byte{}, nil}} {
			rows, totals := walkExpired(t, s, r.lo, r.hi, c, false)
			packed, ptotals := walkExpired(t, s, r.lo, r.hi, c, true)
			if len(rows) == 0 || rows != packed || totals != ptotals {
				t.Errorf("%q %s at %+v:\nrows:   %s %s\npacked: %s %s", table, r.name, c, totals, rows, ptotals, packed)
			}
		}
	}
}

// seedPackedShapes writes rows of every shape under ["p"] (the
// reference's types) and ["q"] (another program's), and the empty key.
func seedPackedShapes(t *testing.T, s *Store, now int64) {
	t.Helper()
	values := []string{`{"n":1}`, `"quote \" and \\ back"`, "line\nfeed\ttab\x02ctl", "sep\x01in", "héllo ✓ 𝄞", "", strings.Repeat("x", 10<<10), "\xff\xfe not utf-8"}
	vers := []int64{1, 2, 1 << 62, 9223372036854775807, 0, -5}
	exps := []int64{now - 1, now, now - 30, now + 10, now + 60, -9223372036854775808, now - 100000}
	var stmts []stmt
	for i := range 300 {
		k := append(codec.MustEncode(codec.Key{codec.String("p"), codec.Number(float64(i))}), byte(i), 0, 0xff)
		exp := any(exps[i%len(exps)])
		if i%11 == 0 {
			exp = nil
		}
		stmts = append(stmts, stmt{sql: "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, CAST(? AS TEXT), ?, ?)",
			args: []any{k, []byte(values[i%len(values)]), vers[i%len(vers)], exp}})
	}
	for i, odd := range []string{"1.5, 1, ?", "'v', 'x', ?", "x'00ff', 3, ?", "'v', 4.5, ?", "'v', 5, ? + 0.5", "'w', 6, ?", "'b', x'35', ?", "'t', '12', ?", "0.1 + 0.2, 10, ?", "1e20, 11, ?"} {
		// Each between 40 ordinary rows: a window of its own.
		for j := range 40 {
			k := codec.MustEncode(codec.Key{codec.String("q"), codec.Number(float64(i)), codec.Number(float64(j))})
			stmts = append(stmts, stmt{sql: "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, 'ordinary', 9, ?)", args: []any{k, now - 100}})
		}
		k := codec.MustEncode(codec.Key{codec.String("q"), codec.Number(float64(i))})
		stmts = append(stmts, stmt{sql: "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, " + odd + ")", args: []any{k, now - 100}})
	}
	stmts = append(stmts, stmt{sql: "INSERT INTO kv (k, v, ver, expires_at) VALUES (x'', 'empty key', 7, ?)", args: []any{now - 1}})
	if err := s.execBatch(context.Background(), stmts); err != nil {
		t.Fatal(err)
	}
}

// walkExpired walks [lo, hi) as a journaled sweep reads it, packed or
// not, and returns its rows in key order and its totals, as text.
func walkExpired(t *testing.T, s *Store, lo, hi []byte, c sweepClock, packed bool) (rows, totals string) {
	t.Helper()
	x := s.newExpiredScan(lo, hi, c, expiredRows)
	x.packed = packed
	defer func() {
		if packed && !x.packed {
			t.Errorf("[%x, %x): the windows stopped packing", lo, hi)
		}
	}()
	var all []expiredRow
	var tot expiredTotals
	for !x.done {
		w, err := x.next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		tot.add(w)
		all = append(all, w.rows...)
		x.rows = nil
	}
	slices.SortFunc(all, byKey)
	var b strings.Builder
	for _, r := range all {
		fmt.Fprintf(&b, "[%x %v %q %v %d %q ", r.k.b, r.v.null, r.v.b, r.k.null, r.ver.n, r.ver.odd)
		if r.exp.at != nil {
			fmt.Fprintf(&b, "%d", *r.exp.at)
		}
		fmt.Fprintf(&b, " %q]", r.exp.odd)
	}
	next := "none"
	if tot.next != nil {
		next = fmt.Sprint(*tot.next)
	}
	return b.String(), fmt.Sprintf("%d rows, expired %d, live by the real clock %d, next %s", len(all), tot.expired, tot.liveByReal, next)
}

// FuzzUnpackRows: a packed answer never panics the reader, and one made
// of rows reads back as those rows.
func FuzzUnpackRows(f *testing.F) {
	f.Add([]byte("ab"), []byte("xyz\x01\x01"), []byte("1,1"), []byte("3,-5"), []byte("4,-9223372036854775808"))
	f.Add([]byte{}, []byte("\x01"), []byte("0"), []byte("0"), []byte("0"))
	f.Add([]byte("k"), []byte("v\x01"), []byte("1"), []byte("9223372036854775808"), []byte("1"))
	f.Add([]byte("kk"), []byte("v\x01w\x01"), []byte("1,1"), []byte("2"), []byte("3,4"))
	f.Fuzz(func(t *testing.T, keys, values, lens, vers, exps []byte) {
		rows, err := unpackRows(nil, keys, values, [3][]byte{lens, vers, exps})
		if err != nil {
			return
		}
		var k, v []byte
		var n [3][]byte
		for i, r := range rows {
			for j, x := range []int64{int64(len(r.k.b)), r.ver.n, *r.exp.at} {
				if i > 0 {
					n[j] = append(n[j], ',')
				}
				n[j] = strconv.AppendInt(n[j], x, 10)
			}
			k, v = append(k, r.k.b...), append(append(v, r.v.b...), packedSep)
		}
		again, err := unpackRows(nil, k, v, n)
		if err != nil || !bytes.Equal(k, keys) || !bytes.Equal(v, values) || len(again) != len(rows) {
			t.Fatalf("%q %q %q %q %q read as %d rows, written back as %q %q %q (%v)", keys, values, lens, vers, exps, len(rows), k, v, n, err)
		}
	})
}
