package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"kvdeck/codec"
)

// The census's statements. One statement covers a window of rows from a
// cursor: it finds the window's end (an index-only OFFSET), then the
// top-level prefix boundaries inside it by seeking from one to the next
// through the primary key (from a boundary b, the next one is the
// smallest key at or after the end of b's first part), then aggregates
// each prefix's range [b, next boundary) with plain range aggregates, its
// figures travelling as one JSON array. With the row checks (doctor,
// stats --check) the same aggregates also count the rows whose key does
// not decode past its first part (plain expressions for the common
// shapes, else a recursive walk over that row's parts), whose value is
// not JSON and whose ver or expires_at is not an integer; each check is
// one expression in one aggregate, evaluated once per row. The first key
// of each kind is then found by one more statement, from the first range
// that has one.

// censusQuery is what one census statement is built from.
type censusQuery struct {
	lo, hi []byte
	window int
	// ranges is the most prefix ranges one statement aggregates: each is
	// a row of its answer.
	ranges    int
	now, soon int64
	hist      ExpiringOptions
	// keyless also aggregates the rows whose k is NULL, and those whose k
	// is not a BLOB (first window of a whole-store census: no key range
	// holds them).
	keyless bool
	// check also checks every row (CensusOptions.Check): its key's
	// structure past the first part, its value's JSON, its columns' types.
	check bool
	// details also finds the expiry details (CensusOptions.Expiries).
	details bool
}

// Parameters by number: every statement binds them in this order.
const (
	pNow    = "?1"
	pSoon   = "?2"
	pLo     = "?3"
	pHi     = "?4"
	pWindow = "?5"
	pSlices = 6 // the slices' bounds follow, two each
)

// nanOK is true when the 8 bytes b (an SQL expression) encode a number
// that is not NaN.
func nanOK(b string) string {
	return fmt.Sprintf("(%[1]s <= x'FFF0000000000000' AND %[1]s >= x'000FFFFFFFFFFFFF')", b)
}

// firstEndSQL is where the boundary s's first part ends, as a BLOB bound
// for the next seek: the part followed by 0xFF (above every key that has
// this first part: a tag, or the end), or just after s when the part is
// truncated; an unknown tag byte followed by 0xFF (every key it starts is
// undecodable: one range). A string part with an escaped 0x00 gives a bound below s:
// the seek then takes the next key (one range per such row).
func firstEndSQL(s string) string {
	t := "substr(" + s + ", 1, 1)"
	return "CAST(max(" + s + " || x'00', coalesce(CASE" +
		" WHEN " + t + " IN (x'03', x'04') AND length(" + s + ") >= 9 THEN substr(" + s + ", 1, 9) || x'FF'" +
		" WHEN " + t + " = x'05' AND length(" + s + ") >= 2 THEN substr(" + s + ", 1, 2) || x'FF'" +
		" WHEN " + t + " IN (x'01', x'02') THEN substr(" + s + ", 1, nullif(instr(substr(" + s + ", 2), x'00'), 0) + 1) || x'FF'" +
		" WHEN length(" + s + ") > 0 AND " + t + " NOT IN (x'01', x'02', x'03', x'04', x'05') THEN " + t + " || x'FF' END, '')) AS BLOB)"
}

// firstLenSQL is the length of the boundary s's first part when it is
// well formed and has no escaped 0x00 (0 for the empty key), else NULL:
// the rows of its range are then all checked by the walk.
func firstLenSQL(s string) string {
	t := "substr(" + s + ", 1, 1)"
	str := "nullif(instr(substr(" + s + ", 2), x'00'), 0) + 1"
	return "(CASE WHEN length(" + s + ") = 0 THEN 0" +
		" WHEN " + t + " = x'03' AND length(" + s + ") >= 9 AND " + nanOK("substr("+s+", 2, 8)") + " THEN 9" +
		" WHEN " + t + " = x'04' AND length(" + s + ") >= 9 THEN 9" +
		" WHEN " + t + " = x'05' AND substr(" + s + ", 2, 1) IN (x'00', x'01') THEN 2" +
		" WHEN " + t + " IN (x'01', x'02') AND substr(" + s + ", " + str + " + 1, 1) <> x'FF' THEN " + str +
		" END)"
}

