package store

import (
	"errors"
	"math"
)

// A journaled sweep's window on a file comes packed: one row holding the
// window's summary and its expired rows as three values (their keys end
// to end, their values end to end, and each row's key length, value
// length, stamp and expiry as text), gathered by the one pass that
// examines the window. Handed over row by row, each of four columns
// costs the driver a call and a copy, and the summary a second pass:
// reading the images was most of a journaled sweep's work (about 0.8
// of a raw DELETE's CPU per row, and the packed answer about half of
// that, measured on 100k rows).
//
// Only the reference's own shapes pack (a TEXT value, INTEGER stamp and
// expiry, a UTF-8 database, where a TEXT's octets are what a row's read
// hands over): a window with any other expired row, or whose packed
// answer does not add up, is read again row by row (expiredRows). A
// server's windows travel as rows: its answers are JSON either way.

// packedOrdinary is what an expired row must be to pack.
const packedOrdinary = "typeof(v) = 'text' AND typeof(ver) = 'integer' AND typeof(expires_at) = 'integer'"

// packedSQL is x.sql's statement for a packed window of n rows: one row,
// the summary (with sumOdd counting the expired rows that do not pack,
// or -1 when the database is not UTF-8), then the keys, the values and
// the numbers of the rows expired at the cut.
func (x *expiredScan) packedSQL(n int) (string, []any) {
	args, with, where, nrowid, nkey := x.window(n)
	live := "0 * ?3"
	if x.clock.real < x.clock.now {
		live = "count(*) FILTER (WHERE expires_at > ?3 AND expires_at <= ?2)"
	}
	odd := "CASE WHEN (SELECT encoding FROM pragma_encoding) = 'UTF-8' THEN count(*) FILTER (WHERE expires_at <= ?1 AND NOT (" + packedOrdinary + ")) ELSE -1 END"
	figures := "json_array(" + nrowid + ", " + nkey + ", (SELECT seq FROM kv_meta WHERE id = 0), count(*), count(*) FILTER (WHERE expires_at <= ?1), " +
		live + ", " + noBlob("min(expires_at) FILTER (WHERE expires_at > ?2)") + ", NULL, " + odd + ")"
	expired := " FILTER (WHERE expires_at <= ?1)"
	return with + "SELECT " + figures +
		", CAST(group_concat(k, '')" + expired + " AS BLOB), CAST(group_concat(v, '')" + expired + " AS BLOB)" +
		", group_concat(octet_length(k) || ',' || octet_length(v) || ',' || ver || ',' || expires_at, ',')" + expired +
		" FROM kv WHERE " + where, args
}

// readPacked reads a packed window's answer into w, appending its rows
// to x.rows unless w.odd says they must be read row by row.
func (x *expiredScan) readPacked(rows resultRows, w *expiredWindow, sum *windowSummary) error {
	var summary, nums bytesCol
	var keys, values bytesCol
	for rows.Next() {
		if err := rows.Scan(&summary, &keys, &values, &nums); err != nil {
			return x.s.classify(err)
		}
		if err := w.summary(string(summary.b), sum); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return x.s.classify(err)
	}
	if w.odd != 0 {
		return nil
	}
	got, err := unpackRows(x.rows, keys.b, values.b, nums.b)
	if err != nil || int64(len(got)-len(x.rows)) != w.expired {
		w.odd = -1 // read again row by row
		return nil
	}
	x.rows = got
	return nil
}

// errPacked: a packed answer that does not add up.
var errPacked = errors.New("packed rows do not add up")

// unpackRows appends to dst the rows of a packed answer: keys and values
// end to end, nums "klen,vlen,ver,exp" for each row, comma-separated.
// The rows' keys and values are slices of keys and values.
func unpackRows(dst []expiredRow, keys, values, nums []byte) ([]expiredRow, error) {
	var f [4]int64
	exps := make([]int64, 0, len(nums)/24+1)
	for i := 0; len(nums) > 0; i++ {
		for j := range f {
			var err error
			if f[j], nums, err = packedNumber(nums); err != nil {
				return dst, err
			}
		}
		kl, vl := f[0], f[1]
		if kl < 0 || vl < 0 || kl > int64(len(keys)) || vl > int64(len(values)) {
			return dst, errPacked
		}
		if len(exps) == cap(exps) { // never grown: rows point into it
			exps = make([]int64, 0, cap(exps))
		}
		exps = append(exps, f[3])
		dst = append(dst, expiredRow{k: bytesCol{b: keys[:kl:kl]}, v: bytesCol{b: values[:vl:vl]},
			ver: verCol{n: f[2]}, exp: expiryCol{at: &exps[len(exps)-1]}})
		keys, values = keys[kl:], values[vl:]
	}
	if len(keys) != 0 || len(values) != 0 {
		return dst, errPacked
	}
	return dst, nil
}

// packedNumber reads a decimal int64 and the comma after it (none at
// the end) from the front of b, as SQLite writes an INTEGER.
func packedNumber(b []byte) (int64, []byte, error) {
	i, neg := 0, len(b) > 0 && b[0] == '-'
	if neg {
		i++
	}
	var u uint64
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if u > (math.MaxUint64-9)/10 {
			return 0, b, errPacked
		}
		u = u*10 + uint64(b[i]-'0')
	}
	switch {
	case i == start, i-start > 19,
		!neg && u > math.MaxInt64, neg && u > 1<<63:
		return 0, b, errPacked
	case i < len(b) && b[i] != ',':
		return 0, b, errPacked
	case i < len(b):
		i++
	}
	if neg {
		return -int64(u), b[i:], nil // -(1<<63) wraps to itself
	}
	return int64(u), b[i:], nil
}
