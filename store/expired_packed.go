package store

import (
	"bytes"
	"errors"
	"math"
)

// A journaled sweep's window on a file comes packed: one row holding the
// window's summary and its expired rows in five values (their keys end
// to end; their values, each ended by a 0x01 byte; and three lists of
// text numbers: the rows' key lengths, stamps and expiries), gathered by
// the one pass that examines the window. Each number goes to its own
// list: joined into one text a row, they cost three strings more a row.
// Handed over row by row, each of four columns costs the driver a call
// and a copy, and the summary a second pass: reading the images was most
// of a journaled sweep's work.
//
// Only the reference's own shapes pack: a TEXT (or BLOB) value without
// a 0x01 byte, an INTEGER stamp and expiry, in a UTF-8 database (where a
// TEXT's octets are what a row's read hands over). Any other row shows
// in the packed answer, without a function call a row: a stamp that is
// not a number and a value that is one become NULL, which group_concat
// skips (a count or a list falls short of the window's expired rows); a
// REAL reads as a number with a point, and a value with 0x01 as one more
// value. A window whose answer does not add up so is read again row by
// row (expiredRows); a database not in UTF-8 is read row by row. A
// server's windows travel as rows: its answers are JSON either way.

// packedSep ends each value of a packed answer.
const packedSep = 0x01

// packedSQL is x.sql's statement for a packed window of n rows: one row,
// the summary (its sumOdd -1 when the database is not UTF-8), then the
// keys, the values and the numbers of the rows expired at the cut.
func (x *expiredScan) packedSQL(n int) (string, []any) {
	args, with, where, nrowid, nkey := x.window(n)
	figures := x.figuresSQL(nrowid, nkey, "count(*) FILTER (WHERE expires_at <= ?1)", "NULL",
		"CASE WHEN (SELECT encoding FROM pragma_encoding) = 'UTF-8' THEN 0 ELSE -1 END")
	expired := " FILTER (WHERE expires_at <= ?1)"
	// A number sorts below every TEXT and BLOB; NULL compares as NULL.
	return with + "SELECT " + figures +
		", CAST(group_concat(k, '')" + expired + " AS BLOB)" +
		", CAST(group_concat(CASE WHEN v >= '' THEN v END || char(1), '')" + expired + " AS BLOB)" +
		", group_concat(octet_length(k), ',')" + expired +
		", group_concat(CASE WHEN ver < '' THEN ver END, ',')" + expired +
		", group_concat(expires_at, ',')" + expired +
		" FROM kv WHERE " + where, args
}

// readPacked reads a packed window's answer into w, appending its rows
// to x.rows; w.odd says when they must be read row by row instead (-1:
// this window and every one after it).
func (x *expiredScan) readPacked(rows resultRows, w *expiredWindow, sum *windowSummary) error {
	var summary, keys, values bytesCol
	var nums [3]bytesCol
	for rows.Next() {
		if err := rows.Scan(&summary, &keys, &values, &nums[0], &nums[1], &nums[2]); err != nil {
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
	got, err := unpackRows(x.rows, keys.b, values.b, [3][]byte{nums[0].b, nums[1].b, nums[2].b})
	if err != nil || int64(len(got)-len(x.rows)) != w.expired {
		w.odd = 1 // this window row by row
		return nil
	}
	x.rows = got
	return nil
}

// errPacked: a packed answer that does not add up.
var errPacked = errors.New("packed rows do not add up")

// unpackRows appends to dst the rows of a packed answer: keys end to
// end, values each ended by packedSep, and nums, three comma-separated
// lists of a number each row: its key's length, stamp and expiry. The
// rows' keys and values are slices of keys and values.
func unpackRows(dst []expiredRow, keys, values []byte, nums [3][]byte) ([]expiredRow, error) {
	var f [3]int64
	exps := make([]int64, 0, len(nums[2])/14+1)
	for len(nums[0]) > 0 {
		for j := range f {
			var err error
			if f[j], nums[j], err = packedNumber(nums[j]); err != nil {
				return dst, err
			}
		}
		end := bytes.IndexByte(values, packedSep)
		if f[0] < 0 || f[0] > int64(len(keys)) || end < 0 {
			return dst, errPacked
		}
		if len(exps) == cap(exps) { // never grown: rows point into it
			exps = make([]int64, 0, cap(exps))
		}
		exps = append(exps, f[2])
		dst = append(dst, expiredRow{k: bytesCol{b: keys[:f[0]:f[0]]}, v: bytesCol{b: values[:end:end]},
			ver: verCol{n: f[1]}, exp: expiryCol{at: &exps[len(exps)-1]}})
		keys, values = keys[f[0]:], values[end+1:]
	}
	if len(keys) != 0 || len(values) != 0 || len(nums[1]) != 0 || len(nums[2]) != 0 {
		return dst, errPacked
	}
	return dst, nil
}

// packedNumber reads a decimal int64 and the comma after it (none at
// the end) from the front of b, as SQLite writes an INTEGER.
func packedNumber(b []byte) (int64, []byte, error) {
	i, neg := 0, len(b) > 0 && b[0] == '-'
	if neg {
		i = 1
	}
	start := i
	var u uint64
	for ; i < len(b) && i-start < 20; i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		u = u*10 + uint64(c)
	}
	// An int64 has at most 19 digits, which never overflow a uint64.
	switch digits := i - start; {
	case digits == 0, digits > 19, !neg && u > math.MaxInt64, neg && u > 1<<63:
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