// fastKeySQL is true for a key k of a range whose first part is l bytes
// long when what follows the first part is nothing, one fixed-size part,
// or one bytes/string part whose only 0x00 is its terminator (a tag with
// no terminator after it is none: instr finds no 0x00); else 0. A
// CASE on the tag byte, so that only its shape's test runs (SQLite
// evaluates every operand of an OR or AND that computes a value).
func fastKeySQL(l string) string {
	return "coalesce(CASE WHEN length(k) = " + l + " THEN 1 ELSE CASE substr(k, " + l + " + 1, 1)" +
		" WHEN x'02' THEN nullif(instr(substr(k, " + l + " + 2), x'00'), 0) = length(k) - " + l + " - 1" +
		" WHEN x'04' THEN length(k) = " + l + " + 9" +
		" WHEN x'01' THEN nullif(instr(substr(k, " + l + " + 2), x'00'), 0) = length(k) - " + l + " - 1" +
		" WHEN x'03' THEN CASE WHEN length(k) = " + l + " + 9 THEN " + nanOK("substr(k, "+l+" + 2, 8)") + " ELSE 0 END" +
		" WHEN x'05' THEN CASE WHEN length(k) = " + l + " + 2 THEN substr(k, " + l + " + 2, 1) IN (x'00', x'01') ELSE 0 END" +
		" ELSE 0 END END, 0)"
}

// walkKeySQL is true when the key k decodes: a recursive walk over its
// parts, (o, m) being the byte it reached and whether that byte is inside
// a bytes/string payload; a payload ends at its first 0x00 not followed
// by 0xFF (the escape of a data 0x00), as codec reads it.
func walkKeySQL() string {
	z := "(o + nullif(instr(substr(k, o), x'00'), 0) - 1)"
	o2 := "CASE WHEN m = 0 THEN CASE substr(k, o, 1)" +
		" WHEN x'01' THEN o + 1 WHEN x'02' THEN o + 1" +
		" WHEN x'03' THEN CASE WHEN length(k) >= o + 8 AND " + nanOK("substr(k, o + 1, 8)") + " THEN o + 9 END" +
		" WHEN x'04' THEN CASE WHEN length(k) >= o + 8 THEN o + 9 END" +
		" WHEN x'05' THEN CASE WHEN substr(k, o + 1, 1) IN (x'00', x'01') THEN o + 2 END END" +
		" ELSE " + z + " + 1 + (substr(k, " + z + " + 1, 1) = x'FF') END"
	m2 := "CASE WHEN m = 0 THEN substr(k, o, 1) IN (x'01', x'02') ELSE substr(k, " + z + " + 1, 1) = x'FF' END"
	return "EXISTS (WITH RECURSIVE p(o, m) AS (SELECT 1, 0 UNION ALL SELECT " + o2 + ", " + m2 +
		" FROM p WHERE o <= length(k)) SELECT 1 FROM p WHERE m = 0 AND o = length(k) + 1)"
}

// keyHex renders a key for JSON: "x" and its hex, NULL for NULL (hex()
// alone gives ” for NULL, the empty key's form).
func keyHex(k string) string {
	return "(CASE WHEN " + k + " IS NOT NULL THEN 'x' || hex(" + k + ") END)"
}

// noBlob renders an expiry for JSON, which holds no BLOB: a BLOB
// expires_at is no expiry, like a TEXT one.
func noBlob(e string) string {
	return "(CASE WHEN typeof(" + e + ") = 'blob' THEN '' ELSE " + e + " END)"
}

// The positions in a range's figures (figuresSQL, parseFigures).
const (
	fRows = iota
	fLive
	fBytes
	fExpiredBytes
	fSoon
	fNext
	fOldest
	fBad
	fOdd
	fMaxVer
	fNullValues
	fUndecodable
	fSlices // present only with slices
)

// figuresSQL is the figures of the rows of kv that where selects, as a
// JSON array: plain aggregates, few expressions per row (each costs about
// what reading a column does); the expiry details, the soon count, the
// slices and the row checks only when asked. decodes is true of a row
// whose whole key decodes (checks only).
func figuresSQL(q censusQuery, where, decodes string) string {
	dead := "expires_at <= " + pNow
	size := "sum(length(k) + coalesce(length(CAST(v AS BLOB)), 0))" // a NULL v (another program's) is 0 bytes
	c := []string{"count(*)", "count(*) - count(*) FILTER (WHERE " + dead + ")", "coalesce(" + size + ", 0)",
		"0", "0 * " + pSoon, "NULL", "NULL", "0", "0", "0", "0", "0"}
	// (Every parameter bound must appear: libsql-client-go refuses a
	// statement that leaves one unused; an unasked soon count names its
	// bound in a constant.)
	if q.details {
		c[fExpiredBytes] = "coalesce(" + size + " FILTER (WHERE " + dead + "), 0)"
		c[fNext] = noBlob("min(expires_at) FILTER (WHERE expires_at > " + pNow + ")")
		c[fOldest] = noBlob("min(expires_at) FILTER (WHERE " + dead + ")")
	}
	if q.soon > q.now {
		c[fSoon] = "count(*) FILTER (WHERE expires_at > " + pNow + " AND expires_at <= " + pSoon + ")"
	}
	if q.check {
		// A ver below '' is a number (TEXT and BLOB sort above every
		// number), its ceiling taken in Go.
		c[fBad] = "coalesce(sum(" + badValueSQL + "), 0)"
		c[fOdd] = "coalesce(sum(" + oddColumnsSQL() + "), 0)"
		c[fMaxVer] = "max(ver) FILTER (WHERE ver < '')"
		c[fNullValues] = "count(*) - count(v)"
		c[fUndecodable] = "coalesce(sum(NOT " + decodes + "), 0)"
	}
	if h := q.hist; h.Buckets > 0 {
		// The slices as one string, a letter per row expiring in the span
		// ('A' the first slice): one comparison per row instead of one per
		// slice. Slice i holds (now + i·span/n, now + (i+1)·span/n]: i is
		// ⌊(d·n - 1) / span⌋ for d ms after now, a REAL expiry's ceiling.
		span := fmt.Sprintf("expires_at > %s AND expires_at <= ?%d", pNow, pSlices) // sql binds the span's end
		d := "(CAST(expires_at AS INTEGER) + (expires_at > CAST(expires_at AS INTEGER)) - " + pNow + ")"
		c = append(c, fmt.Sprintf("coalesce(group_concat(char(65 + (%s * %d - 1) / %d), '') FILTER (WHERE %s), '')",
			d, h.Buckets, h.Span, span))
	}
	return "(SELECT json_array(" + strings.Join(c, ", ") + ") FROM kv WHERE " + where + ")"
}

// sql renders the statement and its parameters. Its rows are (kind, hex
// key, figures): kind 0 a range (the key is its first), 2 the rows whose
// k is NULL, 3 those whose k is a number or TEXT, and 4 the window's end (the key, NULL when the range is
// done) with kv_meta's seq in the figures' place.
func (q censusQuery) sql() (string, []any) {
	var hi any
	if q.hi != nil {
		hi = q.hi
	}
	lo := q.lo
	if lo == nil {
		lo = []byte{} // a nil []byte would bind as NULL, and k >= NULL matches nothing
	}
	args := []any{q.now, q.soon, lo, hi, q.window}
	if q.hist.Buckets > 0 {
		args = append(args, q.now+q.hist.Span)
	}
	upper := "k < " + pHi
	if q.hi == nil {
		upper = "1"
	}
	text := "WITH RECURSIVE " +
		// x: the window's end, or the range's (past the greatest key when
		// it is unbounded); more: whether rows follow the window.
		"c(x, more, seq) AS MATERIALIZED (SELECT coalesce(w.k, " + pHi + ", CAST((SELECT max(k) FROM kv) || x'00' AS BLOB)), w.k IS NOT NULL, " +
		"(SELECT seq FROM kv_meta WHERE id = 0) FROM (SELECT (SELECT k FROM kv WHERE k >= " + pLo + " AND " + upper +
		" ORDER BY k LIMIT 1 OFFSET " + pWindow + ") AS k) AS w), " +
		// b: each boundary s with the next one n (NULL past the last key),
		// found by one seek each, at most q.ranges of them (i counts
		// them); r: the ranges inside the window, materialized (else
		// SQLite flattens it into the aggregates and works out each
		// range's first-part length again for every row: doctor's census
		// took 2.5 times as long).
		"b(s, n, i) AS (SELECT f, (SELECT min(k) FROM kv WHERE k >= " + firstEndSQL("f") + "), 1 FROM (SELECT (SELECT min(k) FROM kv WHERE k >= " + pLo + ") AS f) " +
		"UNION ALL SELECT b.n, (SELECT min(k) FROM kv WHERE k >= " + firstEndSQL("b.n") + "), b.i + 1 FROM b, c WHERE b.n < c.x AND b.i < " + fmt.Sprint(q.ranges) + "), " +
		"r(s, e, l) AS MATERIALIZED (SELECT s, coalesce(min(n, c.x), c.x), " + firstLenSQL("s") + " FROM b, c WHERE b.s < c.x) " +
		"SELECT 0, " + keyHex("r.s") + ", " + figuresSQL(q, "k >= r.s AND k < r.e", decodesSQL("r.l")) + " FROM r " +
		// The window ends where its last range does: before x when the
		// ranges ran out first.
		"UNION ALL SELECT 4, CASE WHEN (SELECT max(e) FROM r) < x THEN " + keyHex("(SELECT max(e) FROM r)") +
		" WHEN more THEN " + keyHex("x") + " END, seq FROM c"
	if q.keyless {
		text += " UNION ALL SELECT 2, NULL, " + figuresSQL(q, "k IS NULL", "0") +
			// SQLite orders numbers and TEXT before every BLOB.
			" UNION ALL SELECT 3, NULL, " + figuresSQL(q, "k < x''", "0")
	}
	return text, args
}

// badValueSQL is true of a row whose value is not JSON (a NULL v is none).
const badValueSQL = "coalesce(NOT json_valid(CAST(v AS TEXT)), 1)"

// oddColumnsSQL is true of a row whose ver or expires_at is not an
// integer as the reference writes it (store.Entry.Malformed).
// CASEs, so that each column's type is asked once and a NULL expiry costs
// nothing more (SQLite evaluates every operand of a value OR or AND).
func oddColumnsSQL() string {
	whole := func(col string) string {
		return fmt.Sprintf("CASE typeof(%[1]s) WHEN 'integer' THEN 1 WHEN 'real' THEN %[1]s = CAST(%[1]s AS INTEGER) ELSE 0 END", col)
	}
	return "(CASE WHEN NOT " + whole("ver") + " THEN 1 WHEN expires_at IS NULL THEN 0 ELSE NOT " + whole("expires_at") + " END)"
}

// decodesSQL is true of a key k that decodes, in a range whose first part
// is l bytes long (NULL when it does not decode): the walk only for a key
// of no common shape (a CASE: SQLite evaluates both sides of an OR that
// computes a value, and the walk costs ~10 µs a row).
func decodesSQL(l string) string {
	return "(CASE WHEN " + fastKeySQL(l) + " THEN 1 ELSE " + walkKeySQL() + " END)"
}

// censusFigures is one aggregate row read back.
type censusFigures struct {
	c                                 PrefixStats
	bad, odd, nullValues, undecodable int64
	maxVer                            int64
}

// parseFigures reads figuresSQL's JSON array.
func parseFigures(text string, buckets int) (censusFigures, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var a []any
	want := fSlices
	if buckets > 0 {
		want++
	}
	if err := dec.Decode(&a); err != nil || len(a) != want {
		return censusFigures{}, fmt.Errorf("census: unexpected figures %q (%d values): %w", text, len(a), err)
	}
	f := censusFigures{}
	for i, p := range map[int]*int64{fRows: &f.c.Rows, fLive: &f.c.Live, fBytes: &f.c.Bytes, fExpiredBytes: &f.c.ExpiredBytes,
		fSoon: &f.c.Soon, fBad: &f.bad, fOdd: &f.odd, fNullValues: &f.nullValues, fUndecodable: &f.undecodable} {
		n, _ := a[i].(json.Number)
		*p, _ = n.Int64()
	}
	if at := jsonExpiry(a[fMaxVer]); at != nil { // a REAL stamp counts as its ceiling
		f.maxVer = *at
	}
	f.c.Expired = f.c.Rows - f.c.Live
	f.c.NextExpiry, f.c.OldestExpired = jsonExpiry(a[fNext]), jsonExpiry(a[fOldest])
	if buckets > 0 {
		f.c.Expiring = make([]int64, buckets)
		letters, _ := a[fSlices].(string)
		for _, l := range []byte(letters) {
			if i := int(l) - 'A'; i >= 0 && i < buckets {
				f.c.Expiring[i]++
			}
		}
	}
	return f, nil
}

// jsonExpiry reads an expiry the way expiryCol reads the column: a
// fractional REAL counts as its ceiling, TEXT as no expiry.
func jsonExpiry(v any) *int64 {
	var c expiryCol
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			c.Scan(n)
		} else if f, err := x.Float64(); err == nil {
			c.Scan(f)
		}
	case string:
		c.Scan(x)
	}
	return c.at
}

// jsonHex reads keyHex's form; nil for anything else.
func jsonHex(v any) []byte {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, "x") {
		return nil
	}
	b, err := hex.DecodeString(s[1:])
	if err != nil {
		return nil
	}
	return b
}

// censusAcc gathers the windows' figures.
type censusAcc struct {
	st          Stats
	groups      map[string]*PrefixStats
	undecodable *PrefixStats
	// undecodableIn counts the rows whose key does not decode past a
	// first part that does (checks only: they stay in that part's group).
	undecodableIn int64
	// from, for each kind of row the checks find, is the first range
	// that has one (nil when none has).
	from [3]checkFrom
}

// checkFrom is the first range with rows of one kind (undecodable keys,
// invalid values, malformed columns): its first key and the length of its
// first part (-1 when that part does not decode).
type checkFrom struct {
	start []byte
	l     int
}

// The kinds of checkFrom.
const (
	checkKey = iota
	checkValue
	checkMalformed
)

func newCensusAcc() *censusAcc { return &censusAcc{groups: map[string]*PrefixStats{}} }

// censusStep runs one statement from q.lo, of a window of w rows, and
// adds its figures to acc; it returns where the next window starts (nil
// when the range is done).
func (s *Store) censusStep(ctx context.Context, q censusQuery, w *readWindow, acc *censusAcc) ([]byte, error) {
	rows, err := s.censusRows(ctx, w, func(n int) (string, []any) {
		q.window = n
		return q.sql()
	})
	if err != nil {
		return nil, err
	}
	var next []byte
	for _, r := range rows {
		if r.kind == 4 {
			if r.key.Valid {
				next = jsonHex(r.key.String)
			}
			acc.setSeq(r.figures)
			continue
		}
		f, err := parseFigures(r.figures.String, q.hist.Buckets)
		if err != nil {
			return nil, err
		}
		if r.kind == 2 || r.kind == 3 {
			acc.addKeyless(f, r.kind == 3)
		} else {
			acc.add(jsonHex(r.key.String), f)
		}
	}
	s.rowsRead.Add(int64(len(rows)))
	return next, nil
}

// censusRow is one row of a census statement.
type censusRow struct {
	kind         int
	key, figures sql.NullString
}

// censusRows runs one census statement, of a window of w rows
// (readWindowed: without SQLite's locks on a rollback-journal file where
// it can, shorter when a writer leaves too little time).
func (s *Store) censusRows(ctx context.Context, w *readWindow, stmt func(n int) (string, []any)) ([]censusRow, error) {
	var out []censusRow
	err := s.readWindowed(ctx, w, stmt, func(rows resultRows) error {
		out = out[:0]
		for rows.Next() {
			var r censusRow
			if err := rows.Scan(&r.kind, &r.key, &r.figures); err != nil {
				return s.classify(err)
			}
			out = append(out, r)
		}
		return s.classify(rows.Err())
	})
	return out, err
}

// setSeq keeps kv_meta's seq as the last statement read it.
func (a *censusAcc) setSeq(seq sql.NullString) {
	a.st.SeqAfter = nil
	var n int64
	if _, err := fmt.Sscan(seq.String, &n); seq.Valid && err == nil {
		a.st.SeqAfter = &n
	}
}

// checked adds the checks' counts of f.
func (a *censusAcc) checked(f censusFigures) {
	st := &a.st
	st.InvalidValues += f.bad
	st.Malformed += f.odd
	st.NullValues += f.nullValues
	st.MaxVer = max(st.MaxVer, f.maxVer)
}

// add merges the figures of the range whose first key is first.
func (a *censusAcc) add(first []byte, f censusFigures) {
	if f.c.Rows == 0 {
		return
	}
	a.checked(f)
	g, l := a.group(first)
	g.add(f.c)
	if g.Undecodable {
		// Every row of the range is undecodable, the first one first.
		a.st.FirstUndecodable = firstKey(a.st.FirstUndecodable, first)
	} else if f.undecodable > 0 {
		a.undecodableIn += f.undecodable
		a.from[checkKey].first(first, l)
	}
	if f.bad > 0 {
		a.from[checkValue].first(first, l)
	}
	if f.odd > 0 {
		a.from[checkMalformed].first(first, l)
	}
}

// first keeps the range from start when it is the first seen.
func (c *checkFrom) first(start []byte, l int) {
	if c.start == nil || bytes.Compare(start, c.start) < 0 {
		c.start, c.l = start, l
	}
}

// addKeyless merges the figures of the rows whose k is NULL, or with
// typed, of those whose k is not a BLOB: undecodable, and no key can
// name them.
func (a *censusAcc) addKeyless(f censusFigures, typed bool) {
	if f.c.Rows == 0 {
		return
	}
	a.checked(f)
	if typed {
		a.st.TypedKeys += f.c.Rows
	} else {
		a.st.NullKeys += f.c.Rows
	}
	a.undecodableGroup().add(f.c)
}

// group is the prefix group of a range whose first key is first, and the
// length of its first part (-1 for the undecodable group): its first part
// as codec decodes it (the SQL checks a part's structure, Go its content
// too: a string of invalid UTF-8 makes the range's rows undecodable).
func (a *censusAcc) group(first []byte) (*PrefixStats, int) {
	var part codec.Part
	n := 0
	if len(first) > 0 {
		var err error
		if part, n, err = codec.DecodePart(first); err != nil {
			return a.undecodableGroup(), -1
		}
	}
	raw := first[:n:n]
	if g := a.groups[string(raw)]; g != nil {
		return g, n
	}
	g := &PrefixStats{Part: part, Raw: append([]byte{}, raw...)}
	a.groups[string(raw)] = g
	return g, n
}

func (a *censusAcc) undecodableGroup() *PrefixStats {
	if a.undecodable == nil {
		a.undecodable = &PrefixStats{Undecodable: true}
	}
	return a.undecodable
}

// finish orders the groups by key, the undecodable rows last, and totals
// them.
func (a *censusAcc) finish() Stats {
	st := a.st
	keys := make([]string, 0, len(a.groups))
	for k := range a.groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		st.ByPrefix = append(st.ByPrefix, *a.groups[k])
	}
	st.Undecodable = a.undecodableIn
	if a.undecodable != nil {
		st.ByPrefix = append(st.ByPrefix, *a.undecodable)
		st.Undecodable += a.undecodable.Rows
	}
	for _, p := range st.ByPrefix {
		st.Rows += p.Rows
		st.Live += p.Live
		st.Expired += p.Expired
		if p.OldestExpired != nil && (st.OldestExpired == nil || *p.OldestExpired < *st.OldestExpired) {
			st.OldestExpired = p.OldestExpired
		}
	}
	return st
}

// firstKeysSQL is the statement that finds, in one request, the first key
// of each kind the checks counted (from the first range that has one) and,
// with oldest, a key of the row whose expiry is *oldest.at in its range;
// each a NULL column when not asked. hi bounds the census (nil: none).
func (a *censusAcc) firstKeysSQL(hi []byte, oldest *checkFrom, at int64) (string, []any) {
	var cols []string
	var args []any
	find := func(from *checkFrom, cond string, extra ...any) {
		if from == nil || from.start == nil {
			cols = append(cols, "NULL")
			return
		}
		w := "k >= ?"
		args = append(args, from.start)
		if hi != nil {
			w += " AND k < ?"
			args = append(args, hi)
		}
		cols = append(cols, "(SELECT "+keyHex("k")+" FROM kv WHERE "+w+" AND "+cond+" ORDER BY k LIMIT 1)")
		args = append(args, extra...)
	}
	l := a.from[checkKey].l
	find(&a.from[checkKey], "NOT "+decodesSQL(fmt.Sprint(l)))
	find(&a.from[checkValue], badValueSQL)
	find(&a.from[checkMalformed], oddColumnsSQL())
	find(oldest, "expires_at = ?", at)
	return "SELECT " + strings.Join(cols, ", "), args
}
